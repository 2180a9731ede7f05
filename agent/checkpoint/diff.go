package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
)

// pair is one path that differs between two snapshots: its entry on each
// side, nil where it does not exist.
type pair struct {
	path     string
	old, new *File
}

// diffTrees lists the paths that differ between trees a and b, folders
// included, in path order; equal subtrees are skipped by their hash.
func (o *objects) diffTrees(prefix string, a, b Hash, out *[]pair) error {
	if a == b {
		return nil
	}
	var ea, eb []entry
	var err error
	if !a.IsZero() {
		if ea, err = o.tree(a); err != nil {
			return err
		}
	}
	if !b.IsZero() {
		if eb, err = o.tree(b); err != nil {
			return err
		}
	}
	file := func(e entry) *File {
		return &File{Path: prefix + e.name, kind: e.kind, perm: e.perm, Size: e.size, hash: e.hash}
	}
	i, j := 0, 0
	for i < len(ea) || j < len(eb) {
		switch {
		case j >= len(eb) || (i < len(ea) && ea[i].name < eb[j].name):
			if err := o.sideOnly(prefix, ea[i], true, out); err != nil {
				return err
			}
			i++
		case i >= len(ea) || eb[j].name < ea[i].name:
			if err := o.sideOnly(prefix, eb[j], false, out); err != nil {
				return err
			}
			j++
		default:
			x, y := ea[i], eb[j]
			i++
			j++
			switch {
			case x.kind == kindDir && y.kind == kindDir:
				if x.perm != y.perm {
					*out = append(*out, pair{path: prefix + x.name, old: file(x), new: file(y)})
				}
				if err := o.diffTrees(prefix+x.name+"/", x.hash, y.hash, out); err != nil {
					return err
				}
			case x.kind == kindDir || y.kind == kindDir:
				// A folder became a file or the other way round.
				if err := o.sideOnly(prefix, x, true, out); err != nil {
					return err
				}
				if err := o.sideOnly(prefix, y, false, out); err != nil {
					return err
				}
			case x.hash != y.hash || x.perm != y.perm || x.kind != y.kind:
				*out = append(*out, pair{path: prefix + x.name, old: file(x), new: file(y)})
			}
		}
	}
	return nil
}

// sideOnly lists an entry (and, for a folder, all below it) that exists on
// one side only.
func (o *objects) sideOnly(prefix string, e entry, old bool, out *[]pair) error {
	f := &File{Path: prefix + e.name, kind: e.kind, perm: e.perm, Size: e.size, hash: e.hash}
	p := pair{path: f.Path}
	if old {
		p.old = f
	} else {
		p.new = f
	}
	*out = append(*out, p)
	if e.kind != kindDir {
		return nil
	}
	if old {
		return o.diffTrees(f.Path+"/", e.hash, Hash{}, out)
	}
	return o.diffTrees(f.Path+"/", Hash{}, e.hash, out)
}

// mergePairs puts pairs for the same path together (a folder replaced by a
// file appears twice).
func mergePairs(ps []pair) []pair {
	byPath := map[string]*pair{}
	var order []string
	for _, p := range ps {
		q, ok := byPath[p.path]
		if !ok {
			p := p
			byPath[p.path] = &p
			order = append(order, p.path)
			continue
		}
		if p.old != nil {
			q.old = p.old
		}
		if p.new != nil {
			q.new = p.new
		}
	}
	sort.Strings(order)
	out := make([]pair, len(order))
	for i, path := range order {
		out[i] = *byPath[path]
	}
	return out
}

// maxDiffBytes bounds the files whose lines are compared.
const maxDiffBytes = 1 << 20

