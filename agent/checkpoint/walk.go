package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// DefaultIgnore are left out of every checkpoint, whatever .gitignore says:
// version control data, the session records (they have their own history),
// the tool-search index, and folders of installed packages and caches that
// code rebuilds.
var DefaultIgnore = []string{
	".git/",
	".freeact/sessions/",
	".freeact/search.db*",
	".venv/",
	"node_modules/",
	"__pycache__/",
	".ipynb_checkpoints/",
	".mypy_cache/",
	".pytest_cache/",
	".ruff_cache/",
}

// DefaultSecret are the files whose content no snapshot keeps, whatever
// Options.Secret adds: .env files hold API keys. They are recorded as
// present (kind, size, time), so a revert knows they are there, but a
// revert cannot restore them either.
var DefaultSecret = []string{"**/.env", "**/.env.*"}

// isSecret reports whether the file rel (slash-separated) matches one of
// the secret patterns.
func isSecret(patterns []string, rel string) bool {
	for _, p := range patterns {
		if ok, _ := doublestar.Match(p, rel); ok {
			return true
		}
	}
	return false
}

// ErrTooManyFiles is the error of a snapshot of a workspace with more files
// than Options.MaxFiles (after the ignore rules).
var ErrTooManyFiles = errors.New("too many files to checkpoint")

// statKey is what a file's stat says about its content: when all of it is
// unchanged since the file was hashed, the hash is reused.
type statKey struct {
	size  int64
	mtime int64 // ns
	ctime int64 // ns
	ino   uint64
	mode  fs.FileMode
}

// cached is a file's hash with the stat it was taken under.
type cached struct {
	key  statKey
	hash Hash
	kind byte
	// at is when the file was hashed: a file modified less than the file
	// system's timestamp resolution before that may have changed again
	// without a new timestamp, so it is hashed again.
	at int64
}

// coarseResolution is the timestamp resolution assumed of file systems not
// known to be finer: FAT keeps modification times to 2 s.
const coarseResolution = int64(2 * time.Second)

// walker snapshots a workspace folder by folder, several folders at once.
type walker struct {
	ctx     context.Context // stops the walk
	objects *objects
	maxFile int64
	maxN    int64
	secret  []string          // doublestar patterns of files whose content is not kept
	prev    map[string]cached // the index of the previous snapshot
	// keep is the tree of a snapshot whose files are recorded even where
	// the workspace's .gitignore files now exclude them (zero: none).
	keep Hash
	// fixed are DefaultIgnore and Options.Ignore, which apply to kept
	// files too.
	fixed gitignore.Matcher
	now   int64
	racy  int64 // the file system's timestamp resolution, ns
	// slots bounds the folders walked at once beyond the first.
	slots chan struct{}

	files  atomic.Int64
	hashed atomic.Int64 // files read and hashed (not taken from the index)

	mu    sync.Mutex
	next  map[string]cached
	large []string
}

func newWalker(ctx context.Context, o *objects, prev map[string]cached, opts Options, racy int64) *walker {
	return &walker{
		ctx: ctx, objects: o, maxFile: opts.MaxFileBytes, maxN: int64(opts.MaxFiles), prev: prev, racy: racy,
		secret: append(append([]string(nil), DefaultSecret...), opts.Secret...),
		fixed:  fixedMatcher(opts.Ignore),
		now:    time.Now().UnixNano(), slots: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1)),
		next: make(map[string]cached, len(prev)),
	}
}

// walk snapshots the workspace root.
func (w *walker) walk(root string, ignore ignoreRules) (Hash, error) {
	d, err := openDir(root)
	if err != nil {
		return Hash{}, err
	}
	defer d.close()
	h, err := w.dir(d, "", nil, ignore, w.keep)
	if err != nil {
		return Hash{}, err
	}
	sort.Strings(w.large)
	return h, nil
}

// dir snapshots the open folder d at rel ("" for the root) and returns its
// tree; keepTree is the folder's tree in w.keep (zero when it had none).
// Subfolders are walked in other goroutines while slots allow.
func (w *walker) dir(d dirHandle, rel string, comps []string, ignore ignoreRules, keepTree Hash) (Hash, error) {
	if err := w.ctx.Err(); err != nil {
		return Hash{}, err
	}
	names, err := d.names()
	if err != nil {
		return Hash{}, err
	}
	sort.Strings(names)
	if data, err := d.readFile(".gitignore", 1<<20); err == nil {
		ignore = ignore.with(data, comps)
	}
	dirMatcher, fileMatcher := gitignore.NewMatcher(ignore.all), gitignore.NewMatcher(ignore.files)
	var kept []entry // the entries of keepTree
	if !keepTree.IsZero() {
		kept, _ = w.objects.tree(keepTree)
	}
	entries := make([]entry, len(names))
	keep := make([]bool, len(names))
	var (
		wg    sync.WaitGroup
		errMu sync.Mutex
		errs  []error
	)
	fail := func(err error) {
		errMu.Lock()
		errs = append(errs, err)
		errMu.Unlock()
	}
	var loopErr error
	for i, name := range names {
		p := name
		if rel != "" {
			p = rel + "/" + name
		}
		st, err := d.lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed while we looked
		}
		if err != nil {
			loopErr = fmt.Errorf("%s: %w", p, err)
			break
		}
		isDir := st.mode.IsDir()
		path := append(comps[:len(comps):len(comps)], name)
		ke := findEntry(kept, name)
		if (isDir && dirMatcher.Match(path, true)) || (!isDir && fileMatcher.Match(path, false)) {
			if ke == nil || (ke.kind == kindDir) != isDir || w.fixed.Match(path, isDir) {
				continue
			}
		}
		var subKeep Hash
		if ke != nil && ke.kind == kindDir {
			subKeep = ke.hash
		}
		entries[i] = entry{name: name, perm: uint32(st.mode.Perm())}
		if isDir {
			sub, err := d.sub(name)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				loopErr = fmt.Errorf("%s: %w", p, err)
				break
			}
			run := func() {
				defer sub.close()
				h, err := w.dir(sub, p, path, ignore, subKeep)
				switch {
				case err == nil:
					entries[i].kind, entries[i].hash, keep[i] = kindDir, h, true
				case !errors.Is(err, fs.ErrNotExist):
					fail(err)
				}
			}
			select {
			case w.slots <- struct{}{}:
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer func() { <-w.slots }()
					run()
				}()
			default:
				run()
			}
			continue
		}
		if !st.mode.IsRegular() && st.mode&fs.ModeSymlink == 0 {
			continue // sockets, devices and pipes are left out
		}
		if n := w.files.Add(1); w.maxN > 0 && n > w.maxN {
			loopErr = fmt.Errorf("%w: more than %d (add the large folders to .gitignore)", ErrTooManyFiles, w.maxN)
			break
		}
		c, err := w.file(d, p, name, st)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			loopErr = fmt.Errorf("%s: %w", p, err)
			break
		}
		entries[i].kind, entries[i].hash, entries[i].size, keep[i] = c.kind, c.hash, st.size, true
	}
	wg.Wait()
	if loopErr != nil {
		return Hash{}, loopErr
	}
	if len(errs) > 0 {
		return Hash{}, errs[0]
	}
	out := entries[:0]
	for i, e := range entries {
		if keep[i] {
			out = append(out, e)
		}
	}
	return w.objects.putTree(out)
}

