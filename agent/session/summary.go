package session

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// summaryFile sits next to main.jsonl and describes it, so that listing
// sessions does not read every file in full. It is a cache: List trusts it
// only while its size equals the file's size.
const summaryFile = ".main-summary.json"

type summary struct {
	Size       int64  `json:"size"`
	Messages   int    `json:"messages"`
	Created    string `json:"created"`
	LastActive string `json:"last_active"`
}

// readSummary returns the summary of the session in dir when it matches a
// main file of the given size.
func readSummary(dir string, size int64) (*summary, bool) {
	data, err := os.ReadFile(filepath.Join(dir, summaryFile))
	if err != nil {
		return nil, false
	}
	var s summary
	if json.Unmarshal(data, &s) != nil || s.Size != size {
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
	if s, ok := readSummary(dir, st.Size()); ok {
		return s, nil
	}
	info, err := describe(name, filepath.Base(dir), nil, newScanner(32<<10))
	if err != nil {
		return nil, err
	}
	s := &summary{Size: st.Size(), Messages: info.Messages}
	if info.Messages > 0 {
		s.Created = info.Created.Format(TimeFormat)
		s.LastActive = info.LastActive.Format(TimeFormat)
	}
	return s, nil
}

func (s *summary) add(bytes int64, messages int, ts string) {
	s.Size += bytes
	s.Messages += messages
	if s.Created == "" {
		s.Created = ts
	}
	s.LastActive = ts
}

// save writes the summary through a temporary file and a rename.
func (s *summary) save(dir string) error {
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, summaryFile+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, summaryFile))
}
