package checkpoint

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/freeact/desktop/internal/beneath"
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
	// the size limit, or a secret such as .env); they are left as they
	// are.
	Unrestorable []string `json:"unrestorable"`
	// Protected are the files among Restore and Conflicts that change
	// what the agent may do without asking (.freeact/permissions.json,
	// agent.json, the sandbox settings), with both versions: they are only
	// reverted when forced, after the protected-file warning.
	Protected []ProtectedChange `json:"protected"`
	// Unkept are files the records created whose content is not kept
	// (large, or secret): deleting them could not be undone, so they stay
	// unless Info.DeleteUnkept names them. They are not in Restore.
	Unkept []Unkept `json:"unkept"`
}

// ProtectedChange is a protected file a revert would change: Current is
// its content now, Restored what the revert writes ("" when it deletes
// the file or the file is missing now).
type ProtectedChange struct {
	Change
	Current  string `json:"current"`
	Restored string `json:"restored"`
}

// Unkept is a file a revert would delete whose content is not kept.
type Unkept struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	Secret bool   `json:"secret,omitempty"`
}

// ProtectedWarning is the warning shown with a revert of protected files,
// the same as for any write of them.
const ProtectedWarning = "this changes what the agent may do without asking"

// DefaultProtected are the files that change what the agent may do
// without asking, relative to the workspace.
var DefaultProtected = []string{
	".freeact/permissions.json", ".freeact/permissions.toml", ".freeact/agent.json",
	".freeact/config.toml", ".freeact/sandbox-config.json",
}

// ErrConflict is the error of a revert that would overwrite changes made
// after the reverted records; Revert's force takes them back anyway.
var ErrConflict = errors.New("files changed since")

// ErrProtected is the error of a revert that would change a protected
// file without force (the user's yes to the protected-file warning).
var ErrProtected = errors.New("the revert changes protected files (" + ProtectedWarning + ")")

// step is one path of a revert: what it should become and whether it may
// be touched.
type step struct {
	pair
	cur      *File
	conflict bool
}

// plan compares the current workspace (snapshot cur, and the disk for what
// the snapshot left out) with the records.
func (s *Store) plan(records []Record, cur Hash) ([]step, Plan, error) {
	net, err := s.net(records)
	if err != nil {
		return nil, Plan{}, err
	}
	now, err := s.obj.flattenPaths(cur, net)
	if err != nil {
		return nil, Plan{}, err
	}
	root, err := beneath.Open(s.ws)
	if err != nil {
		return nil, Plan{}, fmt.Errorf("plan revert: %w", err)
	}
	defer root.Close()
	var steps []step
	var pl Plan
	for _, p := range net {
		st := step{pair: p, cur: now[p.path]}
		if st.cur == nil {
			// Left out of the snapshot (a .gitignore written since may
			// hide it) is not absent: what is on disk counts.
			st.cur = s.onDisk(root, p.path)
		}
		if same(st.cur, p.old) {
			continue // already as it was
		}
		st.conflict = !same(st.cur, p.new)
		c, isFile := s.change(pair{path: p.path, old: st.cur, new: p.old})
		switch {
		case p.old.unkept() || (p.old != nil && p.old.kind == kindFile && s.secret(p.path)):
			pl.Unrestorable = append(pl.Unrestorable, p.path)
			continue
		case p.old == nil && st.cur.unkept():
			pl.Unkept = append(pl.Unkept, Unkept{Path: p.path, Size: st.cur.Size, Secret: st.cur.kind == kindSecret})
		case !isFile && st.conflict && p.old == nil && st.cur != nil && st.cur.kind == kindDir:
			// A folder the records created that now holds other files:
			// the files are steps of their own; the folder stays.
			continue
		case isFile && st.conflict:
			pl.Conflicts = append(pl.Conflicts, c)
		case isFile:
			pl.Restore = append(pl.Restore, c)
		}
		if isFile && s.protected(p.path) {
			pl.Protected = append(pl.Protected, ProtectedChange{Change: c, Current: string(s.content(st.cur)), Restored: string(s.content(p.old))})
		}
		steps = append(steps, st)
	}
	return steps, pl, nil
}

// protected reports whether rel is a protected file.
func (s *Store) protected(rel string) bool {
	return slices.Contains(DefaultProtected, rel) || slices.Contains(s.opts.Protected, rel)
}