// file returns the hash of one file or symbolic link, from the previous
// index when its stat is unchanged and it was not modified close to when
// it was hashed.
func (w *walker) file(d dirHandle, rel, name string, st statKey) (cached, error) {
	secret := st.mode.IsRegular() && isSecret(w.secret, rel)
	if c, ok := w.prev[rel]; ok && c.key == st && st.mtime < c.at-w.racy && st.ctime < c.at-w.racy && secret == (c.kind == kindSecret) {
		w.mu.Lock()
		w.next[rel] = c
		w.mu.Unlock()
		return c, nil
	}
	c := cached{key: st, at: w.now}
	switch {
	case st.mode&fs.ModeSymlink != 0:
		target, err := d.readlink(name)
		if err != nil {
			return c, err
		}
		c.kind, c.hash = kindSymlink, sha256.Sum256([]byte(target))
		if err := w.objects.put(c.hash, []byte(target)); err != nil {
			return c, err
		}
	case secret:
		c.kind = kindSecret
		c.hash = sha256.Sum256(fmt.Appendf(nil, "secret %d %d %d", st.size, st.mtime, st.ino))
	case st.size > w.maxFile:
		c.kind = kindLarge
		c.hash = sha256.Sum256(fmt.Appendf(nil, "large %d %d %d", st.size, st.mtime, st.ino))
		w.mu.Lock()
		w.large = append(w.large, rel)
		w.mu.Unlock()
	default:
		data, err := d.readFile(name, w.maxFile+1)
		if err != nil {
			return c, err
		}
		w.hashed.Add(1)
		c.kind, c.hash = kindFile, sha256.Sum256(data)
		if err := w.objects.put(c.hash, data); err != nil {
			return c, err
		}
	}
	w.mu.Lock()
	w.next[rel] = c
	w.mu.Unlock()
	return c, nil
}

// findEntry returns the entry named name of the sorted entries es, or nil.
func findEntry(es []entry, name string) *entry {
	k := sort.Search(len(es), func(j int) bool { return es[j].name >= name })
	if k == len(es) || es[k].name != name {
		return nil
	}
	return &es[k]
}

// ignoreRules are the gitignore patterns that apply in a folder: all of
// them for folders, and for files those that are not for folders only
// ("build/"), since the walk never enters an ignored folder. Most patterns
// are for folders, so files, which are many, are matched against few.
type ignoreRules struct {
	all, files []gitignore.Pattern
}

// with returns the rules with the lines of a .gitignore file in the folder
// domain added.
func (r ignoreRules) with(data []byte, domain []string) ignoreRules {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r = r.add(line, domain)
	}
	return r
}

// add appends one pattern, copying the lists so a parent's stay as they
// are.
func (r ignoreRules) add(line string, domain []string) ignoreRules {
	p := gitignore.ParsePattern(line, domain)
	r.all = append(r.all[:len(r.all):len(r.all)], p)
	if !strings.HasSuffix(strings.TrimRight(line, " "), "/") {
		r.files = append(r.files[:len(r.files):len(r.files)], p)
	}
	return r
}

// fixedMatcher matches DefaultIgnore and the extra patterns.
func fixedMatcher(extra []string) gitignore.Matcher {
	var ps []gitignore.Pattern
	for _, p := range append(append([]string(nil), DefaultIgnore...), extra...) {
		ps = append(ps, gitignore.ParsePattern(p, nil))
	}
	return gitignore.NewMatcher(ps)
}

// rootIgnore returns the rules every snapshot of root starts with:
// DefaultIgnore, the extra patterns and .git/info/exclude.
func rootIgnore(root string, extra []string) ignoreRules {
	var r ignoreRules
	for _, p := range append(append([]string(nil), DefaultIgnore...), extra...) {
		r = r.add(p, nil)
	}
	if data, err := os.ReadFile(filepath.Join(root, ".git", "info", "exclude")); err == nil {
		r = r.with(data, nil)
	}
	return r
}
