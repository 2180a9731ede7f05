package checkpoint

import (
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Wrote notes that freeact itself wrote data to the workspace file rel
// (relative, forward slashes) while an action may be running: a rule
// saved with "Always" writes .freeact/permissions.json in the middle of
// the code action that asked for it. The record of that action (Record)
// leaves the file out while it still holds what freeact wrote: freeact's
// own write is not the action's change, and reverting the action must not
// take the rule back. A change the action made to the file itself (other
// content) is recorded as always.
func (s *Store) Wrote(rel string, data []byte) {
	rel = filepath.ToSlash(filepath.Clean(rel))
	if rel == "." || !filepath.IsLocal(rel) {
		return
	}
	s.ownMu.Lock()
	defer s.ownMu.Unlock()
	if s.own == nil {
		s.own = map[string]Hash{}
	}
	s.own[rel] = sha256.Sum256(data)
}

// takeOwn returns the files freeact wrote (Wrote) since the last record,
// and forgets them.
func (s *Store) takeOwn() map[string]Hash {
	s.ownMu.Lock()
	defer s.ownMu.Unlock()
	own := s.own
	s.own = nil
	return own
}

// withoutOwn returns the tree after with each file of own that still holds
// what freeact wrote put back as it is in before (or left out, when before
// had none): the action's record then holds only what the action changed.
func (s *Store) withoutOwn(before, after Hash, own map[string]Hash) (Hash, error) {
	paths := make([]string, 0, len(own))
	for p := range own {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		now, err := s.obj.lookup(after, p)
		if err != nil {
			return after, err
		}
		if now == nil || now.kind != kindFile || now.hash != own[p] {
			continue // gone, or changed since freeact wrote it: the action's
		}
		was, err := s.obj.lookup(before, p)
		if err != nil {
			return after, err
		}
		var e *entry
		if was != nil {
			e = &entry{kind: was.kind, perm: was.perm, size: was.Size, hash: was.hash}
		}
		if after, err = s.obj.replace(after, strings.Split(p, "/"), e); err != nil {
			return after, fmt.Errorf("leave freeact's own write of %s out of the record: %w", p, err)
		}
	}
	return after, nil
}

// replace returns the tree root with the entry at the path parts set to e
// (named after the last part), or removed when e is nil. Folders on the
// way must exist in root; a path through a file leaves root as it is.
func (o *objects) replace(root Hash, parts []string, e *entry) (Hash, error) {
	if root.IsZero() {
		return root, nil
	}
	es, err := o.tree(root)
	if err != nil {
		return root, err
	}
	name := parts[0]
	k := sort.Search(len(es), func(j int) bool { return es[j].name >= name })
	found := k < len(es) && es[k].name == name
	out := slices.Clone(es)
	switch {
	case len(parts) > 1:
		if !found || es[k].kind != kindDir {
			return root, nil
		}
		sub, err := o.replace(es[k].hash, parts[1:], e)
		if err != nil {
			return root, err
		}
		if sub == es[k].hash {
			return root, nil
		}
		out[k].hash = sub
	case e == nil && !found:
		return root, nil
	case e == nil:
		out = slices.Delete(out, k, k+1)
	case found:
		ne := *e
		ne.name = name
		out[k] = ne
	default:
		ne := *e
		ne.name = name
		out = slices.Insert(out, k, ne)
	}
	return o.putTree(out)
}
