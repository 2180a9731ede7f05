package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/internal/testenv"
)

func TestMain(m *testing.M) {
	mcptest.Main()
	os.Exit(m.Run())
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newManager(t *testing.T, servers map[string]config.Server, opts mcp.Options) (*mcp.Manager, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	opts.Log = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	m := mcp.NewManager(servers, opts)
	t.Cleanup(func() { _ = m.Close() })
	return m, logs
}

func transports(t *testing.T) []struct {
	name string
	cfg  config.Server
} {
	return []struct {
		name string
		cfg  config.Server
	}{{"stdio", mcptest.Stdio(t)}, {"http", mcptest.HTTP(t)}}
}

func TestCalls(t *testing.T) {
	for _, tr := range transports(t) {
		t.Run(tr.name, func(t *testing.T) {
			cfg := tr.cfg
			cfg.ExcludedTools = []string{"secret"}
			if tr.name == "stdio" {
				cfg.Cwd = t.TempDir()
				cfg.Env = map[string]string{mcptest.EnvVar: "stdio", "MCPTEST_VALUE": "from env"}
			}
			m, _ := newManager(t, map[string]config.Server{"test": cfg}, mcp.Options{})
			ctx := context.Background()
			if err := m.Connect(ctx); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range m.Tools() {
				names = append(names, tool.Name)
				if tool.Server != "test" {
					t.Errorf("tool %s has server %q", tool.Name, tool.Server)
				}
			}
			if got := strings.Join(names, ","); got != "add,ask,crash,echo,fail,flood,grow,hang,log,pid,search_web,whereami" {
				t.Errorf("tools = %s", got)
			}
			tests := []struct {
				tool, args string
				text       string
				structured string
				isError    bool
				err        []string
			}{
				{tool: "echo", args: `{"text": "hi \"there\""}`, text: `echo: hi "there"`},
				{tool: "add", args: `{"a": 2, "b": 3.5}`, text: "5.5", structured: `{"sum":5.5}`},
				{tool: "fail", args: `{"message": "boom"}`, text: "failed on purpose: boom", isError: true},
				{tool: "echo", args: `[1]`, err: []string{`MCP server "test"`, `tool "echo"`, "not a JSON object"}},
				{tool: "nope", args: `{}`, err: []string{`MCP server "test"`, `tool "nope"`}},
				{tool: "secret", args: `{}`, err: []string{`MCP server "test"`, "excluded_tools"}},
			}
			for _, tt := range tests {
				res, err := m.Call(ctx, "test", tt.tool, json.RawMessage(tt.args))
				if len(tt.err) > 0 {
					var me *mcp.Error
					if !errors.As(err, &me) {
						t.Fatalf("%s: error %v is not an *mcp.Error", tt.tool, err)
					}
					for _, w := range tt.err {
						if !strings.Contains(err.Error(), w) {
							t.Errorf("%s: error %q does not mention %q", tt.tool, err, w)
						}
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", tt.tool, err)
				}
				if res.Text != tt.text || string(res.Structured) != tt.structured || res.IsError != tt.isError {
					t.Errorf("%s: got %+v (structured %s)", tt.tool, res, res.Structured)
				}
			}
			if tr.name == "stdio" {
				res, err := m.Call(ctx, "test", "whereami", nil)
				if err != nil || res.Text != cfg.Cwd+" from env" {
					t.Errorf("whereami: %+v %v", res, err)
				}
			}
			if _, err := m.Call(ctx, "other", "echo", nil); !errors.Is(err, mcp.ErrUnknownServer) || !strings.Contains(err.Error(), `"other"`) {
				t.Errorf("unknown server: %v", err)
			}
		})
	}
}

// A server that does not start is an error naming it; the others work, and
// the failed one is tried again on its next call.
func TestConnectFailure(t *testing.T) {
	m, _ := newManager(t, map[string]config.Server{
		"good":    mcptest.Stdio(t),
		"missing": {Command: "/nonexistent/freeact-mcp-server"},
		"down":    {URL: "http://127.0.0.1:1/mcp"},
	}, mcp.Options{ConnectTimeout: 10 * time.Second})
	ctx := context.Background()
	err := m.Connect(ctx)
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{`MCP server "missing"`, "/nonexistent/freeact-mcp-server", `MCP server "down"`, "127.0.0.1:1"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
	if strings.Contains(err.Error(), `"good"`) {
		t.Errorf("the good server is reported: %v", err)
	}
	if res, err := m.Call(ctx, "good", "echo", json.RawMessage(`{"text":"x"}`)); err != nil || res.Text != "echo: x" {
		t.Fatalf("good server: %v %v", res, err)
	}
	if _, err := m.Call(ctx, "missing", "echo", nil); err == nil || !strings.Contains(err.Error(), `MCP server "missing"`) {
		t.Fatalf("missing server call: %v", err)
	}
}

func pidOf(t *testing.T, m *mcp.Manager) int {
	t.Helper()
	res, err := m.Call(context.Background(), "test", "pid", nil)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(res.Text)
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitGone waits for a server process to end.
func waitGone(t *testing.T, what string, pid int) {
	t.Helper()
	testenv.Eventually(t, time.Minute, func() error {
		if exists(pid) {
			return fmt.Errorf("%s (pid %d) still exists", what, pid)
		}
		return nil
	})
}

// startedFile returns a path for the hang tool's "started" argument and a
// wait for the file: the call has reached the server.
func startedFile(t *testing.T) (string, func()) {
	p := filepath.Join(t.TempDir(), "started")
	return p, func() {
		t.Helper()
		testenv.Eventually(t, time.Minute, func() error {
			_, err := os.Stat(p)
			return err
		})
	}
}

// A server that dies during a call gives an error result; the next call
// starts it again.
func TestCrashRestarts(t *testing.T) {
	var mu sync.Mutex
	connects := 0
	m, logs := newManager(t, map[string]config.Server{"test": mcptest.Stdio(t)}, mcp.Options{
		OnConnect: func(_ context.Context, server string, tools []mcp.Tool) {
			mu.Lock()
			defer mu.Unlock()
			if server == "test" && len(tools) == 13 {
				connects++
			}
		},
	})
	ctx := context.Background()
	first := pidOf(t, m)
	_, err := m.Call(ctx, "test", "crash", nil)
	if err == nil || !strings.Contains(err.Error(), `MCP server "test"`) || !strings.Contains(err.Error(), `tool "crash"`) {
		t.Fatalf("crash: %v", err)
	}
	second := pidOf(t, m)
	if second == first {
		t.Fatal("the server was not restarted")
	}
	waitGone(t, "crashed server", first)
	mu.Lock()
	if connects != 2 {
		t.Errorf("OnConnect called %d times, want 2", connects)
	}
	mu.Unlock()
	if !strings.Contains(logs.String(), "mcptest server starting") {
		t.Errorf("server stderr not in the log:\n%s", logs)
	}
}

// A hung call ends at the call timeout or when its context is cancelled, and
// the next call works. The servers are connected first: the call timeout
// does not cover connecting, and a cancel must reach a call in the server.
func TestHungCall(t *testing.T) {
	t.Parallel() // it waits on timeouts
	for _, tr := range transports(t) {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			m, _ := newManager(t, map[string]config.Server{"test": tr.cfg}, mcp.Options{CallTimeout: 300 * time.Millisecond})
			ctx := context.Background()
			if err := m.Connect(ctx); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err := m.Call(ctx, "test", "hang", nil)
			if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `MCP server "test"`) {
				t.Fatalf("timeout: %v", err)
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("a 300 ms call timeout took %s", d)
			}
			m2, _ := newManager(t, map[string]config.Server{"test": tr.cfg}, mcp.Options{})
			if err := m2.Connect(ctx); err != nil {
				t.Fatal(err)
			}
			started, waitStarted := startedFile(t)
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			errc := make(chan error, 1)
			go func() {
				_, err := m2.Call(cctx, "test", "hang", json.RawMessage(fmt.Sprintf(`{"started": %q}`, started)))
				errc <- err
			}()
			waitStarted()
			cancel()
			// Without the cancel the call hangs: the wait is a safety net.
			if err := testenv.Receive(t, errc, time.Minute, "the end of the cancelled call"); err == nil || !strings.Contains(err.Error(), "cancelled") {
				t.Fatalf("cancel: %v", err)
			}
			for _, mm := range []*mcp.Manager{m, m2} {
				if res, err := mm.Call(ctx, "test", "echo", json.RawMessage(`{"text":"again"}`)); err != nil || res.Text != "echo: again" {
					t.Fatalf("after the hang: %v %v", res, err)
				}
			}
		})
	}
}

// A server's read_timeout (pydantic-ai's name, from the Python freeact's
// files) bounds its calls instead of the Manager's call timeout.
func TestServerReadTimeout(t *testing.T) {
	t.Parallel() // it waits on a timeout
	cfg := mcptest.HTTP(t)
	limit := 0.3
	cfg.ReadTimeout = &limit
	m, _ := newManager(t, map[string]config.Server{"test": cfg}, mcp.Options{CallTimeout: time.Hour})
	_, err := m.Call(context.Background(), "test", "hang", nil)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer within 300ms") {
		t.Fatalf("err = %v", err)
	}
}

