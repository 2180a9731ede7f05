package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/model"
)

// render lists what readStream yields, one line a chunk.
func render(body string) []string {
	var out []string
	for c, err := range readStream(strings.NewReader(body)) {
		if err != nil {
			out = append(out, "error: "+err.Error())
			break
		}
		switch c := c.(type) {
		case model.ThoughtDelta:
			out = append(out, "thought "+c.Text)
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
	tests := []struct {
		name string
		body string
		want []string
	}{
		{
			name: "ollama: reasoning field, whole tool call without index, no [DONE]",
			body: `data: {"choices":[{"delta":{"role":"assistant","reasoning":"hmm"}}]}

data: {"choices":[{"delta":{"tool_calls":[{"id":"call_a","function":{"name":"f","arguments":"{\"x\": 1}"}}]}}]}

data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}
`,
			want: []string{"thought hmm", `call call_a f {"x":1}`, "finish end"},
		},
		{
			name: "interleaved indexed calls, usage with reasoning tokens, CRLF, comments",
			body: ": keep-alive\r\n\r\n" +
				`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c0","function":{"name":"a","arguments":""}},{"index":1,"id":"c1","function":{"name":"b","arguments":"{\"q\""}}]}}]}` + "\r\n\r\n" +
				`data: {"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":":2}"}},{"index":0,"function":{"arguments":"{}"}}]}}]}` + "\r\n\r\n" +
				`data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}` + "\r\n\r\n" +
				`data: {"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":30,"completion_tokens_details":{"reasoning_tokens":20},"prompt_tokens_details":{"cached_tokens":4}}}` + "\r\n\r\n" +
				"data: [DONE]\r\n\r\n",
			want: []string{"call c0 a {}", `call c1 b {"q":2}`, "finish end", "usage {InputTokens:10 OutputTokens:10 ThinkingTokens:20 CachedTokens:4}"},
		},
		{
			name: "reasoning_content and content, length limit",
			body: `data: {"choices":[{"delta":{"reasoning_content":"think"}}]}

data: {"choices":[{"delta":{"content":"Hel"}}]}

data: {"choices":[{"delta":{"content":"lo"},"finish_reason":"length"}]}

data: [DONE]
`,
			want: []string{"thought think", "text Hel", "text lo", "finish max_tokens"},
		},
		{
			name: "data split over two lines",
			body: "data: {\"choices\":[{\"delta\":\ndata: {\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n",
			want: []string{"text ok", "finish end"},
		},
		{
			name: "invalid tool arguments are kept as a string",
			body: `data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{oops"}}]},"finish_reason":"tool_calls"}]}

data: [DONE]
`,
			want: []string{`call c f "{oops"`, "finish end"},
		},
		{
			name: "error event",
			body: `data: {"choices":[{"delta":{"content":"a"}}]}

data: {"error":{"message":"upstream overloaded","type":"server_error"}}
`,
			want: []string{"text a", "error: : HTTP 500 server_error: upstream overloaded"},
		},
		{
			name: "ends early",
			body: `data: {"choices":[{"delta":{"content":"a"}}]}
`,
			want: []string{"text a", "error: stream ended before the response was complete: unexpected EOF"},
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

func TestReadStreamEarlyEndIsTransient(t *testing.T) {
	var last error
	for _, err := range readStream(strings.NewReader("")) {
		last = err
	}
	if !errors.Is(last, io.ErrUnexpectedEOF) || !model.IsTransient(last) {
		t.Errorf("empty body: %v", last)
	}
}

// FuzzReadStream feeds arbitrary bodies: the reader must not panic, and every
// call it yields must carry valid JSON arguments.
func FuzzReadStream(f *testing.F) {
	f.Add("data: {\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	f.Add("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"{\"}}]}}]}\n\n")
	f.Add("data: {\"error\":{\"message\":\"m\"}}\n\n")
	f.Add(":\n\ndata:\n\nevent: x\nid: 1\n\n")
	f.Fuzz(func(t *testing.T, body string) {
		for c, err := range readStream(strings.NewReader(body)) {
			if err != nil {
				return
			}
			if fc, ok := c.(model.FunctionCallChunk); ok && !json.Valid(fc.Call.Args) {
				t.Fatalf("call args %q are not JSON", fc.Call.Args)
			}
		}
	})
}
