// Package mcptest provides a real MCP server (mark3labs/mcp-go) for tests:
// the same set of tools served over stdio by the test binary itself
// (re-executed with an environment variable; call Main from TestMain) or
// over streamable HTTP from an httptest server.
//
// Its tools: echo (text), add (structured result with an output schema),
// fail (an error result), crash (the stdio process exits; marked
// destructive), hang (blocks until
// cancelled; with "started" it first creates that file, so a test knows the
// call is in the server), pid (the serving process id), log (a line to stderr),
// whereami (working directory and an environment variable), secret (for
// excluded_tools), search_web (nested parameters), flood (sends "count"
// progress notifications and as many log messages, each "size" bytes at
// "level" when given, then answers), grow
// (adds the tool grown and says the tools changed) and ask (a form,
// elicitation; with "nested" one no client need show). The HTTP endpoint refuses requests without the header HTTP
// configures; NewOAuth serves the tools behind an OAuth authorization
// server instead, for sign-in tests.
package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/freeact/desktop/agent/config"
)

// EnvVar set to "stdio" makes Main serve the tools on stdin/stdout.
const EnvVar = "FREEACT_MCPTEST_SERVE"

// Main serves the test tools over stdio and exits when the test binary was
// started as a server (EnvVar set); otherwise it returns at once. Call it
// first in TestMain.
func Main() {
	if mode := os.Getenv(EnvVar); mode == askingMode || mode == formingMode {
		if err := serveAsking(mode); err != nil {
			fmt.Fprintln(os.Stderr, "mcptest server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(EnvVar) != "stdio" {
		return
	}
	fmt.Fprintln(os.Stderr, "mcptest server starting, pid", os.Getpid())
	if err := server.ServeStdio(New()); err != nil {
		fmt.Fprintln(os.Stderr, "mcptest server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// ConnectTimeout is the connect_timeout, in seconds, of the configurations
// Stdio and HTTP return. These servers are never the one a test expects to
// fail, and the test binary (built with -race) can take longer than the
// default 10 s to start on a loaded machine.
const ConnectTimeout = 60.0

func connectTimeout() *float64 {
	v := ConnectTimeout
	return &v
}

// Stdio returns the configuration of a stdio server running the test binary
// (whose TestMain calls Main).
func Stdio(t testing.TB) config.Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("find the test binary: %v", err)
	}
	return config.Server{Command: exe, Args: []string{"-test.run=^$"}, Env: map[string]string{EnvVar: "stdio"}, ConnectTimeout: connectTimeout()}
}

// HTTP starts the test tools on a streamable HTTP endpoint for the test's
// lifetime and returns its configuration.
func HTTP(t testing.TB) config.Server {
	t.Helper()
	h := server.NewStreamableHTTPServer(New())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Test") != "1" { // the configured headers are sent
			http.Error(w, "missing X-Test header", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return config.Server{URL: srv.URL + "/mcp", Headers: map[string]string{"X-Test": "1"}, ConnectTimeout: connectTimeout()}
}

func text(s string) *mcp.CallToolResult { return mcp.NewToolResultText(s) }

// New returns an MCP server with the test tools.
func New() *server.MCPServer {
	// listed gets a value each time a client lists the tools (grow waits
	// for it).
	listed := make(chan struct{}, 1)
	hooks := &server.Hooks{}
	hooks.AddAfterListTools(func(context.Context, any, *mcp.ListToolsRequest, *mcp.ListToolsResult) {
		select {
		case listed <- struct{}{}:
		default:
		}
	})
	s := server.NewMCPServer("mcptest", "1.0.0", server.WithToolCapabilities(false), server.WithHooks(hooks))
	add := func(name, desc, input, output string, h server.ToolHandlerFunc) {
		t := mcp.NewToolWithRawSchema(name, desc, json.RawMessage(input))
		if output != "" {
			t.RawOutputSchema = json.RawMessage(output)
		}
		yes, no := true, false
		switch name {
		case "echo":
			// Hints that must be shown on the approval, and allow nothing.
			t.Annotations = mcp.ToolAnnotation{Title: "Echo back", ReadOnlyHint: &yes, IdempotentHint: &yes, OpenWorldHint: &no}
		case "crash":
			// Destructive: its approval offers no lasting rule.
			t.Annotations = mcp.ToolAnnotation{ReadOnlyHint: &no, DestructiveHint: &yes}
		}
		s.AddTool(t, h)
	}
	add("echo", "Echo the text back.", `{"type":"object","properties":{"text":{"type":"string","description":"What to echo."}},"required":["text"]}`, "",
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("echo: " + r.GetString("text", "")), nil
		})
	add("add", "Add two numbers.", `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`,
		`{"type":"object","properties":{"sum":{"type":"number","description":"a + b"}},"required":["sum"]}`,
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			sum := r.GetFloat("a", 0) + r.GetFloat("b", 0)
			return mcp.NewToolResultStructured(map[string]any{"sum": sum}, fmt.Sprint(sum)), nil
		})
	add("fail", "Always fails.", `{"type":"object","properties":{"message":{"type":"string"}}}`, "",
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("failed on purpose: " + r.GetString("message", "")), nil
		})
	add("crash", "Ends the server process (stdio only).", `{"type":"object","properties":{}}`, "",
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if os.Getenv(EnvVar) == "stdio" {
				os.Exit(3)
			}
			return mcp.NewToolResultError("crash only works over stdio"), nil
		})
	add("hang", "Never answers.", `{"type":"object","properties":{"started":{"type":"string","description":"A file to create first."}}}`, "",
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if p := r.GetString("started", ""); p != "" {
				if err := os.WriteFile(p, nil, 0o644); err != nil {
					return nil, err
				}
			}
			<-ctx.Done()
			return nil, ctx.Err()
		})
	add("pid", "The server's process id.", `{"type":"object","properties":{}}`, "",
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(fmt.Sprint(os.Getpid())), nil
		})
	add("log", "Writes a line to stderr.", `{"type":"object","properties":{"line":{"type":"string"}},"required":["line"]}`, "",
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, r.GetString("line", ""))
			return text("logged"), nil
		})
	add("whereami", "The server's working directory and $MCPTEST_VALUE.", `{"type":"object","properties":{}}`, "",
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			wd, _ := os.Getwd()
			return text(wd + " " + os.Getenv("MCPTEST_VALUE")), nil
		})
	add("secret", "Must never be offered.", `{"type":"object","properties":{}}`, "",
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("the secret"), nil
		})
	add("search_web", "Search the web.\nReturns matching pages.", `{
		"type": "object",
		"properties": {
			"query": {"type": "string", "description": "Search terms."},
			"options": {"type": "object", "description": "Search options.", "properties": {
				"max_results": {"type": "integer", "default": 5},
				"safe": {"type": "string", "enum": ["off", "moderate", "strict"], "default": "moderate"}
			}},
			"sites": {"type": "array", "items": {"type": "string"}}
		},
		"required": ["query"]}`,
		`{"type":"object","properties":{"results":{"type":"array","items":{"type":"object","properties":{"title":{"type":"string"},"url":{"type":"string"}},"required":["title","url"]}}},"required":["results"]}`,
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			q := r.GetString("query", "")
			res := map[string]any{"results": []map[string]any{
				{"title": "About " + q, "url": "https://example.com/1"},
				{"title": "More on " + q, "url": "https://example.com/2"},
			}}
			b, _ := json.Marshal(res)
			return mcp.NewToolResultStructured(res, string(b)), nil
		})
	add("flood", "Sends count progress notifications and log messages (at level, info by default; each size bytes long when size is given).", `{"type":"object","properties":{"count":{"type":"integer"},"size":{"type":"integer"},"level":{"type":"string"}},"required":["count"]}`, "",
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n, size, level := r.GetInt("count", 0), r.GetInt("size", 0), r.GetString("level", "info")
			pad := func(s string) string {
				if len(s) < size {
					s += strings.Repeat("x", size-len(s))
				}
				return s
			}
			var token any
			if r.Params.Meta != nil {
				token = r.Params.Meta.ProgressToken
			}
			srv := server.ServerFromContext(ctx)
			for i := 1; i <= n; i++ {
				if token != nil {
					send(ctx, srv, "notifications/progress", map[string]any{"progressToken": token, "progress": i, "total": n, "message": pad(fmt.Sprintf("step %d of %d", i, n))})
				}
				send(ctx, srv, "notifications/message", map[string]any{"level": level, "data": pad(fmt.Sprintf("line %d", i))})
			}
			return text(fmt.Sprintf("sent %d", n)), nil
		})
	add("grow", "Adds the tool grown (echo under another name), says the tools changed and answers once the client listed them again.", `{"type":"object","properties":{}}`, "",
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-listed:
			default:
			}
			t := mcp.NewToolWithRawSchema("grown", "A tool added by grow.", json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`))
			s.AddTool(t, func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text("grown: " + r.GetString("text", "")), nil
			})
			if err := s.SendNotificationToClient(ctx, string(mcp.MethodNotificationToolsListChanged), nil); err != nil {
				return nil, err
			}
			select {
			case <-listed:
				return text("grown"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	add("ask", "Asks the user for a profile (a form) and returns the answer.", `{"type":"object","properties":{"url":{"type":"boolean","description":"Ask to open a page instead."},"nested":{"type":"boolean","description":"Ask for a form no client need show (NestedSchema)."}}}`, "",
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if res := server.ElicitationResponse(r.Params.InputResponses, "profile"); res != nil {
				answer := map[string]any{"action": res.Action, "content": res.Content}
				if res.Meta != nil {
					answer["_meta"] = res.Meta.AdditionalFields
				}
				b, _ := json.Marshal(answer)
				return text(string(b)), nil
			}
			p := mcp.ElicitationParams{Message: "Tell us about yourself.", RequestedSchema: json.RawMessage(ProfileSchema)}
			switch {
			case r.GetBool("url", false):
				p = mcp.ElicitationParams{Mode: mcp.ElicitationModeURL, Message: "Confirm on the page.", URL: "https://example.org/confirm", ElicitationID: "e1"}
			case r.GetBool("nested", false):
				p.RequestedSchema = json.RawMessage(NestedSchema)
			}
			return server.NewInputRequestBuilder("").Elicit("profile", p).ToolResult(), nil
		})
	return s
}

// send sends a notification, waiting while mcp-go's queue to the client
// is full (it drops what does not fit).
func send(ctx context.Context, srv *server.MCPServer, method string, params map[string]any) {
	for ctx.Err() == nil && errors.Is(srv.SendNotificationToClient(ctx, method, params), server.ErrNotificationChannelBlocked) {
		time.Sleep(time.Millisecond)
	}
}

// NestedSchema is a form outside what elicitation allows (a flat object
// of primitive fields): an address object and a list of objects. The
// tool "ask" requests it with "nested".
const NestedSchema = `{"type":"object","properties":{
	"name":{"type":"string"},
	"address":{"type":"object","properties":{"city":{"type":"string"}}},
	"pets":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}}
},"required":["name"]}`

// ProfileSchema is the form the tool "ask" requests: a required name of 2
// to 20 characters, an email, an integer age from 0 to 150 (default 30),
// a boolean with a default, a titled single choice and a multi-select.
const ProfileSchema = `{"type":"object","properties":{
	"name":{"type":"string","title":"Name","minLength":2,"maxLength":20},
	"email":{"type":"string","title":"Email","format":"email"},
	"age":{"type":"integer","title":"Age","minimum":0,"maximum":150,"default":30},
	"news":{"type":"boolean","title":"Send news","default":true},
	"colour":{"type":"string","title":"Colour","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}],"default":"g"},
	"tags":{"type":"array","title":"Tags","items":{"anyOf":[{"const":"a","title":"Alpha"},{"const":"b","title":"Beta"}]}}
},"required":["name","email"]}`