// Server stderr goes to the log, and Close leaves no process behind.
func TestStderrAndClose(t *testing.T) {
	logs := &syncBuffer{}
	m := mcp.NewManager(map[string]config.Server{"test": mcptest.Stdio(t)}, mcp.Options{Log: slog.New(slog.NewTextHandler(logs, nil))})
	ctx := context.Background()
	if _, err := m.Call(ctx, "test", "log", json.RawMessage(`{"line":"a line for the log"}`)); err != nil {
		t.Fatal(err)
	}
	pid := pidOf(t, m)
	start := time.Now()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("Close took %s", d)
	}
	waitGone(t, "server process after Close", pid)
	if !strings.Contains(logs.String(), "a line for the log") || !strings.Contains(logs.String(), "mcp_server=test") {
		t.Errorf("stderr line not logged with the server name:\n%s", logs)
	}
	if _, err := m.Call(ctx, "test", "echo", nil); !errors.Is(err, mcp.ErrClosed) {
		t.Errorf("call after Close: %v", err)
	}
}

// The HTTP endpoint refuses a client without the configured headers.
func TestHTTPHeadersAreSent(t *testing.T) {
	cfg := mcptest.HTTP(t)
	cfg.Headers = nil
	m, _ := newManager(t, map[string]config.Server{"test": cfg}, mcp.Options{})
	if err := m.Connect(context.Background()); err == nil || !strings.Contains(err.Error(), `MCP server "test"`) {
		t.Fatalf("connect without the header: %v", err)
	}
}

