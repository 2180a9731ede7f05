package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/internal/testenv"
)

// A call stopped by the user is cancelled on a streamable HTTP server at a
// handshake version with notifications/cancelled (mcp-go sends it over
// stdio only): the Python SDK's server cancels the tool's task, which
// leaves a file, and the connection stays for the next call.
func TestCancelOverHTTP(t *testing.T) {
	for _, release := range []string{"1.30", "1.22"} {
		t.Run("python-mcp-"+release, func(t *testing.T) {
			m, logs := newManager(t, map[string]config.Server{"s": pythonServer(t, release, "http")}, mcp.Options{ConnectTimeout: time.Minute})
			if _, err := m.ServerTools(t.Context(), "s"); err != nil {
				t.Fatal(err)
			}
			if v := m.ProtocolVersion("s"); v == "2026-07-28" {
				t.Fatalf("settled on %s, want a handshake version", v)
			}
			mark := filepath.Join(t.TempDir(), "call")
			args, _ := json.Marshal(map[string]string{"path": mark})
			ctx, cancel := context.WithCancelCause(t.Context())
			done := make(chan error, 1)
			go func() {
				_, err := m.Call(ctx, "s", "wait_cancelled", args)
				done <- err
			}()
			exists := func(p string) func() error {
				return func() error { _, err := os.Stat(p); return err }
			}
			testenv.Eventually(t, time.Minute, exists(mark+".started"))
			cancel(errors.New("stopped by the user"))
			if err := testenv.Receive(t, done, time.Minute, "the cancelled call"); err == nil || !errors.Is(err, context.Canceled) && !errors.Is(err, context.Cause(ctx)) {
				t.Errorf("cancelled call: %v", err)
			}
			testenv.Eventually(t, time.Minute, exists(mark+".cancelled"))
			res, err := m.Call(t.Context(), "s", "add", json.RawMessage(`{"a": 2, "b": 40}`))
			if err != nil || res.Text != "42" {
				t.Fatalf("the call after the cancel: %+v %v", res, err)
			}
			// Not by ending the session: the connection stayed.
			if l := logs.String(); strings.Contains(l, "connection dropped") || strings.Count(l, "MCP server connected") != 1 {
				t.Errorf("the connection did not stay:\n%s", l)
			}
		})
	}
}

// A call's timeout stops while the user answers the server's form: with a
// call timeout of half a second, a call whose form the user answers after
// two seconds succeeds, over stdio and streamable HTTP.
func TestCallTimeoutStopsWhileAsking(t *testing.T) {
	js := refServer(t, "server-everything")
	for _, tr := range []struct {
		name string
		cfg  config.Server
	}{
		{"stdio", config.Server{Command: "node", Args: []string{js, "stdio"}}},
		{"http", config.Server{URL: everythingHTTP(t, js)}},
	} {
		t.Run(tr.name, func(t *testing.T) {
			const limit = 500 * time.Millisecond
			m, _ := newManager(t, map[string]config.Server{"everything": tr.cfg}, mcp.Options{
				ConnectTimeout: 30 * time.Second,
				CallTimeout:    limit,
				Elicit: func(context.Context, mcp.Form) (mcp.Answer, error) {
					// The user reads the form for a while: four times the
					// call's limit.
					time.Sleep(4 * limit)
					return mcp.Answer{Action: "accept", Values: map[string]any{"name": "Ada Lovelace", "check": true, "email": "ada@example.com",
						"homepage": "https://example.com", "birthdate": "1815-12-10", "untitledMultipleSelectEnum": []any{"Piano"}}}, nil
				},
			})
			if _, err := m.ServerTools(t.Context(), "everything"); err != nil {
				t.Fatal(err)
			}
			res, err := m.Call(t.Context(), "everything", "trigger-elicitation-request", nil)
			if err != nil || !strings.Contains(res.ModelText(), "Ada Lovelace") {
				t.Fatalf("a call whose form took longer than the call's limit: %+v %v", res, err)
			}
			// The limit still holds for the server's own time.
			_, err = m.Call(t.Context(), "everything", "trigger-long-running-operation", json.RawMessage(`{"duration": 5, "steps": 2}`))
			if err == nil || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("a call longer than the limit: %v", err)
			}
		})
	}
}
