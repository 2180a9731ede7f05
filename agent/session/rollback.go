package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/freeact/desktop/internal/atomicfile"
)

// Mark is a point in an agent's file that Rollback returns to.
type Mark struct {
	size    int64
	existed bool
}

// Mark returns the current end of the agent's file, for Rollback. A
// partial last line left by a crash is repaired first, as on an append.
// A missing file is not created.
func (s *Store[M]) Mark(agentID string) (Mark, error) {
	if err := checkName("agent id", agentID); err != nil {
		return Mark{}, fmt.Errorf("mark session %s: %w", s.id, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := os.Stat(s.File(agentID)); errors.Is(err, fs.ErrNotExist) && s.files[agentID] == nil {
		return Mark{}, nil
	}
	f, err := s.open(agentID)
	if err != nil {
		return Mark{}, fmt.Errorf("mark session %s: %w", s.id, err)
	}
	end, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return Mark{}, fmt.Errorf("mark %s: %w", f.Name(), err)
	}
	return Mark{size: end, existed: true}, nil
}

// Rollback takes the agent's file back to m, synced: what was appended
// since is gone, and a file that did not exist at m is removed. The file
// keeps its format. The agent's compactions that cover messages taken out
// go too, and are returned (their summarising calls were paid for: see
// AppendSpent). It is how a failed turn leaves no trace in the session,
// so that resuming it gives the history the agent had.
func (s *Store[M]) Rollback(agentID string, m Mark) ([]Compaction, error) {
	if err := checkName("agent id", agentID); err != nil {
		return nil, fmt.Errorf("roll back session %s: %w", s.id, err)
	}
	if err := s.truncate(agentID, m); err != nil {
		return nil, err
	}
	kept, err := s.Load(agentID)
	if err != nil {
		return nil, fmt.Errorf("roll back session %s: %w", s.id, err)
	}
	dropped, err := s.dropCompactions(agentID, len(kept))
	if err != nil {
		return nil, fmt.Errorf("roll back session %s: %w", s.id, err)
	}
	return dropped, nil
}

// truncate cuts the agent's file back to m, or removes it.
func (s *Store[M]) truncate(agentID string, m Mark) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := s.File(agentID)
	if !m.existed {
		if f := s.files[agentID]; f != nil {
			f.Close()
			delete(s.files, agentID)
		}
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("roll back %s: %w", name, err)
		}
		if agentID == MainAgent {
			s.summary = nil
			_ = os.Remove(filepath.Join(s.dir, summaryFile))
		}
		return nil
	}
	f, err := s.open(agentID)
	if err != nil {
		return fmt.Errorf("roll back session %s: %w", s.id, err)
	}
	if err := f.Truncate(m.size); err != nil {
		return fmt.Errorf("roll back %s: %w", name, err)
	}
	if _, err := f.Seek(m.size, io.SeekStart); err != nil {
		return fmt.Errorf("roll back %s: %w", name, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("roll back %s: %w", name, err)
	}
	if agentID == MainAgent {
		// The cache no longer matches the file: count again.
		if s.summary, err = loadSummary(s.dir, name); err == nil {
			_ = s.summary.save(s.dir)
		}
	}
	return nil
}

// dropCompactions removes the agent's compactions that cover more than
// its first n messages, and returns them.
func (s *Store[M]) dropCompactions(agentID string, n int) ([]Compaction, error) {
	name := s.compactionsFile(agentID)
	all, err := readCompactions(name)
	if err != nil {
		return nil, err
	}
	var kept, dropped []Compaction
	var data []byte
	for _, c := range all {
		if c.Upto > n {
			dropped = append(dropped, c)
			continue
		}
		kept = append(kept, c)
		line, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		data = append(append(data, line...), '\n')
	}
	switch {
	case len(dropped) == 0:
	case len(kept) == 0:
		err = os.Remove(name)
	default:
		err = atomicfile.Write(name, data, 0o644)
	}
	return dropped, err
}

// Spent is what model calls cost whose messages (or compactions) a
// rollback took out of the session, or that a compaction which failed made
// (a summary cut short is not kept), or that auto mode's judge made: they
// were paid for, so the session's cost keeps them. Kept in spent/rolled-back.jsonl in the session folder
// (not beside the agents' files, which Agents lists).
type Spent struct {
	V     int    `json:"v"`
	Agent string `json:"agent"`
	Model string `json:"model,omitempty"`
	// Usage is the calls' token counts: a list of the provider-neutral
	// usage objects, as in a Compaction.
	Usage json.RawMessage `json:"usage"`
	// At and Failed are set for a compaction the user asked for that
	// failed: how many messages the agent's file had then, and the event
	// that said so (JSON), so a resumed conversation shows it there.
	At     int             `json:"at,omitempty"`
	Failed json.RawMessage `json:"failed,omitempty"`
	// Judge marks the calls of auto mode's judge, which no message
	// records.
	Judge bool `json:"judge,omitempty"`
	Meta  Meta `json:"meta"`
}

func (s *Store[M]) spentFile() string { return filepath.Join(s.dir, "spent", "rolled-back.jsonl") }

// AppendSpent records what calls taken out of the session cost, synced.
func (s *Store[M]) AppendSpent(recs ...Spent) error {
	if len(recs) == 0 {
		return nil
	}
	ts := s.now().UTC().Format(TimeFormat)
	for i := range recs {
		recs[i].V = Version
		if recs[i].Meta.TS == "" {
			recs[i].Meta.TS = ts
		}
	}
	if err := appendRecords(s.spentFile(), recs...); err != nil {
		return fmt.Errorf("record the cost of a rolled back turn: %w", err)
	}
	return nil
}

// Spent returns the records of AppendSpent, oldest first.
func (s *Store[M]) Spent() ([]Spent, error) {
	return readRecords(s.spentFile(), "spent record", func(r Spent) int { return r.V })
}
