package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

type msg struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

func userTitle(raw json.RawMessage) (string, bool) {
	var m msg
	if json.Unmarshal(raw, &m) == nil && m.Role == "user" {
		return m.Text, true
	}
	return "", false
}

func openStore(t testing.TB, dir, id string) *Store[msg] {
	t.Helper()
	s, err := Open[msg](dir, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestEnvelopeFormat(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, "s1")
	s.now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 6000, time.FixedZone("X", 3600)) }
	if err := s.Append(MainAgent, msg{Role: "user", Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "s1", "main.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"v":1,"message":{"role":"user","text":"hi"},"meta":{"ts":"2026-01-02T02:04:05.000006+00:00"}}` + "\n"
	if string(data) != want {
		t.Fatalf("file = %s\nwant   %s", data, want)
	}
}

func TestAppendLoadResume(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, "countries-session")
	if s.Exists() {
		t.Fatal("a new session exists before its first append")
	}
	turn1 := []msg{{"user", "capital of France?"}, {"model", "Paris"}}
	if err := s.Append(MainAgent, turn1[0]); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(MainAgent, turn1[1]); err != nil {
		t.Fatal(err)
	}
	if err := s.Append("sub-1a2b", msg{"user", "subtask"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	r := openStore(t, dir, "countries-session")
	if !r.Exists() {
		t.Fatal("resumed session does not exist")
	}
	got, err := r.Load(MainAgent)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, turn1) {
		t.Fatalf("main = %v, want %v", got, turn1)
	}
	sub, err := r.Load("sub-1a2b")
	if err != nil || len(sub) != 1 {
		t.Fatalf("subagent file = %v, %v", sub, err)
	}
	if err := r.Append(MainAgent, msg{"user", "and Germany?"}); err != nil {
		t.Fatal(err)
	}
	got, _ = r.Load(MainAgent)
	if len(got) != 3 || got[2].Text != "and Germany?" {
		t.Fatalf("after resume append: %v", got)
	}
	missing, err := r.Load("sub-none")
	if err != nil || missing != nil {
		t.Fatalf("missing agent file: %v, %v", missing, err)
	}
}

func TestNames(t *testing.T) {
	for _, id := range []string{"", ".", "..", "a/b", `a\b`, "a\x00b", strings.Repeat("x", 201)} {
		if _, err := Open[msg](t.TempDir(), id); err == nil {
			t.Errorf("Open accepted session id %q", id)
		}
	}
	s := openStore(t, t.TempDir(), NewID())
	if err := s.Append("../main", msg{}); err == nil {
		t.Error("Append accepted agent id ../main")
	}
	if _, err := s.Load("x/y"); err == nil {
		t.Error("Load accepted agent id x/y")
	}
	a, b := NewID(), NewID()
	if a == b || len(a) != 36 || a[14] != '4' {
		t.Errorf("NewID gave %q and %q", a, b)
	}
}

func line(v any, ts string) string {
	return fmt.Sprintf(`{"v":%v,"message":{"role":"user","text":"x"},"meta":{"ts":%q}}`, v, ts)
}

func TestLoadRules(t *testing.T) {
	ok := line(1, "2026-01-01T00:00:00.000000+00:00")
	tests := []struct {
		name    string
		content string
		want    int    // messages loaded
		errLine string // when set: the error must name file:line and say this
	}{
		{"empty file", "", 0, ""},
		{"two lines", ok + "\n" + ok + "\n", 2, ""},
		{"last line without newline", ok + "\n" + ok, 2, ""},
		{"truncated last line ignored", ok + "\n" + ok[:20], 1, ""},
		{"malformed last line with newline ignored", ok + "\n{oops\n", 1, ""},
		{"blank lines skipped", ok + "\n\n" + ok + "\n\n", 2, ""},
		{"malformed earlier line", ok + "\n{oops\n" + ok + "\n", 0, ":2: malformed JSON"},
		{"other version", ok + "\n" + line(2, "t") + "\n", 0, ":2: envelope version 2"},
		{"other version on last line", line(2, "t"), 0, ":1: envelope version 2"},
		{"missing v", `{"message":{},"meta":{"ts":"t"}}` + "\n", 0, `:1: envelope has no "v"`},
		{"missing ts", `{"v":1,"message":{},"meta":{}}` + "\n" + ok + "\n", 0, `:1: envelope has no "meta.ts"`},
		{"missing meta", `{"v":1,"message":{}}` + "\n", 0, `:1: envelope has no "meta.ts"`},
		{"empty ts", line(1, "") + "\n", 0, `:1: envelope has no "meta.ts"`},
		{"missing message", `{"v":1,"meta":{"ts":"t"}}` + "\n", 0, `:1: envelope has no "message"`},
		{"wrong v type", `{"v":"1","message":{},"meta":{"ts":"t"}}` + "\n", 0, ":1: field v has the wrong type"},
		{"message of wrong shape", `{"v":1,"message":[1],"meta":{"ts":"t"}}` + "\n", 0, ":1: field message has the wrong type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "s", "main.jsonl")
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := openStore(t, dir, "s").Load(MainAgent)
			if tt.errLine != "" {
				var le *LineError
				if err == nil || !errors.As(err, &le) || !strings.Contains(err.Error(), file+tt.errLine) {
					t.Fatalf("err = %v, want one naming %s%s", err, file, tt.errLine)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.want {
				t.Fatalf("loaded %d messages, want %d", len(got), tt.want)
			}
			infos, err := List(dir, userTitle)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			if len(infos) == 1 {
				n = infos[0].Messages
			}
			if n != tt.want {
				t.Fatalf("List counts %d messages, Load %d", n, tt.want)
			}
		})
	}
}

// A crash can cut the file at any byte. Loading the cut file must work and
// give exactly the messages whose lines are complete, List must agree, and
// appending afterwards must give a file that loads with the new message.
func TestTruncateAtEveryByteOffset(t *testing.T) {
	src := t.TempDir()
	s := openStore(t, src, "real")
	want := []msg{
		{"user", "Résumé the file ünïcode ✓ and \"quotes\"\nnew line"},
		{"model", strings.Repeat("long answer ", 3)},
		{"user", "short"},
		{"model", "{\"json\": [1, 2]}"},
	}
	for _, m := range want {
		if err := s.Append(MainAgent, m); err != nil {
			t.Fatal(err)
		}
	}
	full, err := os.ReadFile(s.File(MainAgent))
	if err != nil {
		t.Fatal(err)
	}
	// Byte offsets where each line (with its newline) ends.
	var ends []int
	for i, b := range full {
		if b == '\n' {
			ends = append(ends, i+1)
		}
	}
	for off := 0; off <= len(full); off++ {
		dir := t.TempDir()
		file := filepath.Join(dir, "cut", "main.jsonl")
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, full[:off], 0o644); err != nil {
			t.Fatal(err)
		}
		complete := 0
		for _, e := range ends {
			// A line cut just before its newline is still a whole envelope.
			if e <= off || e-1 == off {
				complete++
			}
		}
		st, err := Open[msg](dir, "cut")
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.Load(MainAgent)
		if err != nil {
			t.Fatalf("offset %d: %v", off, err)
		}
		if !slices.Equal(got, want[:complete]) {
			t.Fatalf("offset %d: loaded %d messages, want %d", off, len(got), complete)
		}
		infos, err := List(dir, userTitle)
		if err != nil {
			t.Fatalf("offset %d: list: %v", off, err)
		}
		if complete == 0 && len(infos) != 0 || complete > 0 && (len(infos) != 1 || infos[0].Messages != complete) {
			t.Fatalf("offset %d: list %+v, want %d messages", off, infos, complete)
		}
		if err := st.Append(MainAgent, msg{"user", "after crash"}); err != nil {
			t.Fatalf("offset %d: append: %v", off, err)
		}
		st.Close()
		got, err = st.Load(MainAgent)
		if err != nil {
			t.Fatalf("offset %d: load after append: %v", off, err)
		}
		if len(got) != complete+1 || got[complete].Text != "after crash" {
			t.Fatalf("offset %d: after append loaded %v", off, got)
		}
		// The summary written by the append agrees with the file.
		if _, err := os.Stat(filepath.Join(dir, "cut", summaryFile)); err != nil {
			t.Fatalf("offset %d: no summary after append: %v", off, err)
		}
		infos, err = List(dir, userTitle)
		if err != nil || len(infos) != 1 || infos[0].Messages != complete+1 {
			t.Fatalf("offset %d: list after append %+v, %v", off, infos, err)
		}
	}
}

func TestConcurrentAgents(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, "c")
	var wg sync.WaitGroup
	agents := []string{MainAgent, "sub-0001", "sub-0002", "sub-0003"}
	for _, a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				if err := s.Append(a, msg{"model", fmt.Sprintf("%s %d", a, i)}, msg{"user", "x"}); err != nil {
					t.Error(err)
				}
				if i%10 == 0 {
					if err := s.Sync(); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
	for _, a := range agents {
		got, err := s.Load(a)
		if err != nil || len(got) != 100 {
			t.Fatalf("%s: %d messages, %v", a, len(got), err)
		}
		for i := range 50 {
			if got[2*i].Text != fmt.Sprintf("%s %d", a, i) {
				t.Fatalf("%s: message %d out of order: %v", a, 2*i, got[2*i])
			}
		}
	}
}

func TestList(t *testing.T) {
	dir := t.TempDir()
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	mk := func(id string, start time.Time, msgs ...msg) {
		s := openStore(t, dir, id)
		for i, m := range msgs {
			s.now = func() time.Time { return start.Add(time.Duration(i) * time.Minute) }
			if err := s.Append(MainAgent, m); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
	}
	mk("old", base, msg{"user", "first question"}, msg{"model", "a"})
	mk("new", base.Add(time.Hour), msg{"model", "greeting"}, msg{"user", "second question"}, msg{"model", "b"})
	mk("untitled", base.Add(10*time.Minute), msg{"model", "no user"})
	// Not sessions: a directory without main.jsonl and a plain file.
	if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stray.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A subagent file alone is no session either.
	sub := openStore(t, dir, "subonly")
	if err := sub.Append("sub-1", msg{"user", "x"}); err != nil {
		t.Fatal(err)
	}

	got, err := List(dir, userTitle)
	if err != nil {
		t.Fatal(err)
	}
	want := []Info{
		{ID: "new", Created: base.Add(time.Hour), LastActive: base.Add(time.Hour + 2*time.Minute), Title: "second question", Messages: 3},
		{ID: "untitled", Created: base.Add(10 * time.Minute), LastActive: base.Add(10 * time.Minute), Title: "", Messages: 1},
		{ID: "old", Created: base, LastActive: base.Add(time.Minute), Title: "first question", Messages: 2},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("List =\n%+v\nwant\n%+v", got, want)
	}
	if none, err := List(filepath.Join(dir, "missing"), nil); err != nil || none != nil {
		t.Fatalf("List of a missing dir = %v, %v", none, err)
	}
	// A broken session is reported, the others are still listed.
	if err := os.WriteFile(filepath.Join(dir, "old", "main.jsonl"), []byte("{bad\n"+line(1, "t")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = List(dir, userTitle)
	if err == nil || !strings.Contains(err.Error(), filepath.Join("old", "main.jsonl")+":1") || len(got) != 2 {
		t.Fatalf("List with a broken session = %v, %v", got, err)
	}
}

// A main file changed behind the store's back (by another program) makes
// its summary stale; List then reads the file itself.
func TestListStaleSummary(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, "s")
	if err := s.Append(MainAgent, msg{"user", "q"}, msg{"model", "a"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	f, err := os.OpenFile(s.File(MainAgent), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(line(1, "2030-01-01T00:00:00.000000+00:00") + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	infos, err := List(dir, userTitle)
	if err != nil || len(infos) != 1 || infos[0].Messages != 3 || infos[0].LastActive.Year() != 2030 {
		t.Fatalf("List = %+v, %v", infos, err)
	}
	// Appending through a store again rebuilds the summary.
	s2 := openStore(t, dir, "s")
	if err := s2.Append(MainAgent, msg{"user", "more"}); err != nil {
		t.Fatal(err)
	}
	sum, ok := readSummary(s2.Dir(), fileInfo(t, s2.File(MainAgent)))
	if !ok || sum.Messages != 4 {
		t.Fatalf("summary after append = %+v, %v", sum, ok)
	}
	// Another writer appends while the store is open: the store's next
	// append goes after it, and its summary counts both.
	f, err = os.OpenFile(s2.File(MainAgent), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(line(1, "2030-01-02T00:00:00.000000+00:00") + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := s2.Append(MainAgent, msg{"model", "last"}); err != nil {
		t.Fatal(err)
	}
	got, err := s2.Load(MainAgent)
	if err != nil || len(got) != 6 || got[5].Text != "last" {
		t.Fatalf("after a foreign append: %v, %v", got, err)
	}
	if sum, ok := readSummary(s2.Dir(), fileInfo(t, s2.File(MainAgent))); !ok || sum.Messages != 6 {
		t.Fatalf("summary after a foreign append = %+v, %v", sum, ok)
	}
}

func fileInfo(t *testing.T, name string) os.FileInfo {
	t.Helper()
	st, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func FuzzLoad(f *testing.F) {
	ok := line(1, "2026-01-01T00:00:00.000000+00:00")
	for _, seed := range []string{"", ok + "\n", ok + "\n" + ok[:30], "{bad\n" + ok, ok + "\n\n", line(2, "t"), "\n\n\n", ok} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		dir := t.TempDir()
		file := filepath.Join(dir, "f", "main.jsonl")
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, content, 0o644); err != nil {
			t.Fatal(err)
		}
		s, _ := Open[json.RawMessage](dir, "f")
		got, err := s.Load(MainAgent)
		infos, lerr := List(dir, nil)
		if err != nil {
			return // List reads only the head and may not see the bad line
		}
		if lerr == nil && len(got) > 0 && (len(infos) != 1 || infos[0].Messages != len(got)) {
			t.Fatalf("List %+v disagrees with Load (%d messages)", infos, len(got))
		}
		// Appending after any loadable content keeps the file loadable.
		if err := s.Append(MainAgent, json.RawMessage(`{"a":1}`)); err != nil {
			t.Fatal(err)
		}
		s.Close()
		again, err := s.Load(MainAgent)
		if err != nil || len(again) != len(got)+1 {
			t.Fatalf("after append: %d messages (had %d), %v", len(again), len(got), err)
		}
	})
}

// TestRollback: Rollback takes an agent's file back to a Mark, whatever
// was appended since, and removes a file that did not exist at the mark;
// the session list counts what is left. A partial line a crash left is
// repaired before the mark, so rolling back never brings it back.
func TestRollback(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, "s1")
	newFile, err := s.Mark(MainAgent)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.File(MainAgent)); err == nil {
		t.Fatal("Mark created the file")
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Append(MainAgent, msg{"user", "a"}, msg{"model", "b"}))
	mustRollback(t, s, newFile)
	if _, err := os.Stat(s.File(MainAgent)); err == nil {
		t.Error("a file that did not exist at the mark is still there")
	}
	if infos, _ := List(dir, userTitle); len(infos) != 0 {
		t.Errorf("listed after rolling back to nothing: %+v", infos)
	}

	must(s.Append(MainAgent, msg{"user", "a"}, msg{"model", "b"}))
	kept, _ := os.ReadFile(s.File(MainAgent))
	m, err := s.Mark(MainAgent)
	must(err)
	must(s.Append(MainAgent, msg{"user", "c"}))
	must(s.Append(MainAgent, msg{"model", "d"}))
	// Compactions of the messages taken out go with them; one of older
	// messages, though made after the mark, stays.
	must(s.AppendCompaction(MainAgent, Compaction{Upto: 1, Summary: "a"}))
	must(s.AppendCompaction(MainAgent, Compaction{Upto: 3, Summary: "a to c", Usage: json.RawMessage(`[{"input_tokens":7}]`)}))
	dropped, err := s.Rollback(MainAgent, m)
	must(err)
	if len(dropped) != 1 || dropped[0].Summary != "a to c" || string(dropped[0].Usage) != `[{"input_tokens":7}]` {
		t.Errorf("dropped compactions %+v", dropped)
	}
	if cs, err := s.Compactions(MainAgent); err != nil || len(cs) != 1 || cs[0].Summary != "a" {
		t.Errorf("compactions kept %+v %v", cs, err)
	}
	must(s.AppendSpent(Spent{Agent: MainAgent, Model: "m", Usage: dropped[0].Usage}))
	if sp, err := s.Spent(); err != nil || len(sp) != 1 || sp[0].Model != "m" || sp[0].V != Version || sp[0].Meta.TS == "" {
		t.Errorf("spent %+v %v", sp, err)
	}
	if agents, _ := s.Agents(); len(agents) != 1 {
		t.Errorf("agents %v", agents)
	}
	if now, _ := os.ReadFile(s.File(MainAgent)); string(now) != string(kept) {
		t.Errorf("file after rollback:\n%s\nwant\n%s", now, kept)
	}
	if infos, err := List(dir, userTitle); err != nil || len(infos) != 1 || infos[0].Messages != 2 {
		t.Errorf("list after rollback: %+v %v", infos, err)
	}
	must(s.Append(MainAgent, msg{"user", "e"}))
	if got, err := s.Load(MainAgent); err != nil || len(got) != 3 || got[2].Text != "e" {
		t.Errorf("after rollback and append: %+v %v", got, err)
	}
	must(s.Close())

	// A crash left half a line: the mark comes after its repair.
	f, _ := os.OpenFile(s.File(MainAgent), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"v":1,"message":{"role":"us`)
	f.Close()
	s2 := openStore(t, dir, "s1")
	m, err = s2.Mark(MainAgent)
	must(err)
	must(s2.Append(MainAgent, msg{"user", "f"}))
	mustRollback(t, s2, m)
	if got, err := s2.Load(MainAgent); err != nil || len(got) != 3 {
		t.Errorf("after a repaired crash and a rollback: %+v %v", got, err)
	}
	if now, _ := os.ReadFile(s2.File(MainAgent)); strings.Contains(string(now), `"us`+"\n") || !strings.HasSuffix(string(now), "\n") {
		t.Errorf("file: %q", now)
	}
}

func mustRollback(t *testing.T, s *Store[msg], m Mark) {
	t.Helper()
	if _, err := s.Rollback(MainAgent, m); err != nil {
		t.Fatal(err)
	}
}

// LoadTimed gives each message the time it was saved, in step with the
// messages even where an interrupted last line is left out.
func TestLoadTimed(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, "s1")
	start := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	for i, text := range []string{"a", "b", "c"} {
		s.now = func() time.Time { return start.Add(time.Duration(i) * 1500 * time.Millisecond) }
		if err := s.Append(MainAgent, msg{Role: "user", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, "s1", "main.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"v":1,"message":{"role":"us`)
	f.Close()
	msgs, times, err := s.LoadTimed(MainAgent)
	if err != nil || len(msgs) != 3 || len(times) != 3 {
		t.Fatalf("LoadTimed = %v, %v, %v", msgs, times, err)
	}
	for i, ts := range times {
		if want := start.Add(time.Duration(i) * 1500 * time.Millisecond); !ts.Equal(want) || msgs[i].Text != string(rune('a'+i)) {
			t.Errorf("message %d: %q at %v, want %v", i, msgs[i].Text, ts, want)
		}
	}
}
