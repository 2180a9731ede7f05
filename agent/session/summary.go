package session

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/freeact/desktop/internal/atomicfile"
)

// summaryFile sits next to main.jsonl and describes it, so that listing
// sessions does not read every file in full. It is a cache: List trusts it
// only while the file's size and modification time are those it records.
const summaryFile = ".main-summary.json"

type summary struct {
	Size       int64  `json:"size"`
	ModTime    int64  `json:"mtime_ns"`
	Messages   int    `json:"messages"`
	Created    string `json:"created"`
	LastActive string `json:"last_active"`
}

// readSummary returns the summary of the session in dir when it matches
// the main file's current state st.
func readSummary(dir string, st os.FileInfo) (*summary, bool) {
	data, err := os.ReadFile(filepath.Join(dir, summaryFile))
	if err != nil {
		return nil, false
	}
	var s summary
	if json.Unmarshal(data, &s) != nil || s.Size != st.Size() || s.ModTime != st.ModTime().UnixNano() {
		return nil, false
	}
	return &s, true
}

// loadSummary returns the summary of main file name in dir, rebuilding it
// from the file when the saved one is missing or stale.
func loadSummary(dir, name string) (*summary, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if s, ok := readSummary(dir, st); ok {
		return s, nil
	}
	info, err := describe(name, filepath.Base(dir), nil, newScanner(32<<10))
	if err != nil {
		return nil, err
	}
	return summaryOf(st, info), nil
}

func summaryOf(st os.FileInfo, info Info) *summary {
	s := &summary{Size: st.Size(), ModTime: st.ModTime().UnixNano(), Messages: info.Messages}
	if info.Messages > 0 {
		s.Created = info.Created.Format(TimeFormat)
		s.LastActive = info.LastActive.Format(TimeFormat)
	}
	return s
}

// add records messages appended at ts; st is the file after the write.
func (s *summary) add(st os.FileInfo, messages int, ts string) {
	s.Size, s.ModTime = st.Size(), st.ModTime().UnixNano()
	s.Messages += messages
	if s.Created == "" {
		s.Created = ts
	}
	s.LastActive = ts
}

// save replaces the summary file in one step, without syncing: it is a
// cache that List checks against main.jsonl.
func (s *summary) save(dir string) error {
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return atomicfile.WriteCache(filepath.Join(dir, summaryFile), data, 0o600)
}