// A server that prints something other than the protocol, or nothing, fails
// its connection within the connect timeout, and the error names it and
// quotes what it printed.
func TestBrokenServerFailsFast(t *testing.T) {
	t.Parallel() // it waits on connect timeouts
	one := 1.0
	// The garbage case waits for the default timeout, except in the fast
	// tier, which gives it a second.
	var quick *float64
	defaultWait := fmt.Sprintf("no answer within %s", mcp.DefaultConnectTimeout)
	if testing.Short() {
		quick, defaultWait = &one, "no answer within 1s"
	}
	sh := func(script string, timeout *float64) config.Server {
		return config.Server{Command: "sh", Args: []string{"-c", script}, ConnectTimeout: timeout}
	}
	tests := []struct {
		name string
		cfg  config.Server
		want []string
	}{
		{"garbage", sh(`echo 'Hello, I am not an MCP server'; echo 'warming up...' >&2; while read -r l; do :; done`, quick),
			[]string{`MCP server "garbage" is not available: initialize sh -c`, defaultWait,
				`it printed on stdout: "Hello, I am not an MCP server"; on stderr: "warming up..."`}},
		{"silent", sh(`while read -r l; do :; done`, &one),
			[]string{`MCP server "silent" is not available`, `no answer within 1s (a server that is slow to start needs a higher "connect_timeout"`,
				"it printed nothing on stdout or stderr"}},
		{"exits", sh(`echo '{"jsonrpc": "2.0", "method": "x"}'; echo 'fatal: no config file' >&2; exit 3`, nil),
			[]string{`MCP server "exits" is not available`, "the server exited (exit status 3)", `it printed on stderr: "fatal: no config file"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, _ := newManager(t, map[string]config.Server{tt.name: tt.cfg}, mcp.Options{})
			_, err := m.ServerTools(context.Background(), tt.name)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
