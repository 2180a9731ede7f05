package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// legacy is a stand-in for a foreign format: {"said": "user: text"}, with
// {"said": "system: ..."} left out of the history.
var legacy = Format[msg]{
	Name: "legacy",
	Detect: func(raw json.RawMessage) bool {
		var v map[string]any
		return json.Unmarshal(raw, &v) == nil && v["said"] != nil
	},
	Decode: func(raw json.RawMessage) (msg, bool, error) {
		var v struct{ Said string }
		if err := json.Unmarshal(raw, &v); err != nil {
			return msg{}, false, err
		}
		role, text, _ := strings.Cut(v.Said, ": ")
		return msg{Role: role, Text: text}, role != "system", nil
	},
	Encode: func(m msg) (json.RawMessage, error) {
		return json.Marshal(map[string]string{"said": m.Role + ": " + m.Text})
	},
}

// A file in a foreign format is read through it and continued in it; new
// files are the store's own JSON.
func TestFormats(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s", "main.jsonl")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	old := `{"v": 1, "message": {"said": "system: be brief"}, "meta": {"ts": "2026-01-01T00:00:00Z"}}` + "\n" +
		`{"v": 1, "message": {"said": "user: hi"}, "meta": {"ts": "2026-01-01T00:00:01Z"}}` + "\n"
	if err := os.WriteFile(file, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, "s", legacy)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.Format(MainAgent); got != "legacy" {
		t.Fatalf("format %q", got)
	}
	hist, err := s.Load(MainAgent)
	if err != nil || len(hist) != 1 || hist[0] != (msg{"user", "hi"}) {
		t.Fatalf("history %v, %v", hist, err)
	}
	if err := s.Append(MainAgent, msg{"model", "hello"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Append("sub-0001", msg{"user", "task"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	if !strings.HasPrefix(string(data), old) || !strings.Contains(string(data), `"message":{"said":"model: hello"}`) {
		t.Errorf("main.jsonl:\n%s", data)
	}
	sub, _ := os.ReadFile(filepath.Join(dir, "s", "sub-0001.jsonl"))
	if !strings.Contains(string(sub), `"message":{"role":"user","text":"task"}`) || s.Format("sub-0001") != "" {
		t.Errorf("sub-0001.jsonl (format %q):\n%s", s.Format("sub-0001"), sub)
	}
	again, err := Open(dir, "s", legacy)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if hist, err := again.Load(MainAgent); err != nil || len(hist) != 2 || hist[1] != (msg{"model", "hello"}) {
		t.Errorf("reloaded history %v, %v", hist, err)
	}
	// A bad line is reported with the format's name, file and line.
	if err := os.WriteFile(file, []byte(old+`{"v": 1, "message": {"said": 3}, "meta": {"ts": "x"}}`+"\n"+old), 0o644); err != nil {
		t.Fatal(err)
	}
	bad, _ := Open(dir, "s", legacy)
	if _, err := bad.Load(MainAgent); err == nil || !strings.Contains(err.Error(), "main.jsonl:3: legacy message:") {
		t.Errorf("err = %v", err)
	}
}
