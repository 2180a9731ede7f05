package checkpoint

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/freeact/desktop/internal/atomicfile"
)

// pruneEvery is how often Open prunes a store.
const pruneEvery = 24 * time.Hour

// keepFresh: objects younger than this are never removed, so a snapshot
// another process is taking keeps what it just wrote.
const keepFresh = time.Hour

func (s *Store) pruneDue() bool {
	if _, err := os.Stat(filepath.Join(s.dir, secretsPruned)); err != nil {
		return true // kept .env content from before DefaultSecret: remove it now
	}
	data, err := os.ReadFile(filepath.Join(s.dir, "pruned"))
	if err != nil {
		return true
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return err != nil || time.Since(time.Unix(sec, 0)) > pruneEvery
}

// secretsPruned marks a store pruned since secret files are no longer
// kept.
const secretsPruned = "pruned-secrets"

// PruneResult says what Prune removed.
type PruneResult struct {
	Records, Objects int
	Bytes            int64 // of the objects removed
	Kept             int64 // bytes of the objects the kept records use
}

// Prune removes the records older than MaxAge (counted from now), then the
// oldest records while the objects they keep take more than MaxBytes, and
// the objects no record, nor the last snapshot, uses.
func (s *Store) Prune(ctx context.Context, now time.Time) (PruneResult, error) {
	unlock, err := s.lockAll(ctx)
	if err != nil {
		return PruneResult{}, err
	}
	defer unlock()
	var res PruneResult
	all, err := s.records.all()
	if err != nil {
		return res, err
	}
	keep := all[:0:0]
	for _, r := range all {
		if now.Sub(r.Time) <= s.opts.MaxAge {
			keep = append(keep, r)
		}
	}
	for {
		kept, err := s.measure(ctx, keep)
		if err != nil {
			return res, err
		}
		res.Kept = kept
		// The newest record stays whatever its size: the last action can
		// always be reviewed and reverted.
		if kept <= s.opts.MaxBytes || len(keep) <= 1 {
			break
		}
		// Drop the oldest tenth and measure again.
		keep = keep[max(1, len(keep)/10):]
	}
	res.Records = len(all) - len(keep)
	if res.Records > 0 {
		if err := s.records.rewrite(keep); err != nil {
			return res, fmt.Errorf("prune checkpoints: %w", err)
		}
	}
	n, b, err := s.collect(ctx, keep, now)
	if err != nil {
		return res, err
	}
	res.Objects, res.Bytes = n, b
	_ = atomicfile.WriteCache(filepath.Join(s.dir, "pruned"), []byte(strconv.FormatInt(now.Unix(), 10)), 0o600)
	_ = atomicfile.WriteCache(filepath.Join(s.dir, secretsPruned), nil, 0o600)
	return res, nil
}

// live marks every object the records, the index in memory and the index
// on disk use. The content of secret files (.env) kept by older versions
// is not marked, so it is removed: the trees still list those files, as
// present but not kept.
func (s *Store) live(keep []Record) (seen, secrets map[Hash]bool) {
	seen, secrets = map[Hash]bool{}, map[Hash]bool{}
	var mark func(dir string, h Hash)
	mark = func(dir string, h Hash) {
		if h.IsZero() || seen[h] {
			return
		}
		seen[h] = true
		es, err := s.obj.tree(h)
		if err != nil {
			return // a missing tree has nothing to keep
		}
		for _, e := range es {
			p := joinPath(dir, e.name)
			switch e.kind {
			case kindDir:
				mark(p, e.hash)
			case kindFile:
				if s.secret(p) {
					secrets[e.hash] = true
				} else {
					seen[e.hash] = true
				}
			case kindSymlink:
				seen[e.hash] = true
			}
		}
	}
	for _, r := range keep {
		mark("", r.Before)
		mark("", r.After)
	}
	head, disk := s.loadIndex()
	for _, idx := range []map[string]cached{s.index, disk} {
		for p, c := range idx {
			if c.kind == kindFile && s.secret(p) {
				secrets[c.hash] = true
			} else {
				seen[c.hash] = true
			}
		}
	}
	mark("", head)
	mark("", s.head)
	if j, _ := s.readJournal(); j != nil {
		// An interrupted revert's files before it, for RollbackRevert.
		mark("", j.Before)
	}
	return seen, secrets
}

// secret reports whether the file rel's content is not kept.
func (s *Store) secret(rel string) bool {
	return isSecret(DefaultSecret, rel) || isSecret(s.opts.Secret, rel)
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// measure returns the bytes of the objects the records keep. Objects no
// record uses are not counted even while they are kept as fresh: dropping
// records cannot free them, so they must not make Prune drop records.
func (s *Store) measure(ctx context.Context, keep []Record) (kept int64, err error) {
	seen, _ := s.live(keep)
	err = s.eachObject(ctx, func(h Hash, info fs.FileInfo) {
		if seen[h] {
			kept += info.Size()
		}
	})
	return kept, err
}

// collect removes the objects the records do not use.
func (s *Store) collect(ctx context.Context, keep []Record, now time.Time) (int, int64, error) {
	seen, secrets := s.live(keep)
	var n int
	var bytes int64
	err := s.eachObject(ctx, func(h Hash, info fs.FileInfo) {
		// A secret's content goes whatever its age: no snapshot in
		// progress writes one.
		if seen[h] || (!secrets[h] && now.Sub(info.ModTime()) < keepFresh) {
			return
		}
		if os.Remove(s.obj.path(h)) == nil {
			n++
			bytes += info.Size()
			s.obj.forget(h)
		}
	})
	return n, bytes, err
}

func (s *Store) eachObject(ctx context.Context, fn func(Hash, fs.FileInfo)) error {
	root := s.obj.dir
	dirs, err := os.ReadDir(root)
	if err != nil {
		return fmt.Errorf("prune checkpoints: %w", err)
	}
	for _, d := range dirs {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !d.IsDir() || len(d.Name()) != 2 {
			continue
		}
		files, err := os.ReadDir(filepath.Join(root, d.Name()))
		if err != nil {
			continue
		}
		for _, f := range files {
			h, err := ParseHash(d.Name() + f.Name())
			if err != nil {
				continue // a temporary file
			}
			info, err := f.Info()
			if err != nil {
				continue
			}
			fn(h, info)
		}
	}
	return nil
}
