package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/mcp/mcptest"
)

// A server may send its own requests before the handshake is over: the
// handlers are in place before it starts, and one that fails, or panics,
// answers the server with a JSON-RPC error instead of taking the process
// down; a panic is also told to the user (a log notification).
func TestServerRequestDuringHandshake(t *testing.T) {
	tests := []struct {
		name   string
		sample func(context.Context, mcp.SampleRequest) (mcp.SampleResult, error)
		want   string // in the error answer
		told   bool   // the user is told of an internal failure
	}{
		{"handler refuses", func(context.Context, mcp.SampleRequest) (mcp.SampleResult, error) {
			return mcp.SampleResult{}, errors.New("not during the handshake")
		}, "not during the handshake", false},
		{"handler panics", func(context.Context, mcp.SampleRequest) (mcp.SampleResult, error) {
			var calls map[string]*struct{ n int }
			calls["x"].n++ // a nil pointer, as agent.sample had
			return mcp.SampleResult{}, nil
		}, "freeact failed to answer sampling/createMessage", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, answer := mcptest.AsksOnInitialize(t)
			var mu sync.Mutex
			var notes []mcp.Notification
			m := mcp.NewManager(map[string]config.Server{"asks": srv}, mcp.Options{Sample: tc.sample,
				OnNotify: func(n mcp.Notification) { mu.Lock(); notes = append(notes, n); mu.Unlock() }})
			defer m.Close()
			if err := m.Connect(t.Context()); err != nil {
				t.Fatalf("Connect: %v", err)
			}
			res, err := m.Call(t.Context(), "asks", "echo", json.RawMessage(`{"text":"x"}`))
			if err != nil || res.Text != "echo" {
				t.Fatalf("call after the request: %+v, %v", res, err)
			}
			b, err := os.ReadFile(answer)
			if err != nil {
				t.Fatalf("the server got no answer: %v", err)
			}
			var msg struct {
				Result json.RawMessage `json:"result"`
				Error  struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(b, &msg); err != nil || msg.Result != nil || msg.Error.Code == 0 || !strings.Contains(msg.Error.Message, tc.want) {
				t.Errorf("answer %s; want a JSON-RPC error saying %q", b, tc.want)
			}
			if strings.Contains(string(b), "nil pointer") || strings.Contains(string(b), "goroutine") {
				t.Errorf("the answer tells the server freeact's internals: %s", b)
			}
			mu.Lock()
			defer mu.Unlock()
			told := false
			for _, n := range notes {
				if n.Kind == "log" && n.Level == "error" && strings.Contains(n.Message, "sampling/createMessage") && strings.Contains(n.Message, `"asks"`) {
					told = true
				}
			}
			if told != tc.told {
				t.Errorf("notifications %+v; told of an internal failure: %v, want %v", notes, told, tc.told)
			}
		})
	}
}
