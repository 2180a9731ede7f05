package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/freeact/desktop/internal/atomicfile"
)

// Plan says what reverting records would do.
type Plan struct {
	// Restore lists the files put back as they were before the records
	// (a file the records created is deleted).
	Restore []Change `json:"restore"`
	// Conflicts are files changed again since the records (by a later
	// action or by hand): reverting them would lose that change, so they
	// are only reverted when forced.
	Conflicts []Change `json:"conflicts"`
	// Unrestorable are files whose earlier content was not kept (above
	// the size limit); they are left as they are.
	Unrestorable []string `json:"unrestorable"`
}

// ErrConflict is the error of a revert that would overwrite changes made
// after the reverted records; Revert's force takes them back anyway.
var ErrConflict = errors.New("files changed since")

// step is one path of a revert: what it should become and whether it may
// be touched.
type step struct {
	pair
	cur      *File
	conflict bool
}

// plan compares the current workspace (snapshot cur) with the records.
func (s *Store) plan(records []Record, cur Hash) ([]step, Plan, error) {
	net, err := s.net(records)
	if err != nil {
		return nil, Plan{}, err
	}
	now, err := s.obj.flattenPaths(cur, net)
	if err != nil {
		return nil, Plan{}, err
	}
	var steps []step
	var pl Plan
	for _, p := range net {
		st := step{pair: p, cur: now[p.path]}
		if same(st.cur, p.old) {
			continue // already as it was
		}
		st.conflict = !same(st.cur, p.new)
		c, isFile := s.change(pair{path: p.path, old: st.cur, new: p.old})
		switch {
		case p.old != nil && p.old.kind == kindLarge:
			pl.Unrestorable = append(pl.Unrestorable, p.path)
			continue
		case !isFile && st.conflict && p.old == nil && st.cur != nil && st.cur.kind == kindDir:
			// A folder the records created that now holds other files:
			// the files are steps of their own; the folder stays.
			continue
		case isFile && st.conflict:
			pl.Conflicts = append(pl.Conflicts, c)
		case isFile:
			pl.Restore = append(pl.Restore, c)
		}
		steps = append(steps, st)
	}
	return steps, pl, nil
}

// flattenPaths returns the entries of the tree root at the given paths.
func (o *objects) flattenPaths(root Hash, ps []pair) (map[string]*File, error) {
	out := map[string]*File{}
	for _, p := range ps {
		f, err := o.lookup(root, p.path)
		if err != nil {
			return nil, err
		}
		if f != nil {
			out[p.path] = f
		}
	}
	return out, nil
}

// lookup finds the entry at path in the tree root; nil when there is none.
func (o *objects) lookup(root Hash, path string) (*File, error) {
	h := root
	parts := strings.Split(path, "/")
	for i, name := range parts {
		if h.IsZero() {
			return nil, nil
		}
		es, err := o.tree(h)
		if err != nil {
			return nil, err
		}
		k := sort.Search(len(es), func(j int) bool { return es[j].name >= name })
		if k == len(es) || es[k].name != name {
			return nil, nil
		}
		e := es[k]
		if i == len(parts)-1 {
			return &File{Path: path, kind: e.kind, perm: e.perm, Size: e.size, hash: e.hash}, nil
		}
		if e.kind != kindDir {
			return nil, nil
		}
		h = e.hash
	}
	return nil, nil
}

// PlanRevert says what reverting the records would do now, changing
// nothing.
func (s *Store) PlanRevert(ctx context.Context, records []Record) (Plan, error) {
	unlock, err := s.lockAll(ctx)
	if err != nil {
		return Plan{}, err
	}
	defer unlock()
	cur, err := s.snapshot(ctx)
	if err != nil {
		return Plan{}, err
	}
	_, pl, err := s.plan(records, cur.Root)
	return pl, err
}

