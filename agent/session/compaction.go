package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/freeact/desktop/internal/crashpoint"
)

// Compaction records that an agent's older messages were summarised: from
// then on the model sees Summary in place of the first Upto messages of
// the agent's file. The file itself keeps every message. Compactions are
// kept in compactions/<agent>.jsonl in the session folder, one a line, so
// that the message files stay in the format other freeact versions read.
type Compaction struct {
	V int `json:"v"`
	// Upto counts the messages of the agent's file (from its first line)
	// that Summary replaces.
	Upto    int    `json:"upto"`
	Summary string `json:"summary"`
	// Reason is "threshold", "overflow" or "manual".
	Reason string `json:"reason"`
	// Model and Usage are those of the summarising calls.
	Model string          `json:"model,omitempty"`
	Usage json.RawMessage `json:"usage,omitempty"`
	// TokensBefore and TokensAfter estimate the requests before and after.
	TokensBefore int  `json:"tokens_before,omitempty"`
	TokensAfter  int  `json:"tokens_after,omitempty"`
	Meta         Meta `json:"meta"`
}

// compactionsFile is where an agent's compactions go.
func (s *Store[M]) compactionsFile(agentID string) string {
	return filepath.Join(s.dir, "compactions", agentID+".jsonl")
}

// AppendCompaction records a compaction of the agent's messages, synced to
// disk.
func (s *Store[M]) AppendCompaction(agentID string, c Compaction) error {
	if err := checkName("agent id", agentID); err != nil {
		return fmt.Errorf("record compaction: %w", err)
	}
	c.V = Version
	if c.Meta.TS == "" {
		c.Meta.TS = s.now().UTC().Format(TimeFormat)
	}
	if err := appendRecords(s.compactionsFile(agentID), c); err != nil {
		return fmt.Errorf("record compaction: %w", err)
	}
	return nil
}

// Compactions returns the agent's compactions, oldest first. A line cut by
// a crash is ignored.
func (s *Store[M]) Compactions(agentID string) ([]Compaction, error) {
	if err := checkName("agent id", agentID); err != nil {
		return nil, fmt.Errorf("load compactions: %w", err)
	}
	return readCompactions(s.compactionsFile(agentID))
}

func readCompactions(name string) ([]Compaction, error) {
	return readRecords(name, "compaction", func(c Compaction) int { return c.V })
}

// appendRecords appends one JSON line a record to the file name (and its
// folder, made when missing), synced.
func appendRecords[T any](name string, recs ...T) error {
	var buf bytes.Buffer
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if cut := crashpoint.Tear("session.record", buf.Bytes()); cut != nil {
		_, _ = f.Write(cut)
		crashpoint.Die()
	}
	_, err = f.Write(buf.Bytes())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// readRecords reads the JSON lines of the file name (none when it is
// missing); a cut last line is ignored, another bad line or a version
// other than Version is an error naming it.
func readRecords[T any](name, what string, version func(T) int) ([]T, error) {
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load %ss: %w", what, err)
	}
	var out []T
	lines := bytes.Split(data, []byte("\n"))
	for i, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r T
		if err := json.Unmarshal(line, &r); err != nil {
			if i == len(lines)-1 {
				break // the write of the last line was interrupted
			}
			return nil, &LineError{File: name, Line: i + 1, Err: err}
		}
		if v := version(r); v != Version {
			return nil, &LineError{File: name, Line: i + 1, Err: fmt.Errorf("%s version %d is not supported", what, v)}
		}
		out = append(out, r)
	}
	return out, nil
}

// Agents lists the agent ids that have a file in the session: "main" and
// the subagents.
func (s *Store[M]) Agents() ([]string, error) {
	names, err := filepath.Glob(filepath.Join(s.dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, filepath.Base(n[:len(n)-len(".jsonl")]))
	}
	return out, nil
}

// ForkInfo is fork.json in a forked session's folder: where it came from.
type ForkInfo struct {
	From     string `json:"from"`
	Messages int    `json:"messages"`
	Meta     Meta   `json:"meta"`
}

// Fork starts session newID, beside this one, with the main file's
// messages before message number keep (as Load counts them; lines Load
// leaves out that come before it are copied too) and the compactions
// within them. This session is not changed. Subagent files and offloaded
// results stay where they are: the copied messages point to this session's
// results, which remain on disk. The fork's file keeps this one's format.
func (s *Store[M]) Fork(newID string, keep int) error {
	if err := checkName("session id", newID); err != nil {
		return err
	}
	dstDir := filepath.Join(filepath.Dir(s.dir), newID)
	if _, err := os.Stat(dstDir); err == nil {
		return fmt.Errorf("fork session %s: %s exists", s.id, dstDir)
	}
	name := s.File(MainAgent)
	data, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("fork session %s: %w", s.id, err)
	}
	s.mu.Lock()
	format := s.formatOf(MainAgent)
	s.mu.Unlock()
	var out bytes.Buffer
	n := 0
	done := false
	err = scanLines(data, name, func(line []byte, last bool) error {
		if done {
			return nil
		}
		kept := true
		raw, _, err := decodeLine[json.RawMessage](line)
		if err == nil && format != nil {
			_, kept, err = format.Decode(raw)
		} else if err == nil {
			var m M
			err = json.Unmarshal(raw, &m)
		}
		var malformed *malformedError
		if err != nil && last && errors.As(err, &malformed) {
			return nil
		}
		if err != nil {
			return err
		}
		if kept && n == keep {
			done = true
			return nil
		}
		out.Write(line)
		out.WriteByte('\n')
		if kept {
			n++
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("fork session %s: %w", s.id, err)
	}
	if n < keep {
		return fmt.Errorf("fork session %s: it has %d messages, not %d", s.id, n, keep)
	}
	comps, err := s.Compactions(MainAgent)
	if err != nil {
		return fmt.Errorf("fork session %s: %w", s.id, err)
	}
	var cs bytes.Buffer
	for _, c := range comps {
		if c.Upto <= keep {
			line, err := json.Marshal(c)
			if err != nil {
				return err
			}
			cs.Write(line)
			cs.WriteByte('\n')
		}
	}
	info, _ := json.Marshal(ForkInfo{From: s.id, Messages: keep, Meta: Meta{TS: nowTS()}})
	files := map[string][]byte{MainAgent + ".jsonl": out.Bytes(), "fork.json": info}
	if cs.Len() > 0 {
		files[filepath.Join("compactions", MainAgent+".jsonl")] = cs.Bytes()
	}
	tmp := filepath.Join(filepath.Dir(s.dir), "."+newID+".tmp")
	for rel, content := range files {
		p := filepath.Join(tmp, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			os.RemoveAll(tmp)
			return fmt.Errorf("fork session %s: %w", s.id, err)
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			os.RemoveAll(tmp)
			return fmt.Errorf("fork session %s: %w", s.id, err)
		}
	}
	if err := os.Rename(tmp, dstDir); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("fork session %s: %w", s.id, err)
	}
	return nil
}

func nowTS() string { return time.Now().UTC().Format(TimeFormat) }
