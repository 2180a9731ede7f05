package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/freeact/desktop/internal/atomicfile"
)

// Repair says what a crash left at the end of a session file and what
// was done with it: the torn line was dropped from the file and its bytes
// kept in Kept.
type Repair struct {
	File    string // the session file, relative to the session folder
	What    string // "message" or "compaction"
	Bytes   int    // how much was dropped
	Role    string // the role of the message it began, when it shows
	Kept    string // where the dropped bytes are now ("" when they could not be kept)
	Written string // when the line was written, when it shows
}

func (r Repair) String() string {
	what := "a " + r.What
	if r.Role != "" {
		what = fmt.Sprintf("a %s message", r.Role)
	}
	if r.Written != "" {
		what += " written at " + r.Written
	}
	s := fmt.Sprintf("The last line of %s, %d bytes of %s, was cut off when freeact stopped and was dropped from the session", r.File, r.Bytes, what)
	if r.Kept != "" {
		s += "; its bytes are kept in " + r.Kept
	}
	return s + "."
}

var (
	roleField = regexp.MustCompile(`"role"\s*:\s*"([a-z_]{1,20})"`)
	tsField   = regexp.MustCompile(`"ts"\s*:\s*"([0-9T:.+\-]{10,40})"`)
)

// keepDropped saves the bytes a repair cut off from file (an absolute path
// in the session folder) in dropped/ and describes the repair.
func (s *Store[M]) keepDropped(file string, data []byte, what string) Repair {
	rel, err := filepath.Rel(s.dir, file)
	if err != nil {
		rel = filepath.Base(file)
	}
	r := Repair{File: filepath.ToSlash(rel), What: what, Bytes: len(data)}
	if m := roleField.FindSubmatch(data); m != nil {
		r.Role = string(m[1])
	}
	if m := tsField.FindSubmatch(data); m != nil {
		r.Written = string(m[1])
	}
	kept := filepath.Join(s.dir, "dropped", strings.ReplaceAll(r.File, "/", "-")+"."+time.Now().UTC().Format("20060102T150405.000000000")+".partial")
	if err := os.MkdirAll(filepath.Dir(kept), 0o755); err == nil && atomicfile.Write(kept, data, 0o644) == nil {
		r.Kept = kept
	}
	return r
}

// Repair cuts off what a crash left half-written at the end of the
// session's files (the agents' messages and their compactions), keeping
// the bytes in dropped/, and returns what it did, each repair once: a
// second call, or another start, finds nothing. The caller holds Lock.
func (s *Store[M]) Repair() ([]Repair, error) {
	agents, err := s.Agents()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range agents {
		if _, err := s.open(id); err != nil {
			return nil, fmt.Errorf("repair session %s: %w", s.id, err)
		}
		name := s.compactionsFile(id)
		data, err := os.ReadFile(name)
		if err != nil || len(data) == 0 || data[len(data)-1] == '\n' {
			continue
		}
		cut := bytes.LastIndexByte(data, '\n') + 1
		if json.Valid(data[cut:]) {
			err = appendBytes(name, []byte{'\n'})
		} else {
			s.repairs = append(s.repairs, s.keepDropped(name, data[cut:], "compaction"))
			err = os.Truncate(name, int64(cut))
		}
		if err != nil {
			return nil, fmt.Errorf("repair %s: %w", name, err)
		}
	}
	out := s.repairs
	s.repairs = nil
	return out, nil
}

func appendBytes(name string, b []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
