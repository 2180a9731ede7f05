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
	"strings"
	"sync"
	"time"

	"github.com/freeact/desktop/internal/atomicfile"
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
}

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
		var rs []Record
		for _, line := range bytes.Split(data, []byte("\n")) {
			var r Record
			if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &r) != nil {
				continue // a line cut by a crash
			}
			rs = append(rs, r)
		}
		l.size, l.records = int64(len(data)), rs
	}
	return append([]Record(nil), l.records...), nil
}

// add appends a record; the caller holds the store's file lock.
func (l *recordLog) add(r Record) error {
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("save checkpoint record: %w", err)
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("save checkpoint record: %w", err)
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("save checkpoint record: %w", err)
	}
	return nil
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

// Record saves the change from before to after as a record of the action
// info. An action that changed nothing is not recorded: the result is nil.
func (s *Store) Record(ctx context.Context, info Info, before, after Snapshot) (*Record, error) {
	if before.Root == after.Root {
		return nil, nil
	}
	changes, err := s.changes(before.Root, after.Root)
	if err != nil {
		return nil, err
	}
	if len(changes) == 0 {
		return nil, nil // only folders changed
	}
	r := Record{
		ID: newID(), Kind: KindAction, Session: info.Session, Agent: info.Agent, TurnID: info.TurnID, Turn: info.Turn,
		Prompt: oneLine(info.Prompt, 120), Call: info.Call, Tool: info.Tool, Label: oneLine(info.Label, 120),
		Before: before.Root, After: after.Root, Time: time.Now().UTC(), Changes: changes,
	}
	unlock, err := s.lock.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := s.records.add(r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Records returns every record, oldest first.
func (s *Store) Records() ([]Record, error) { return s.records.all() }

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