// onDisk describes what is at rel now, read without following links; nil
// when nothing (or a folder) is there. Its content is hashed but not kept.
func (s *Store) onDisk(root *beneath.Root, rel string) *File {
	mode, size, err := root.Lstat(rel)
	if err != nil || mode.IsDir() {
		return nil
	}
	f := &File{Path: rel, perm: uint32(mode.Perm()), Size: size}
	switch {
	case mode&fs.ModeSymlink != 0:
		target, err := root.Readlink(rel)
		if err != nil {
			return nil
		}
		f.kind, f.hash = kindSymlink, sha256.Sum256([]byte(target))
	case !mode.IsRegular():
		return nil
	case s.secret(rel):
		f.kind = kindSecret
	case size > s.opts.MaxFileBytes:
		f.kind = kindLarge
	default:
		data, err := root.ReadFile(rel, s.opts.MaxFileBytes+1)
		if err != nil {
			return nil
		}
		f.kind, f.hash = kindFile, sha256.Sum256(data)
	}
	return f
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
// empty). Files changed since are conflicts: without force they stay as
// they are and the others are reverted (the error wraps ErrConflict when
// only conflicts were left); with force they are reverted too. Protected
// files need the user's yes to their warning: without force nothing is
// changed and the error wraps ErrProtected. Files the records created
// whose content is not kept (Plan.Unkept) are deleted only when
// info.DeleteUnkept names them. Every file is reached from the workspace
// without following links (internal/beneath), so a folder swapped for a
// link meanwhile is refused, never followed. The result is nil when there
// was nothing to revert.
func (s *Store) Revert(ctx context.Context, records []Record, info Info, force bool) (*Record, Plan, error) {
	// An action running in another process would record the revert's
	// changes as its own.
	release, err := s.LockActions(ctx, nil)
	if err != nil {
		return nil, Plan{}, err
	}
	defer release()
	unlock, err := s.lockAll(ctx)
	if err != nil {
		return nil, Plan{}, err
	}
	defer unlock()
	if err := s.interrupted(); err != nil {
		return nil, Plan{}, err
	}
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
	if len(pl.Protected) > 0 && !force {
		var cs []Change
		for _, p := range pl.Protected {
			cs = append(cs, p.Change)
		}
		return nil, pl, fmt.Errorf("%w: %s (revert anyway to change them)", ErrProtected, changedPaths(cs))
	}
	steps = leaveUnkept(steps, info.DeleteUnkept)
	r, err := s.journaled(ctx, records, info, before.Root, steps)
	return r, pl, err
}

// leaveUnkept drops the steps that would delete a file whose content was
// not kept, unless del names it: such a file stays in place.
func leaveUnkept(steps []step, del []string) []step {
	kept := steps[:0:0]
	for _, st := range steps {
		if st.old == nil && st.cur.unkept() && !slices.Contains(del, st.path) {
			continue
		}
		kept = append(kept, st)
	}
	return kept
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
// created (shallowest first), then files and links written. Each path is
// reached from the workspace without following links.
func (s *Store) apply(steps []step) error {
	root, err := beneath.Open(s.ws)
	if err != nil {
		return fmt.Errorf("revert: %w", err)
	}
	defer root.Close()
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].path < steps[j].path })
	isDir := func(f *File) bool { return f != nil && f.kind == kindDir }
	var errs []error
	// Remove what should not be there (or is of another kind).
	for i := len(steps) - 1; i >= 0; i-- {
		st := steps[i]
		if st.cur == nil || isDir(st.cur) || (st.old != nil && !isDir(st.old) && st.cur.kind == st.old.kind) {
			continue
		}
		if err := root.Remove(st.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove %s: %w", st.path, err))
		}
	}
	for i := len(steps) - 1; i >= 0; i-- {
		st := steps[i]
		if isDir(st.cur) && !isDir(st.old) {
			// Only when empty: whatever else is in it stays.
			if err := root.RemoveDir(st.path); err != nil && !errors.Is(err, fs.ErrNotExist) && !isNotEmpty(err) {
				errs = append(errs, fmt.Errorf("remove folder %s: %w", st.path, err))
			}
		}
	}
	for _, st := range steps {
		if isDir(st.old) {
			if err := root.MkdirAll(st.path, fs.FileMode(st.old.perm)); err != nil {
				errs = append(errs, fmt.Errorf("create folder %s: %w", st.path, err))
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
		switch f.kind {
		case kindSymlink:
			err = root.Symlink(string(data), st.path)
		case kindFile:
			err = root.WriteFile(st.path, data, fs.FileMode(f.perm))
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("restore %s: %w", st.path, err))
		}
	}
	return errors.Join(errs...)
}

// isNotEmpty reports the error of removing a folder that holds files.
func isNotEmpty(err error) bool {
	return errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)
}
