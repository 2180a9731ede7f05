package openai

import (
	"strings"
	"testing"
)

// BenchmarkReadStream measures parsing a chat completions stream of 1000
// content events and one tool call.
func BenchmarkReadStream(b *testing.B) {
	var sb strings.Builder
	for range 1000 {
		sb.WriteString(`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"token "}}]}` + "\n\n")
	}
	sb.WriteString(`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"code\":\"print(1)\"}"}}]},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n")
	body := sb.String()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, err := range readStream(strings.NewReader(body)) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 1002 {
			b.Fatalf("%d chunks", n)
		}
	}
}
