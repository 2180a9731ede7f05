package checkpoint

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/freeact/desktop/internal/atomicfile"
	"github.com/freeact/desktop/internal/crashpoint"
)

// Kinds of records.
const (
	KindAction = "action" // a code action or file tool call
	KindRevert = "revert" // the user took records back
)

// Record is one recorded change of the workspace: a code action, a file
// write or edit, or a revert.
type Record struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// Session, Agent, TurnID, Turn (the prompt's number in the session,
	// from 1) and Prompt (shortened) say where an action ran.
	Session string `json:"session,omitempty"`
	Agent   string `json:"agent,omitempty"`
	TurnID  string `json:"turn_id,omitempty"`
	Turn    int    `json:"turn,omitempty"`
	Prompt  string `json:"prompt,omitempty"`
	// Call and Tool are the tool call's id and name.
	Call string `json:"call,omitempty"`
	Tool string `json:"tool,omitempty"`
	// Label says what happened, in one line.
	Label string `json:"label"`
	// Reverts lists the records a revert took back.
	Reverts []string  `json:"reverts,omitempty"`
	Before  Hash      `json:"-"`
	After   Hash      `json:"-"`
	Time    time.Time `json:"time"`
	Changes []Change  `json:"changes"`
	// State is "" for a complete record. A record is written "pending"
	// before its action runs (with only Before) and written again, under
	// the same id, complete or "void" (the action changed nothing) after.
	// Owner names the process that wrote a pending record, so that the
	// next start knows it died (see Recover).
	State string `json:"state,omitempty"`
	Owner string `json:"owner,omitempty"`
	// Late: the process died during the action, so After was taken at the
	// next start and may hold later changes too.
	Late bool `json:"late,omitempty"`
}

// Record states.
const (
	statePending = "pending"
	stateVoid    = "void"
)

// Change is one file a record changed.
type Change struct {
	Path string `json:"path"`
	// Status is "added", "modified" or "deleted".
	Status string `json:"status"`
	// Binary files have no line diff; Large ones (above MaxFileBytes) were
	// not kept, so they cannot be restored.
	Binary bool `json:"binary,omitempty"`
	Large  bool `json:"large,omitempty"`
	// Secret files (.env, and what the read-protection rules name) are
	// recorded as present, but their content is never kept.
	Secret bool `json:"secret,omitempty"`
	// Added and Removed count lines of text files.
	Added   int `json:"added"`
	Removed int `json:"removed"`
}

// Change statuses.
const (
	Added    = "added"
	Modified = "modified"
	Deleted  = "deleted"
)

