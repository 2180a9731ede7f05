package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/freeact/desktop/agent/model"
)

// bodyBackend streams a fixed body through readStream.
type bodyBackend string

func (bodyBackend) Name() string { return "openai:fuzz" }
func (b bodyBackend) StreamOnce(context.Context, *model.Request) iter.Seq2[model.Chunk, error] {
	return readStream(strings.NewReader(string(b)))
}

// splitDeltas writes two tool calls whose arguments arrive in pieces cut
// at the offsets in cuts, the pieces of the two calls interleaved, as
// parallel calls stream; the second call's arguments end at keep bytes
// when keep is below their length, with finish_reason "length".
func splitDeltas(args0, args1 string, cuts []byte, keep int) string {
	var b strings.Builder
	chunk := func(delta any, finish string) {
		c := map[string]any{"index": 0, "delta": delta}
		if finish != "" {
			c["finish_reason"] = finish
		}
		data, _ := json.Marshal(map[string]any{"object": "chat.completion.chunk", "choices": []any{c}})
		b.WriteString("data: " + string(data) + "\n\n")
	}
	call := func(i int, id, name, args string) {
		fn := map[string]any{"arguments": args}
		tc := map[string]any{"index": i, "function": fn}
		if id != "" {
			tc["id"], tc["type"], fn["name"] = id, "function", name
		}
		chunk(map[string]any{"tool_calls": []any{tc}}, "")
	}
	pieces := func(s string) []string {
		var out []string
		at := 0
		for _, c := range cuts {
			if at >= len(s) {
				break
			}
			n := min(1+int(c)%8, len(s)-at)
			// A delta is a JSON string, so whole characters: servers
			// hold back a token's half of one.
			for at+n < len(s) && !utf8.RuneStart(s[at+n]) {
				n++
			}
			out = append(out, s[at:at+n])
			at += n
		}
		if at < len(s) {
			out = append(out, s[at:])
		}
		return out
	}
	call(0, "call_0", "ipybox_execute_ipython_cell", "")
	call(1, "call_1", "ipybox_execute_ipython_cell", "")
	cut := keep < len(args1)
	if cut {
		for keep > 0 && !utf8.RuneStart(args1[keep]) {
			keep--
		}
		args1 = args1[:keep]
	}
	p0, p1 := pieces(args0), pieces(args1)
	for i := 0; i < max(len(p0), len(p1)); i++ {
		if i < len(p0) {
			call(0, "", "", p0[i])
		}
		if i < len(p1) {
			call(1, "", "", p1[i])
		}
	}
	finish := "tool_calls"
	if cut {
		finish = "length"
	}
	chunk(map[string]any{}, finish)
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// FuzzSplitToolCallDeltas: however the arguments of two parallel calls are
// split into deltas, they come out whole; cut at max_tokens, a call whose
// arguments are incomplete is in Done.Cut, never in the message, and every
// call in the message has a JSON object for arguments.
func FuzzSplitToolCallDeltas(f *testing.F) {
	f.Add("print('first')", "seq.append('second')", []byte{0, 3, 7, 1}, 1000)
	f.Add("x = {\"a\": [1, 2]}", "é ü 🙂 \\n", []byte{5}, 12)
	f.Add("", "", []byte{}, 0)
	f.Add("a\"b", "c", []byte{1, 1, 1}, 3)
	f.Fuzz(func(t *testing.T, code0, code1 string, cuts []byte, keep int) {
		args0, _ := json.Marshal(map[string]string{"code": code0})
		args1, _ := json.Marshal(map[string]string{"code": code1})
		keep = max(keep, 0)
		body := splitDeltas(string(args0), string(args1), cuts, keep)
		var done *model.Done
		for c, err := range model.New(bodyBackend(body), model.RetryPolicy{MaxAttempts: 1}).Stream(t.Context(), &model.Request{}) {
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			if d, ok := c.(model.Done); ok {
				done = &d
			}
		}
		if done == nil {
			t.Fatal("no Done")
		}
		calls := done.Message.FunctionCalls()
		for _, c := range calls {
			if !model.ArgsComplete(c.Args) {
				t.Fatalf("a call with incomplete arguments in the message: %s", c.Args)
			}
		}
		if len(calls) == 0 || calls[0].ID != "call_0" || !bytes.Equal(calls[0].Args, model.ArgsJSON(args0)) {
			t.Fatalf("the first call came out as %+v, want arguments %s", calls, args0)
		}
		cut := keep < len(args1)
		if !cut {
			if len(calls) != 2 || !bytes.Equal(calls[1].Args, model.ArgsJSON(args1)) || done.Message.Cut() || len(done.Cut) != 0 {
				t.Fatalf("whole reply: calls %+v, cut %+v", calls, done.Cut)
			}
			return
		}
		if !done.Message.Cut() {
			t.Fatal("a reply cut at max_tokens is not marked cut")
		}
		// The kept prefix of a JSON object is never a complete object
		// before its closing brace.
		if len(calls) != 1 || len(done.Cut) != 1 || done.Cut[0].ID != "call_1" {
			t.Fatalf("cut reply: calls %+v, cut %+v", calls, done.Cut)
		}
	})
}
