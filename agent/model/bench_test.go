package model

import (
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkSessionLine measures encoding and decoding one model message the
// size of a typical code-action reply, as session appends and resume do.
func BenchmarkSessionLine(b *testing.B) {
	m := conversation()[1]
	m.Parts[1].Text = strings.Repeat("Some explanation of the code. ", 100)
	m.Parts[2].FunctionCall.Args = json.RawMessage(`{"code":` + strconvQuote(strings.Repeat("print('hello world')\n", 100)) + `}`)
	line, _ := json.Marshal(m)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		out, err := json.Marshal(m)
		if err != nil {
			b.Fatal(err)
		}
		var back Message
		if err := json.Unmarshal(out, &back); err != nil {
			b.Fatal(err)
		}
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// BenchmarkAccumulate measures merging streamed deltas into a message.
func BenchmarkAccumulate(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		acc := accumulator{msg: Message{Role: RoleModel}}
		for range 500 {
			acc.add(TextDelta{Text: "token "})
		}
		acc.add(FunctionCallChunk{Call: FunctionCall{ID: "x", Name: "f", Args: json.RawMessage(`{}`)}})
		_ = acc.finish()
	}
}