// MarshalJSON writes the snapshots as hex.
func (r Record) MarshalJSON() ([]byte, error) {
	type plain Record
	return json.Marshal(struct {
		plain
		Before string `json:"before"`
		After  string `json:"after"`
	}{plain(r), r.Before.String(), r.After.String()})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Record) UnmarshalJSON(data []byte) error {
	type plain Record
	var w struct {
		plain
		Before string `json:"before"`
		After  string `json:"after"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = Record(w.plain)
	var err error
	if r.Before, err = ParseHash(w.Before); err != nil {
		return err
	}
	r.After, err = ParseHash(w.After)
	return err
}

// recordLog is records.jsonl, read again when another process appended.
type recordLog struct {
	path string

	mu      sync.Mutex
	size    int64
	records []Record
}

// all returns every record, oldest first.
func (l *recordLog) all() ([]Record, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st, err := os.Stat(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		l.size, l.records = 0, nil
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read checkpoint records: %w", err)
	}
	if st.Size() != l.size {
		data, err := os.ReadFile(l.path)
		if err != nil {
			return nil, fmt.Errorf("read checkpoint records: %w", err)
		}
		l.size, l.records = int64(len(data)), foldRecords(data)
	}
	return append([]Record(nil), l.records...), nil
}

// foldRecords reads the lines of records.jsonl: a later line of an id
// replaces the earlier one in its place, and a void one removes it.
func foldRecords(data []byte) []Record {
	var rs []Record
	at := map[string]int{}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var r Record
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &r) != nil {
			continue // a line cut by a crash
		}
		if i, ok := at[r.ID]; ok {
			rs[i] = r
			continue
		}
		at[r.ID] = len(rs)
		rs = append(rs, r)
	}
	out := rs[:0]
	for _, r := range rs {
		if r.State != stateVoid {
			out = append(out, r)
		}
	}
	return out
}

// add appends a record; the caller holds the store's file lock.
func (l *recordLog) add(r Record) error {
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("save checkpoint record: %w", err)
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("save checkpoint record: %w", err)
	}
	line = append(line, '\n')
	if endsTorn(f) {
		// A line a crash cut stays a bad line of its own (all skips it)
		// instead of swallowing this one.
		line = append([]byte{'\n'}, line...)
	}
	if cut := crashpoint.Tear("checkpoint.record", line); cut != nil {
		_, _ = f.Write(cut)
		crashpoint.Die()
	}
	_, err = f.Write(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("save checkpoint record: %w", err)
	}
	return nil
}

// endsTorn reports whether f's last byte is not a newline.
func endsTorn(f *os.File) bool {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false
	}
	var b [1]byte
	_, err = f.ReadAt(b[:], st.Size()-1)
	return err == nil && b[0] != '\n'
}

// rewrite replaces the log with rs (after pruning).
func (l *recordLog) rewrite(rs []Record) error {
	var b bytes.Buffer
	for _, r := range rs {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return atomicfile.Write(l.path, b.Bytes(), 0o600)
}

func newID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Info says what an action was, for its record.
type Info struct {
	Session, Agent, TurnID string
	Turn                   int
	Prompt                 string
	Call, Tool, Label      string
	// DeleteUnkept, for Revert: the files of Plan.Unkept the user ticked
	// for deletion; the others are left in place.
	DeleteUnkept []string
}

// Begin writes the pending record of an action about to run, from the
// snapshot before it, and returns its id for Record. Whatever happens to
// the process during the action, the next start finds it (Recover).
func (s *Store) Begin(ctx context.Context, info Info, before Snapshot) (string, error) {
	r := s.newRecord(info)
	r.State, r.Owner, r.Before = statePending, s.owner, before.Root
	unlock, err := s.lock.lock(ctx)
	if err != nil {
		return "", err
	}
	defer unlock()
	if err := s.records.add(r); err != nil {
		return "", err
	}
	crashpoint.Hit("checkpoint.begun")
	return r.ID, nil
}

func (s *Store) newRecord(info Info) Record {
	return Record{
		ID: newID(), Kind: KindAction, Session: info.Session, Agent: info.Agent, TurnID: info.TurnID, Turn: info.Turn,
		Prompt: oneLine(info.Prompt, 120), Call: info.Call, Tool: info.Tool, Label: oneLine(info.Label, 120),
		Time: time.Now().UTC(),
	}
}

// Record saves the change from before to after as a record of the action
// info, completing the pending record of Begin when pending names one. An
// action that changed nothing is not recorded: the result is nil. Files
// freeact itself wrote meanwhile (Wrote) are not the action's changes.
func (s *Store) Record(ctx context.Context, pending string, info Info, before, after Snapshot) (*Record, error) {
	if own := s.takeOwn(); len(own) > 0 {
		root, err := s.withoutOwn(before.Root, after.Root, own)
		if err != nil {
			return nil, err
		}
		after.Root = root
	}
	var changes []Change
	if before.Root != after.Root {
		var err error
		if changes, err = s.changes(before.Root, after.Root); err != nil {
			return nil, err
		}
	}
	r := s.newRecord(info)
	if pending != "" {
		r.ID = pending
	}
	r.Before, r.After, r.Changes = before.Root, after.Root, changes
	if len(changes) == 0 { // nothing, or only folders, changed
		if pending == "" {
			return nil, nil
		}
		r.State = stateVoid
	}
	unlock, err := s.lock.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	crashpoint.Hit("checkpoint.completing")
	if err := s.records.add(r); err != nil {
		return nil, err
	}
	if r.State == stateVoid {
		return nil, nil
	}
	return &r, nil
}

// Recover finishes what processes that died left of this store: an
// action's pending record gets its after-snapshot now (marked Late), so
// that what the action changed can be reviewed and reverted. It returns
// the records it completed. An interrupted revert is left to
// InterruptedRevert.
func (s *Store) Recover(ctx context.Context) ([]Record, error) {
	all, err := s.records.all()
	if err != nil {
		return nil, err
	}
	s.removeDeadOwners(all)
	if !s.anyDead(all) {
		return nil, nil
	}
	unlock, err := s.lockAll(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if all, err = s.records.all(); err != nil { // another process may have recovered them
		return nil, err
	}
	var now *Snapshot
	var done []Record
	for _, r := range all {
		if r.State != statePending || s.alive(r.Owner) {
			continue
		}
		if now == nil {
			snap, err := s.snapshot(ctx)
			if err != nil {
				return done, fmt.Errorf("finish the record of an interrupted action: %w", err)
			}
			now = &snap
		}
		changes, err := s.changes(r.Before, now.Root)
		if err != nil {
			return done, err
		}
		r.State, r.Owner, r.Late, r.After, r.Changes = "", "", true, now.Root, changes
		if len(changes) == 0 {
			r.State = stateVoid
		}
		if err := s.records.add(r); err != nil {
			return done, err
		}
		if r.State == "" {
			done = append(done, r)
		}
	}
	return done, nil
}

// removeDeadOwners removes the owner files of processes that died with
// nothing left to finish. A file younger than a minute is left alone: its
// process may not have locked it yet.
func (s *Store) removeDeadOwners(all []Record) {
	needed := map[string]bool{}
	for _, r := range all {
		if r.State == statePending {
			needed[r.Owner] = true
		}
	}
	if j, _ := s.readJournal(); j != nil {
		needed[j.Owner] = true
	}
	dir := filepath.Join(s.dir, "owners")
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || needed[e.Name()] || time.Since(info.ModTime()) < time.Minute || s.alive(e.Name()) {
			continue
		}
		_ = os.Remove(filepath.Join(dir, e.Name()))
	}
}

func (s *Store) anyDead(all []Record) bool {
	for _, r := range all {
		if r.State == statePending && !s.alive(r.Owner) {
			return true
		}
	}
	return false
}

// alive reports whether the process that owns id still has the store
// open.
func (s *Store) alive(id string) bool {
	return id == s.owner || (id != "" && checkName(id) && ownerAlive(filepath.Join(s.dir, "owners", id)))
}

// checkName reports whether an owner id from a file is a plain name.
func checkName(id string) bool { return !strings.ContainsAny(id, `/\.`) && len(id) <= 64 }

// Pending returns the actions running now, in this process or another.
func (s *Store) Pending() ([]Record, error) {
	all, err := s.records.all()
	var out []Record
	for _, r := range all {
		if r.State == statePending {
			out = append(out, r)
		}
	}
	return out, err
}

// Records returns every complete record, oldest first.
func (s *Store) Records() ([]Record, error) {
	all, err := s.records.all()
	out := all[:0]
	for _, r := range all {
		if r.State == "" {
			out = append(out, r)
		}
	}
	return out, err
}

// Find returns the records an id names: a record's id, or a turn's id (all
// the records of that turn).
func (s *Store) Find(id string) ([]Record, error) {
	all, err := s.Records()
	if err != nil {
		return nil, err
	}
	var out []Record
	for _, r := range all {
		if r.ID == id || (r.TurnID != "" && r.TurnID == id) {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no checkpoint %q: `freeact checkpoints list` shows the ids", id)
	}
	return out, nil
}

// oneLine returns the first line of s, cut to n characters.
func oneLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

// SetMaxFileBytes changes the size above which files are not kept, from
// the next snapshot on.
func (s *Store) SetMaxFileBytes(n int64) {
	if n <= 0 {
		return
	}
	s.mu.Lock()
	s.opts.MaxFileBytes = n
	s.mu.Unlock()
}

// RevertedBy maps each record that is reverted now to the revert that did
// it: a revert counts unless it was reverted itself.
func RevertedBy(rs []Record) map[string]string {
	by := map[string]string{}
	// Newest first: a revert's own state is known before what it reverts.
	for i := len(rs) - 1; i >= 0; i-- {
		r := rs[i]
		if r.Kind != KindRevert || by[r.ID] != "" {
			continue
		}
		for _, id := range r.Reverts {
			if by[id] == "" {
				by[id] = r.ID
			}
		}
	}
	return by
}

// LastTurn returns the id of the latest turn (of session, or of any when
// session is "") with changes not reverted; "" when there is none.
func LastTurn(rs []Record, session string) string {
	reverted := RevertedBy(rs)
	for i := len(rs) - 1; i >= 0; i-- {
		r := rs[i]
		if r.Kind == KindAction && r.TurnID != "" && reverted[r.ID] == "" && (session == "" || r.Session == session) {
			return r.TurnID
		}
	}
	return ""
}
