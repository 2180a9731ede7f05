package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchMsg resembles a provider-neutral model message: a role and parts.
type benchMsg struct {
	Role  string      `json:"role"`
	Parts []benchPart `json:"parts"`
}

type benchPart struct {
	Kind string `json:"kind"`
	Text string `json:"text,omitempty"`
	Tool string `json:"tool,omitempty"`
}

func benchMessage(i int) benchMsg {
	text := fmt.Sprintf("message %d: %s", i, strings.Repeat("lorem ipsum dolor sit amet ", 35))
	if i%2 == 0 {
		return benchMsg{Role: "user", Parts: []benchPart{{Kind: "text", Text: text}}}
	}
	return benchMsg{Role: "model", Parts: []benchPart{{Kind: "thought", Text: text}, {Kind: "tool_call", Tool: "ipybox_execute_ipython_cell", Text: text}}}
}

func benchTitle(raw json.RawMessage) (string, bool) {
	return "title", strings.Contains(string(raw[:min(len(raw), 20)]), `"user"`)
}

// BenchmarkList1000Sessions lists a workspace with 1,000 sessions of 40
// messages each (about 2.3 KB a line, 90 MB in all) written by this
// package, so each has its summary. Target: ≤ 100 ms.
func BenchmarkList1000Sessions(b *testing.B) {
	benchList(b, false)
}

// BenchmarkList1000SessionsNoSummary lists the same sessions without their
// summaries (as written by the Python freeact): every file is read.
func BenchmarkList1000SessionsNoSummary(b *testing.B) {
	benchList(b, true)
}

func benchList(b *testing.B, dropSummaries bool) {
	dir := b.TempDir()
	for i := range 1000 {
		s, err := Open[benchMsg](dir, fmt.Sprintf("session-%04d", i))
		if err != nil {
			b.Fatal(err)
		}
		msgs := make([]benchMsg, 40)
		for j := range msgs {
			msgs[j] = benchMessage(j)
		}
		if err := s.Append(MainAgent, msgs...); err != nil {
			b.Fatal(err)
		}
		s.Close()
		if dropSummaries {
			if err := os.Remove(filepath.Join(s.Dir(), summaryFile)); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	for b.Loop() {
		infos, err := List(dir, benchTitle)
		if err != nil || len(infos) != 1000 || infos[0].Messages != 40 || infos[0].Title != "title" {
			b.Fatalf("List: %d sessions, %v", len(infos), err)
		}
	}
}

// BenchmarkLoad10000Messages loads one session of 10,000 messages (about
// 23 MB). Target: ≤ 300 ms.
func BenchmarkLoad10000Messages(b *testing.B) {
	dir := b.TempDir()
	s, err := Open[benchMsg](dir, "big")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 10000; i += 100 {
		msgs := make([]benchMsg, 100)
		for j := range msgs {
			msgs[j] = benchMessage(i + j)
		}
		if err := s.Append(MainAgent, msgs...); err != nil {
			b.Fatal(err)
		}
	}
	s.Close()
	b.ResetTimer()
	for b.Loop() {
		got, err := s.Load(MainAgent)
		if err != nil || len(got) != 10000 {
			b.Fatalf("Load: %d messages, %v", len(got), err)
		}
	}
}
