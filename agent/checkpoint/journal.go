package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/freeact/desktop/internal/atomicfile"
	"github.com/freeact/desktop/internal/beneath"
	"github.com/freeact/desktop/internal/crashpoint"
)

// A revert is journaled: its plan is written to revert.json before the
// workspace is touched (the snapshot before it already keeps a copy of
// every file it overwrites or deletes), then applied, then recorded, and
// only then is the journal removed. A journal left by a process that died
// is an interrupted revert, which FinishRevert completes or RollbackRevert
// takes back, so that the workspace ends wholly after or wholly before it.

// ErrRevertInterrupted is the error of changing the workspace's history
// while an interrupted revert waits to be finished or rolled back.
var ErrRevertInterrupted = errors.New("a revert was interrupted")

// journal is revert.json.
type journal struct {
	ID      string        `json:"id"`
	Owner   string        `json:"owner"`
	Info    Info          `json:"info"`
	Label   string        `json:"label"`
	Reverts []string      `json:"reverts"`
	Before  Hash          `json:"-"`
	BeforeS string        `json:"before"`
	Time    time.Time     `json:"time"`
	Steps   []journalStep `json:"steps"`
}

// journalStep is one path: From as it was before the revert, To as the
// revert makes it (nil: absent).
type journalStep struct {
	Path string        `json:"path"`
	From *journalEntry `json:"from,omitempty"`
	To   *journalEntry `json:"to,omitempty"`
}

type journalEntry struct {
	Kind byte   `json:"kind"`
	Perm uint32 `json:"perm"`
	Size int64  `json:"size"`
	H    string `json:"hash"`
}

func toEntry(f *File) *journalEntry {
	if f == nil {
		return nil
	}
	return &journalEntry{Kind: f.kind, Perm: f.perm, Size: f.Size, H: f.hash.String()}
}

func (e *journalEntry) file(path string) (*File, error) {
	if e == nil {
		return nil, nil
	}
	h, err := ParseHash(e.H)
	if err != nil {
		return nil, err
	}
	return &File{Path: path, kind: e.Kind, perm: e.Perm, Size: e.Size, hash: h}, nil
}

func (s *Store) journalPath() string { return filepath.Join(s.dir, "revert.json") }

// writeJournal saves j durably.
func (s *Store) writeJournal(j *journal) error {
	j.BeforeS = j.Before.String()
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(s.journalPath(), data, 0o600); err != nil {
		return fmt.Errorf("save the revert's plan: %w", err)
	}
	return nil
}

// readJournal returns the journal; nil when there is none.
func (s *Store) readJournal() (*journal, error) {
	data, err := os.ReadFile(s.journalPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the journal of an interrupted revert: %w", err)
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("read the journal of an interrupted revert %s: %w", s.journalPath(), err)
	}
	if j.Before, err = ParseHash(j.BeforeS); err != nil {
		return nil, fmt.Errorf("read the journal of an interrupted revert: %w", err)
	}
	return &j, nil
}

// Interrupted describes a revert that did not finish.
type Interrupted struct {
	ID    string
	Label string
	Time  time.Time
	// Files counts the paths it was changing.
	Files int
}

// InterruptedRevert returns the revert a process left unfinished when it
// died (or failed to roll back after an error); nil when there is none
// or it is still running in another process.
func (s *Store) InterruptedRevert() (*Interrupted, error) {
	j, err := s.readJournal()
	if j == nil || err != nil {
		return nil, err
	}
	if j.Owner != s.owner && s.alive(j.Owner) {
		return nil, nil
	}
	if s.recorded(j.ID) {
		// It was recorded, only its journal was left: it is done.
		return nil, s.RollbackRevert(context.Background())
	}
	return &Interrupted{ID: j.ID, Label: j.Label, Time: j.Time, Files: len(j.Steps)}, nil
}

// interrupted returns the error of acting while a journal waits; the
// caller holds the locks.
func (s *Store) interrupted() error {
	j, err := s.readJournal()
	if err != nil {
		return err
	}
	if j == nil {
		return nil
	}
	return fmt.Errorf("%w (%s): finish it or roll it back first (`freeact checkpoints list` offers both)", ErrRevertInterrupted, j.Label)
}

// takeJournal reads the journal of an interrupted revert for recovery; the
// caller holds the locks.
func (s *Store) takeJournal() (*journal, error) {
	j, err := s.readJournal()
	if err != nil {
		return nil, err
	}
	if j == nil {
		return nil, errors.New("no revert was interrupted")
	}
	if j.Owner != s.owner && s.alive(j.Owner) {
		return nil, errors.New("the revert is still running in another freeact process")
	}
	return j, nil
}

