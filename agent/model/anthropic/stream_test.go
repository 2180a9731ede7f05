package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/model"
)

func ev(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }

func render(body string) []string {
	var out []string
	for c, err := range readStream(strings.NewReader(body)) {
		if err != nil {
			out = append(out, fmt.Sprintf("error: %v (transient %v)", err, model.IsTransient(err)))
			break
		}
		switch c := c.(type) {
		case model.ThoughtDelta:
			out = append(out, fmt.Sprintf("thought %q sig=%s", c.Text, c.Signature))
		case model.TextDelta:
			out = append(out, "text "+c.Text)
		case model.FunctionCallChunk:
			out = append(out, fmt.Sprintf("call %s %s %s", c.Call.ID, c.Call.Name, c.Call.Args))
		case model.Finish:
			out = append(out, "finish "+string(c.Reason))
		case model.UsageChunk:
			out = append(out, fmt.Sprintf("usage %+v", c.Usage))
		}
	}
	return out
}

func TestReadStream(t *testing.T) {
	start := ev("message_start", `{"type":"message_start","message":{"usage":{"input_tokens":10,"cache_read_input_tokens":90,"output_tokens":1}}}`)
	tests := []struct {
		name, body string
		want       []string
	}{
		{
			name: "tool call without input, cached prompt, redacted thinking skipped",
			body: start +
				ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"xyz"}}`) +
				ev("content_block_stop", `{"type":"content_block_stop","index":0}`) +
				ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"ipybox_reset","input":{}}}`) +
				ev("content_block_stop", `{"type":"content_block_stop","index":1}`) +
				ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":7}}`) +
				ev("message_stop", `{"type":"message_stop"}`),
			want: []string{"call toolu_1 ipybox_reset {}", "finish end", "usage {InputTokens:100 OutputTokens:7 ThinkingTokens:0 CachedTokens:90}"},
		},
		{
			name: "tool call cut before its input at max_tokens is not {}",
			body: start +
				ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"ipybox_execute_ipython_cell","input":{}}}`) +
				ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}`) +
				ev("content_block_stop", `{"type":"content_block_stop","index":0}`) +
				ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":16}}`) +
				ev("message_stop", `{"type":"message_stop"}`),
			want: []string{`call toolu_1 ipybox_execute_ipython_cell ""`, "finish max_tokens", "usage {InputTokens:100 OutputTokens:16 ThinkingTokens:0 CachedTokens:90}"},
		},
		{
			name: "tool call without input that the reply went on after is whole",
			body: start +
				ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"ipybox_reset","input":{}}}`) +
				ev("content_block_stop", `{"type":"content_block_stop","index":0}`) +
				ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`) +
				ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"and"}}`) +
				ev("content_block_stop", `{"type":"content_block_stop","index":1}`) +
				ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":16}}`) +
				ev("message_stop", `{"type":"message_stop"}`),
			want: []string{"call toolu_1 ipybox_reset {}", "text and", "finish max_tokens", "usage {InputTokens:100 OutputTokens:16 ThinkingTokens:0 CachedTokens:90}"},
		},
		{
			name: "signature in two pieces closes the thinking block",
			body: start +
				ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`) +
				ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"so"}}`) +
				ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"ab"}}`) +
				ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"cd"}}`) +
				ev("content_block_stop", `{"type":"content_block_stop","index":0}`) +
				ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":3}}`) +
				ev("message_stop", `{"type":"message_stop"}`),
			want: []string{`thought "so" sig=`, `thought "" sig=abcd`, "finish max_tokens", "usage {InputTokens:100 OutputTokens:3 ThinkingTokens:0 CachedTokens:90}"},
		},
		{
			name: "overloaded in the stream is transient",
			body: start + ev("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
			want: []string{"error: : HTTP 529 overloaded_error: Overloaded (transient true)"},
		},
		{
			name: "ends without message_stop",
			body: start + ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
				ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"cut"}}`),
			want: []string{"text cut", "error: stream ended before message_stop: unexpected EOF (transient true)"},
		},
		{
			name: "not JSON",
			body: start + "data: {oops\n\n",
			want: []string{`error: malformed stream event "{oops": invalid character 'o' looking for beginning of object key string (transient false)`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := render(tt.body)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

// FuzzReadStream: no panics, and calls always carry JSON arguments.
func FuzzReadStream(f *testing.F) {
	f.Add(ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"n"}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a"}}`) +
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`) + ev("message_stop", `{"type":"message_stop"}`))
	f.Add(ev("content_block_delta", `{"type":"content_block_delta","index":5,"delta":{"type":"text_delta","text":"x"}}`))
	f.Add("data: {\"type\":\"error\"}\n\n")
	f.Fuzz(func(t *testing.T, body string) {
		for c, err := range readStream(strings.NewReader(body)) {
			if err != nil {
				return
			}
			if fc, ok := c.(model.FunctionCallChunk); ok && !json.Valid(fc.Call.Args) {
				t.Fatalf("args %q", fc.Call.Args)
			}
		}
	})
}
