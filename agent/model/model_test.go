package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestAccumulatorMergesUntilSignature(t *testing.T) {
	acc := accumulator{msg: Message{Role: RoleModel}}
	for _, c := range []Chunk{
		ThoughtDelta{Text: "a"},
		ThoughtDelta{Text: "b", Signature: []byte("s1")}, // closes the thought
		ThoughtDelta{Text: "c"},                          // a new thought part
		TextDelta{Text: "x"},
		TextDelta{Text: "y"},
		FunctionCallChunk{Call: FunctionCall{Name: "f"}, Signature: []byte("s2")},
		FunctionCallChunk{Call: FunctionCall{ID: "given", Name: "g", Args: []byte(`{"k":1}`)}},
		TextDelta{Text: "", Signature: []byte("s3")}, // signature-only part
	} {
		acc.add(c)
	}
	m := acc.finish()
	got := make([]string, len(m.Parts))
	for i, p := range m.Parts {
		switch {
		case p.FunctionCall != nil:
			got[i] = fmt.Sprintf("call %s %s sig=%s", p.FunctionCall.Name, p.FunctionCall.Args, p.Signature)
		default:
			got[i] = fmt.Sprintf("text %q thought=%v sig=%s", p.Text, p.Thought, p.Signature)
		}
	}
	want := []string{
		`text "ab" thought=true sig=s1`,
		`text "c" thought=true sig=`,
		`text "xy" thought=false sig=`,
		`call f {} sig=s2`,
		`call g {"k":1} sig=`,
		`text "" thought=false sig=s3`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parts:\n got %q\nwant %q", got, want)
	}
	if id := m.Parts[3].FunctionCall.ID; !strings.HasPrefix(id, CallIDPrefix) || len(id) != len(CallIDPrefix)+16 {
		t.Errorf("generated call ID %q", id)
	}
	if m.Parts[4].FunctionCall.ID != "given" {
		t.Errorf("provider's call ID was replaced")
	}
	if m.Stop != StopEnd {
		t.Errorf("stop = %q", m.Stop)
	}
	if err := m.Validate(); err != nil {
		t.Errorf("accumulated message invalid: %v", err)
	}
}

func TestRetryDelay(t *testing.T) {
	p := RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}.withDefaults()
	if p.MaxAttempts != 6 {
		t.Errorf("default attempts %d", p.MaxAttempts)
	}
	for attempt, step := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 4: 800 * time.Millisecond, 5: time.Second, 60: time.Second} {
		seen := map[time.Duration]bool{}
		for range 200 {
			d := p.delay(attempt, errors.New("x"))
			if d < step/2 || d > step {
				t.Fatalf("attempt %d: delay %v outside [%v, %v]", attempt, d, step/2, step)
			}
			seen[d] = true
		}
		if len(seen) < 10 {
			t.Errorf("attempt %d: only %d distinct delays; want jitter", attempt, len(seen))
		}
	}
	if d := p.delay(1, &APIError{StatusCode: 429, RetryAfter: 300 * time.Millisecond}); d != 300*time.Millisecond {
		t.Errorf("Retry-After not honoured: %v", d)
	}
	if d := p.delay(1, &APIError{StatusCode: 429, RetryAfter: time.Hour}); d != time.Second {
		t.Errorf("Retry-After not capped: %v", d)
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

var _ net.Error = timeoutErr{}

func TestIsTransient(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&APIError{StatusCode: 429}, true},
		{&APIError{StatusCode: 500}, true},
		{&APIError{StatusCode: 500, Message: "internal error"}, true},
		// llama.cpp's answer to a request with broken tool call arguments.
		{&APIError{StatusCode: 500, Status: "server_error", Message: "Failed to parse tool call arguments as JSON: [json.exception.parse_error.101]"}, false},
		{&APIError{StatusCode: 500, Message: "Invalid 'messages[2].tool_calls'"}, false},
		{&APIError{StatusCode: 501}, false},
		{&APIError{StatusCode: 502}, true},
		{&APIError{StatusCode: 503}, true},
		{&APIError{StatusCode: 504}, true},
		{&APIError{StatusCode: 529, Status: "overloaded_error"}, true},
		{&APIError{StatusCode: 408}, false},
		{&APIError{StatusCode: 413}, false},
		{&APIError{StatusCode: 400}, false},
		{&APIError{StatusCode: 401}, false},
		{&APIError{StatusCode: 404}, false},
		{fmt.Errorf("read: %w", &os.SyscallError{Syscall: "read", Err: syscall.ECONNRESET}), true},
		{fmt.Errorf("stream: %w", io.ErrUnexpectedEOF), true},
		// The server closed while the request was still being written:
		// Go's transport closed its side on reading the end first.
		{&url.Error{Op: "Post", URL: "http://127.0.0.1:1", Err: &net.OpError{Op: "write", Net: "tcp", Err: net.ErrClosed}}, true},
		{&net.OpError{Op: "read", Err: timeoutErr{}}, true},
		{context.Canceled, false},
		{syscall.ECONNREFUSED, false},
		{errors.New("malformed stream event"), false},
	}
	for _, tt := range tests {
		if got := IsTransient(tt.err); got != tt.want {
			t.Errorf("IsTransient(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestAPIErrorMessage(t *testing.T) {
	for _, tt := range []struct {
		err  APIError
		want string
	}{
		{APIError{Model: "openai:gpt-5", StatusCode: 401, Message: "bad key"}, "openai:gpt-5: HTTP 401: bad key (check the API key)"},
		{APIError{Model: "google:x", StatusCode: 404, Status: "NOT_FOUND", Message: "no such model"}, "google:x: HTTP 404 NOT_FOUND: no such model (check the model name)"},
		{APIError{Model: "google:x", StatusCode: 500}, "google:x: HTTP 500"},
	} {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func TestPartialMessage(t *testing.T) {
	partial := Message{Role: RoleModel, Parts: []Part{{Text: "half"}}}
	err := fmt.Errorf("turn: %w", &StreamError{Partial: partial, Err: context.Canceled})
	got, ok := PartialMessage(err)
	if !ok || got.Text() != "half" || !errors.Is(err, context.Canceled) {
		t.Errorf("PartialMessage = %+v, %v; Is canceled %v", got, ok, errors.Is(err, context.Canceled))
	}
	if _, ok := PartialMessage(errors.New("x")); ok {
		t.Error("PartialMessage found a message in a plain error")
	}
}