// recorded reports whether the revert id has its record.
func (s *Store) recorded(id string) bool {
	all, _ := s.records.all()
	for _, r := range all {
		if r.ID == id {
			return true
		}
	}
	return false
}

// journaled runs a revert's steps from the workspace before (a snapshot
// holding every file they overwrite or delete): plan written, steps
// applied, revert recorded, plan removed. A failure halfway is rolled
// back. The caller holds the locks. The result is nil when there was
// nothing to do.
func (s *Store) journaled(ctx context.Context, records []Record, info Info, before Hash, steps []step) (*Record, error) {
	if len(steps) == 0 {
		return nil, nil
	}
	j := &journal{ID: newID(), Owner: s.owner, Info: info, Label: info.Label, Before: before, Time: time.Now().UTC()}
	if j.Label == "" {
		j.Label = revertLabel(records)
	}
	for _, x := range records {
		j.Reverts = append(j.Reverts, x.ID)
	}
	for _, st := range steps {
		j.Steps = append(j.Steps, journalStep{Path: st.path, From: toEntry(st.cur), To: toEntry(st.old)})
	}
	if err := s.writeJournal(j); err != nil {
		return nil, err
	}
	crashpoint.Hit("revert.journal")
	if err := s.applySteps(steps); err != nil {
		// Half a revert is worse than none: put back what it changed.
		if rerr := s.rollback(context.WithoutCancel(ctx), j); rerr != nil {
			return nil, fmt.Errorf("the revert failed halfway (%w) and could not be rolled back (%v): "+
				"the next start offers to finish it or roll it back", err, rerr)
		}
		return nil, fmt.Errorf("the revert failed, so the files were put back as they were: %w", err)
	}
	return s.recordJournal(ctx, j)
}

// applySteps changes the workspace as the steps say (apply, in revert.go,
// owns how files are reached).
func (s *Store) applySteps(steps []step) error { return s.apply(steps) }