// changes lists the files that differ between two snapshots, with line
// counts.
func (s *Store) changes(a, b Hash) ([]Change, error) {
	var ps []pair
	if err := s.obj.diffTrees("", a, b, &ps); err != nil {
		return nil, err
	}
	var out []Change
	for _, p := range mergePairs(ps) {
		c, ok := s.change(p)
		if !ok {
			continue
		}
		if !c.Binary && !c.Large && !c.Secret {
			old, new := s.content(p.old), s.content(p.new)
			if len(old) <= maxDiffBytes && len(new) <= maxDiffBytes {
				c.Added, c.Removed = countLines(string(old), string(new))
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// change describes a pair as a file change; ok is false for folders.
func (s *Store) change(p pair) (Change, bool) {
	isFile := func(f *File) bool { return f != nil && f.kind != kindDir }
	c := Change{Path: p.path}
	switch {
	case isFile(p.old) && isFile(p.new):
		c.Status = Modified
	case isFile(p.new):
		c.Status = Added
	case isFile(p.old):
		c.Status = Deleted
	default:
		return c, false
	}
	for _, f := range []*File{p.old, p.new} {
		if !isFile(f) {
			continue
		}
		if f.unkept() {
			c.Large = c.Large || f.kind == kindLarge
			c.Secret = c.Secret || f.kind == kindSecret
		} else if f.kind == kindFile && isBinary(s.content(f)) {
			c.Binary = true
		}
	}
	return c, true
}

// content returns a file's kept content, or nil.
func (s *Store) content(f *File) []byte {
	if f == nil || (f.kind != kindFile && f.kind != kindSymlink) {
		return nil
	}
	data, err := s.obj.get(f.hash)
	if err != nil {
		return nil
	}
	return data
}

// isBinary reports content that is not text: a NUL byte in its first 8000
// bytes, as git decides, or invalid UTF-8.
func isBinary(data []byte) bool {
	head := data[:min(len(data), 8000)]
	return bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(data[:min(len(data), maxDiffBytes)])
}

func countLines(old, new string) (added, removed int) {
	u, err := udiff.ToUnifiedDiff("a", "b", old, udiff.Lines(old, new), 0)
	if err != nil {
		return 0, 0
	}
	for _, h := range u.Hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Insert:
				added++
			case udiff.Delete:
				removed++
			}
		}
	}
	return added, removed
}

// FileDiff is one changed file with its unified diff.
type FileDiff struct {
	Change
	// Diff is the unified diff of a text file ("" for binary and large
	// files, and for text files above 1 MiB, which set TooLarge).
	Diff     string `json:"diff"`
	TooLarge bool   `json:"too_large,omitempty"`
}

// Diff returns the files the records changed, each from its state before
// the first record that touched it to its state after the last one, with
// unified diffs. Records are taken in time order.
func (s *Store) Diff(ctx context.Context, records []Record) ([]FileDiff, error) {
	net, err := s.net(records)
	if err != nil {
		return nil, err
	}
	var out []FileDiff
	for _, p := range net {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		c, ok := s.change(p)
		if !ok {
			continue
		}
		d := FileDiff{Change: c}
		if !c.Binary && !c.Large && !c.Secret {
			old, new := s.content(p.old), s.content(p.new)
			if len(old) > maxDiffBytes || len(new) > maxDiffBytes {
				d.TooLarge = true
			} else {
				oldName, newName := "a/"+p.path, "b/"+p.path
				if p.old == nil {
					oldName = "/dev/null"
				}
				if p.new == nil {
					newName = "/dev/null"
				}
				text, err := udiff.ToUnified(oldName, newName, string(old), udiff.Lines(string(old), string(new)), 3)
				if err != nil {
					return nil, fmt.Errorf("diff %s: %w", p.path, err)
				}
				d.Diff = text
				d.Added, d.Removed = countDiffLines(text)
			}
		}
		out = append(out, d)
	}
	return out, nil
}

func countDiffLines(text string) (added, removed int) {
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

// net returns, for every path the records changed, its entry before the
// first record that changed it and after the last one, in path order.
func (s *Store) net(records []Record) ([]pair, error) {
	rs := append([]Record(nil), records...)
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Time.Before(rs[j].Time) })
	byPath := map[string]*pair{}
	for _, r := range rs {
		var ps []pair
		if err := s.obj.diffTrees("", r.Before, r.After, &ps); err != nil {
			return nil, err
		}
		for _, p := range mergePairs(ps) {
			if q, ok := byPath[p.path]; ok {
				q.new = p.new
				continue
			}
			p := p
			byPath[p.path] = &p
		}
	}
	out := make([]pair, 0, len(byPath))
	for _, path := range slices.Sorted(maps.Keys(byPath)) {
		p := byPath[path]
		if same(p.old, p.new) {
			continue // changed and changed back
		}
		out = append(out, *p)
	}
	return out, nil
}

// same reports whether two entries hold the same thing (both missing, or
// of the same kind, content and permissions; folders by existence).
func same(a, b *File) bool {
	switch {
	case a == nil || b == nil:
		return a == b
	case a.kind != b.kind || a.perm != b.perm:
		return false
	case a.kind == kindDir:
		return true
	}
	return a.hash == b.hash
}
