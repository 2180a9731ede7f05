package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCompactionsRoundTripBesideTheMessages(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, "s1")
	for i := range 4 {
		if err := s.Append(MainAgent, msg{Role: "user", Text: string(rune('a' + i))}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AppendCompaction(MainAgent, Compaction{Upto: 2, Summary: "a and b", Reason: "manual", Usage: json.RawMessage(`{"input_tokens":5}`)}); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendCompaction(MainAgent, Compaction{Upto: 3, Summary: "a, b and c", Reason: "threshold"}); err != nil {
		t.Fatal(err)
	}
	cs, err := s.Compactions(MainAgent)
	if err != nil || len(cs) != 2 || cs[0].Upto != 2 || cs[1].Summary != "a, b and c" || cs[0].Meta.TS == "" || string(cs[0].Usage) != `{"input_tokens":5}` {
		t.Fatalf("compactions %+v, %v", cs, err)
	}
	// The message file is untouched: every message loads, and the session
	// list counts four.
	msgs, err := s.Load(MainAgent)
	if err != nil || len(msgs) != 4 {
		t.Fatalf("messages %v, %v", msgs, err)
	}
	infos, err := List(dir, userTitle)
	if err != nil || len(infos) != 1 || infos[0].Messages != 4 {
		t.Fatalf("list %+v, %v", infos, err)
	}
	agents, _ := s.Agents()
	if !slices.Equal(agents, []string{"main"}) {
		t.Errorf("agents %q", agents)
	}
	// A cut last line is ignored; a broken earlier one is an error.
	name := filepath.Join(dir, "s1", "compactions", "main.jsonl")
	f, _ := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"v":1,"upto":`)
	f.Close()
	if cs, err := s.Compactions(MainAgent); err != nil || len(cs) != 2 {
		t.Errorf("with a cut last line: %v, %v", cs, err)
	}
	f, _ = os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\n{}\n")
	f.Close()
	if _, err := s.Compactions(MainAgent); err == nil || !strings.Contains(err.Error(), "main.jsonl:3") {
		t.Errorf("a broken line: %v", err)
	}
}

func TestForkKeepsTheSourceIntact(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, "src")
	for _, text := range []string{"first", "reply", "second", "reply 2", "third"} {
		if err := s.Append(MainAgent, msg{Role: "user", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	for _, upto := range []int{1, 4} {
		if err := s.AppendCompaction(MainAgent, Compaction{Upto: upto, Summary: "s"}); err != nil {
			t.Fatal(err)
		}
	}
	s.Sync()
	before, _ := os.ReadFile(s.File(MainAgent))
	if err := s.Fork("dst", 2); err != nil {
		t.Fatal(err)
	}
	f := openStore(t, dir, "dst")
	msgs, err := f.Load(MainAgent)
	if err != nil || len(msgs) != 2 || msgs[1].Text != "reply" {
		t.Fatalf("fork messages %v, %v", msgs, err)
	}
	cs, _ := f.Compactions(MainAgent)
	if len(cs) != 1 || cs[0].Upto != 1 {
		t.Errorf("fork compactions %+v", cs)
	}
	after, _ := os.ReadFile(s.File(MainAgent))
	if string(before) != string(after) {
		t.Error("the source changed")
	}
	var info ForkInfo
	data, _ := os.ReadFile(filepath.Join(dir, "dst", "fork.json"))
	if json.Unmarshal(data, &info) != nil || info.From != "src" || info.Messages != 2 {
		t.Errorf("fork.json %s", data)
	}
	// Appending to the fork leaves the source alone.
	if err := f.Append(MainAgent, msg{Role: "user", Text: "other"}); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := s.Load(MainAgent); len(msgs) != 5 {
		t.Errorf("source has %d messages", len(msgs))
	}
	if err := s.Fork("dst", 1); err == nil {
		t.Error("forking onto an existing session worked")
	}
	if err := s.Fork("big", 9); err == nil || !strings.Contains(err.Error(), "has 5 messages") {
		t.Errorf("fork beyond the end: %v", err)
	}
}

// A session in another format forks in it: lines Load leaves out count for
// nothing, and the fork keeps them where they were.
func TestForkKeepsTheFormat(t *testing.T) {
	type line struct {
		Kind string `json:"kind"`
		Text string `json:"text"`
	}
	dir := t.TempDir()
	format := Format[msg]{
		Name:   "lines",
		Detect: func(raw json.RawMessage) bool { return strings.Contains(string(raw), `"kind"`) },
		Decode: func(raw json.RawMessage) (msg, bool, error) {
			var l line
			err := json.Unmarshal(raw, &l)
			return msg{Role: l.Kind, Text: l.Text}, l.Kind != "system", err
		},
		Encode: func(m msg) (json.RawMessage, error) { return json.Marshal(line{Kind: m.Role, Text: m.Text}) },
	}
	var file strings.Builder
	for _, l := range []line{{"system", "prompt"}, {"user", "a"}, {"model", "b"}, {"user", "c"}} {
		raw, _ := json.Marshal(l)
		file.WriteString(`{"v":1,"message":` + string(raw) + `,"meta":{"ts":"2026-01-01T00:00:00.000000+00:00"}}` + "\n")
	}
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "src", "main.jsonl"), []byte(file.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, "src", format)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Fork("dst", 2); err != nil {
		t.Fatal(err)
	}
	f, _ := Open(dir, "dst", format)
	msgs, err := f.Load(MainAgent)
	if err != nil || len(msgs) != 2 || msgs[1].Text != "b" || f.Format(MainAgent) != "lines" {
		t.Fatalf("fork: %v, %v, format %q", msgs, err, f.Format(MainAgent))
	}
	data, _ := os.ReadFile(filepath.Join(dir, "dst", "main.jsonl"))
	if !slices.Equal(strings.Split(strings.TrimSpace(string(data)), "\n"), strings.Split(file.String(), "\n")[:3]) {
		t.Errorf("fork file:\n%s", data)
	}
}