// FinishRevert completes an interrupted revert: every path it was
// changing is put as the revert makes it, and the revert is recorded
// (from the workspace before it, so its Undo restores all it changed).
func (s *Store) FinishRevert(ctx context.Context) (*Record, error) {
	unlock, err := s.lockAll(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	j, err := s.takeJournal()
	if err != nil {
		return nil, err
	}
	if s.recorded(j.ID) {
		return s.recordJournal(ctx, j) // done: only its journal was left
	}
	if err := s.applyJournal(ctx, j, func(st journalStep) *journalEntry { return st.To }); err != nil {
		return nil, fmt.Errorf("finish the interrupted revert: %w", err)
	}
	return s.recordJournal(ctx, j)
}

// RollbackRevert takes an interrupted revert back: every path it was
// changing is put as it was before it, and nothing is recorded.
func (s *Store) RollbackRevert(ctx context.Context) error {
	unlock, err := s.lockAll(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	j, err := s.takeJournal()
	if err != nil {
		return err
	}
	if s.recorded(j.ID) {
		return s.removeJournal() // done: only its journal was left
	}
	return s.rollback(ctx, j)
}

// rollback puts the journal's paths back as they were and removes it; the
// caller holds the locks.
func (s *Store) rollback(ctx context.Context, j *journal) error {
	if err := s.applyJournal(ctx, j, func(st journalStep) *journalEntry { return st.From }); err != nil {
		return fmt.Errorf("roll back the interrupted revert: %w", err)
	}
	if _, err := s.snapshot(ctx); err != nil {
		return err
	}
	return s.removeJournal()
}

// applyJournal makes each of the journal's paths what pick says, from
// where they are now.
func (s *Store) applyJournal(ctx context.Context, j *journal, pick func(journalStep) *journalEntry) error {
	now, err := s.snapshot(ctx)
	if err != nil {
		return err
	}
	root, err := beneath.Open(s.ws)
	if err != nil {
		return fmt.Errorf("open the workspace: %w", err)
	}
	defer root.Close()
	var steps []step
	for _, js := range j.Steps {
		// What a write cut short left; never through a link swapped in.
		_ = root.RemoveTemps(js.Path)
		want, err := pick(js).file(js.Path)
		if err != nil {
			return err
		}
		if want != nil && want.kind != kindDir && !s.obj.has(want.hash) {
			continue // its content was not kept (large, say): the revert never touched it
		}
		cur, err := s.obj.lookup(now.Root, js.Path)
		if err != nil {
			return err
		}
		if same(cur, want) {
			continue
		}
		steps = append(steps, step{pair: pair{path: js.Path, old: want}, cur: cur})
	}
	return s.applySteps(steps)
}

// recordJournal records the revert the journal describes, as the
// workspace is now, and removes the journal. A record already written (the
// process died before removing the journal) is not written again.
func (s *Store) recordJournal(ctx context.Context, j *journal) (*Record, error) {
	after, err := s.snapshot(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	all, err := s.records.all()
	if err != nil {
		return nil, err
	}
	for _, r := range all {
		if r.ID == j.ID { // the process died before removing the journal
			return &r, s.removeJournal()
		}
	}
	// The record's before is the workspace now with the journal's paths as
	// they were before the revert: files changed by anyone else since it
	// began (after a crash, before it was finished) are no part of it, so
	// its Undo never takes them back.
	set := map[string]*File{}
	for _, st := range j.Steps {
		f, err := st.From.file(st.Path)
		if err != nil {
			return nil, err
		}
		set[st.Path] = f
	}
	before, err := s.obj.edit(after.Root, set)
	if err != nil {
		return nil, fmt.Errorf("record the revert: %w", err)
	}
	if after.Root == before {
		return nil, s.removeJournal()
	}
	changes, err := s.changes(before, after.Root)
	if err != nil {
		return nil, err
	}
	r := Record{
		ID: j.ID, Kind: KindRevert, Session: j.Info.Session, Agent: j.Info.Agent, Turn: j.Info.Turn,
		Label: j.Label, Reverts: j.Reverts, Before: before, After: after.Root, Time: time.Now().UTC(), Changes: changes,
	}
	if err := s.records.add(r); err != nil {
		return nil, err
	}
	crashpoint.Hit("revert.recorded")
	return &r, s.removeJournal()
}

func (s *Store) removeJournal() error {
	if err := os.Remove(s.journalPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the revert's journal: %w", err)
	}
	return nil
}

// edit returns the tree root with each path of set made what set says
// (nil: absent). Folders a path needs are made (0755) and folders left
// empty by removals stay. A folder entry in set keeps the folder's
// current content, only its mode changes: its children are set one by
// one.
func (o *objects) edit(root Hash, set map[string]*File) (Hash, error) {
	here := map[string]*File{}
	below := map[string]map[string]*File{}
	for p, f := range set {
		first, rest, deeper := strings.Cut(p, "/")
		if !deeper {
			here[first] = f
			continue
		}
		if below[first] == nil {
			below[first] = map[string]*File{}
		}
		below[first][rest] = f
	}
	var es []entry
	if !root.IsZero() {
		old, err := o.tree(root)
		if err != nil {
			return Hash{}, err
		}
		es = slices.Clone(old)
	}
	find := func(name string) int {
		return slices.IndexFunc(es, func(e entry) bool { return e.name == name })
	}
	// put sets the entry of e's name.
	put := func(e entry) {
		if k := find(e.name); k >= 0 {
			es[k] = e
		} else {
			es = append(es, e)
		}
	}
	for name, f := range here {
		k := find(name)
		switch {
		case f == nil:
			if k >= 0 {
				es = slices.Delete(es, k, k+1)
			}
		case f.kind == kindDir && k >= 0 && es[k].kind == kindDir:
			es[k].perm = f.perm
		case f.kind == kindDir:
			empty, err := o.putTree(nil)
			if err != nil {
				return Hash{}, err
			}
			put(entry{name: name, kind: kindDir, perm: f.perm, hash: empty})
		default:
			put(entry{name: name, kind: f.kind, perm: f.perm, size: f.Size, hash: f.hash})
		}
	}
	for name, sub := range below {
		k := find(name)
		var h Hash
		if k >= 0 && es[k].kind == kindDir {
			h = es[k].hash
		}
		nh, err := o.edit(h, sub)
		if err != nil {
			return Hash{}, err
		}
		if k >= 0 && es[k].kind == kindDir {
			es[k].hash = nh
			continue
		}
		for _, f := range sub {
			if f != nil { // something to hold: the folder is made
				put(entry{name: name, kind: kindDir, perm: 0o755, hash: nh})
				break
			}
		}
	}
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	return o.putTree(es)
}