// Revert puts every file the records changed back as it was before them,
// and records that as a revert (info says who asked; its Label is set when
// empty). Files changed again since are conflicts: without force they stay
// as they are and the others are reverted (the error wraps ErrConflict
// when only conflicts were left); with force they are reverted too. The
// result is nil when there was nothing to revert.
func (s *Store) Revert(ctx context.Context, records []Record, info Info, force bool) (*Record, Plan, error) {
	unlock, err := s.lockAll(ctx)
	if err != nil {
		return nil, Plan{}, err
	}
	defer unlock()
	before, err := s.snapshot(ctx)
	if err != nil {
		return nil, Plan{}, err
	}
	steps, pl, err := s.plan(records, before.Root)
	if err != nil {
		return nil, pl, err
	}
	if len(pl.Conflicts) > 0 && !force {
		// The files without a conflict are reverted; those changed since
		// stay as they are (the plan lists them).
		clean := make([]step, 0, len(steps))
		for _, st := range steps {
			if !st.conflict {
				clean = append(clean, st)
			}
		}
		if len(clean) == 0 {
			return nil, pl, fmt.Errorf("%w: %s (revert anyway to overwrite)", ErrConflict, changedPaths(pl.Conflicts))
		}
		steps = clean
	}
	if err := s.apply(steps); err != nil {
		return nil, pl, err
	}
	after, err := s.snapshot(context.WithoutCancel(ctx))
	if err != nil {
		return nil, pl, err
	}
	if before.Root == after.Root {
		return nil, pl, nil
	}
	changes, err := s.changes(before.Root, after.Root)
	if err != nil {
		return nil, pl, err
	}
	r := Record{
		ID: newID(), Kind: KindRevert, Session: info.Session, Agent: info.Agent, Turn: info.Turn,
		Label: info.Label, Before: before.Root, After: after.Root, Time: time.Now().UTC(), Changes: changes,
	}
	if r.Label == "" {
		r.Label = revertLabel(records)
	}
	for _, x := range records {
		r.Reverts = append(r.Reverts, x.ID)
	}
	if err := s.records.add(r); err != nil {
		return nil, pl, err
	}
	return &r, pl, nil
}

func changedPaths(cs []Change) string {
	var ps []string
	for _, c := range cs {
		ps = append(ps, c.Path)
	}
	if len(ps) > 5 {
		ps = append(ps[:5], fmt.Sprintf("and %d more", len(ps)-5))
	}
	return strings.Join(ps, ", ")
}

// revertLabel says what a revert of records took back.
func revertLabel(records []Record) string {
	if len(records) == 1 {
		r := records[0]
		if r.Kind == KindRevert {
			return "Undo: " + r.Label
		}
		return "Revert: " + r.Label
	}
	if t := records[0]; t.TurnID != "" {
		return fmt.Sprintf("Revert turn %d: %s", t.Turn, t.Prompt)
	}
	return fmt.Sprintf("Revert %d changes", len(records))
}

// apply makes the workspace match the steps' old entries: files and links
// removed first (deepest first), then folders removed, then folders
// created (shallowest first), then files and links written.
func (s *Store) apply(steps []step) error {
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].path < steps[j].path })
	abs := func(p string) string { return filepath.Join(s.ws, filepath.FromSlash(p)) }
	isDir := func(f *File) bool { return f != nil && f.kind == kindDir }
	var errs []error
	// Remove what should not be there (or is of another kind).
	for i := len(steps) - 1; i >= 0; i-- {
		st := steps[i]
		if st.cur == nil || isDir(st.cur) || (st.old != nil && !isDir(st.old) && st.cur.kind == st.old.kind) {
			continue
		}
		if err := os.Remove(abs(st.path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove %s: %w", st.path, err))
		}
	}
	for i := len(steps) - 1; i >= 0; i-- {
		st := steps[i]
		if isDir(st.cur) && !isDir(st.old) {
			// Only when empty: whatever else is in it stays.
			if err := os.Remove(abs(st.path)); err != nil && !errors.Is(err, fs.ErrNotExist) && !isNotEmpty(err) {
				errs = append(errs, fmt.Errorf("remove folder %s: %w", st.path, err))
			}
		}
	}
	for _, st := range steps {
		if isDir(st.old) {
			if err := os.MkdirAll(abs(st.path), fs.FileMode(st.old.perm)); err != nil {
				errs = append(errs, fmt.Errorf("create folder %s: %w", st.path, err))
			} else if err := os.Chmod(abs(st.path), fs.FileMode(st.old.perm)); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, st := range steps {
		f := st.old
		if f == nil || isDir(f) {
			continue
		}
		data, err := s.obj.get(f.hash)
		if err != nil {
			errs = append(errs, fmt.Errorf("restore %s: %w", st.path, err))
			continue
		}
		p := abs(st.path)
		switch f.kind {
		case kindSymlink:
			_ = os.Remove(p)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				errs = append(errs, fmt.Errorf("restore %s: %w", st.path, err))
			} else if err := os.Symlink(string(data), p); err != nil {
				errs = append(errs, fmt.Errorf("restore %s: %w", st.path, err))
			}
		case kindFile:
			if err := atomicfile.Write(p, data, fs.FileMode(f.perm)); err != nil {
				errs = append(errs, fmt.Errorf("restore %s: %w", st.path, err))
			}
		}
	}
	return errors.Join(errs...)
}

// isNotEmpty reports the error of removing a folder that holds files.
func isNotEmpty(err error) bool {
	return errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)
}
