package anthropic

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

func (bodyBackend) Name() string { return "anthropic:fuzz" }
func (b bodyBackend) StreamOnce(context.Context, *model.Request) iter.Seq2[model.Chunk, error] {
	return readStream(strings.NewReader(string(b)))
}

// FuzzSplitToolUseDeltas: however a tool_use block's input is split into
// input_json_delta pieces, it comes out whole; cut at max_tokens, a call
// whose input is incomplete is in Done.Cut and never in the message.
func FuzzSplitToolUseDeltas(f *testing.F) {
	f.Add("print('first')", []byte{0, 3, 7, 1}, 1000)
	f.Add("x = {\"a\": [1, 2]}\né 🙂", []byte{5}, 9)
	f.Add("", []byte{}, 1)
	f.Fuzz(func(t *testing.T, code string, cuts []byte, keep int) {
		args, _ := json.Marshal(map[string]string{"code": code})
		input := string(args)
		cut := keep >= 0 && keep < len(input)
		if cut {
			for keep > 0 && !utf8.RuneStart(input[keep]) {
				keep--
			}
			input = input[:max(keep, 1)] // "{" at least: an empty input is a tool without parameters
		}
		var b strings.Builder
		b.WriteString(ev("message_start", `{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"claude","usage":{"input_tokens":1,"output_tokens":1}}}`))
		b.WriteString(ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"ipybox_execute_ipython_cell","input":{}}}`))
		at := 0
		for _, c := range append(cuts, 255) {
			if at >= len(input) {
				break
			}
			n := min(1+int(c)%8, len(input)-at)
			for at+n < len(input) && !utf8.RuneStart(input[at+n]) {
				n++
			}
			d, _ := json.Marshal(map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]string{"type": "input_json_delta", "partial_json": input[at : at+n]}})
			b.WriteString(ev("content_block_delta", string(d)))
			at += n
		}
		if at < len(input) {
			d, _ := json.Marshal(map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]string{"type": "input_json_delta", "partial_json": input[at:]}})
			b.WriteString(ev("content_block_delta", string(d)))
		}
		b.WriteString(ev("content_block_stop", `{"type":"content_block_stop","index":0}`))
		stop := "tool_use"
		if cut {
			stop = "max_tokens"
		}
		b.WriteString(ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+stop+`"},"usage":{"output_tokens":9}}`))
		b.WriteString(ev("message_stop", `{"type":"message_stop"}`))

		var done *model.Done
		for c, err := range model.New(bodyBackend(b.String()), model.RetryPolicy{MaxAttempts: 1}).Stream(t.Context(), &model.Request{}) {
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
		if !cut {
			if len(calls) != 1 || !bytes.Equal(calls[0].Args, model.ArgsJSON(args)) || len(done.Cut) != 0 {
				t.Fatalf("whole reply: calls %+v, cut %+v", calls, done.Cut)
			}
			return
		}
		if !done.Message.Cut() || len(calls) != 0 || len(done.Cut) != 1 || done.Cut[0].ID != "toolu_1" {
			t.Fatalf("cut reply: calls %+v, cut %+v", calls, done.Cut)
		}
	})
}
