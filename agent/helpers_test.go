package agent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/internal/testenv"
	"github.com/freeact/desktop/kernel"
)

// The tests run a real Jupyter server and real kernels from the Python that
// scripts/setup-python.sh prepares (FREEACT_TEST_PYTHON overrides it); the
// model is the wire-level fake of agent/model/modeltest.

var shared struct {
	once sync.Once
	srv  *kernel.Server
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	mcptest.Main() // serves MCP when the binary runs as a test server
	code := m.Run()
	if shared.srv != nil {
		_ = shared.srv.Close()
	}
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

func testPython(t testing.TB) string { return testenv.Python(t) }

// server returns the Jupyter server the tests share (with a warm pool).
func server(t testing.TB) *kernel.Server {
	t.Helper()
	py := testPython(t)
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "freeact-agent-test-")
		if shared.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		shared.srv, shared.err = kernel.StartServer(ctx, kernel.ServerOptions{Python: py, Dir: shared.dir, WarmPool: true})
	})
	if shared.err != nil {
		t.Fatalf("start Jupyter server: %v", shared.err)
	}
	return shared.srv
}

// workspace makes a scaffolded workspace; agentJSON, if not empty, replaces
// its agent.json.
func workspace(t testing.TB, agentJSON string) string {
	t.Helper()
	dir := t.TempDir()
	if err := config.Init(dir); err != nil {
		t.Fatal(err)
	}
	if agentJSON != "" {
		if err := os.WriteFile(filepath.Join(dir, config.FreeactDir, config.AgentFile), []byte(agentJSON), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func load(t testing.TB, dir string) *config.Config {
	t.Helper()
	cfg, err := config.Load(dir, config.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// start plays scenario (YAML) with the fake Gemini server and returns a
// started agent over a fresh workspace.
func start(t *testing.T, scenario string, opts ...agent.Option) (*agent.Agent, *modeltest.Server, string) {
	t.Helper()
	ws := workspace(t, "")
	a, fake := startIn(t, ws, scenario, opts...)
	return a, fake, ws
}

func startIn(t *testing.T, ws, scenario string, opts ...agent.Option) (*agent.Agent, *modeltest.Server) {
	t.Helper()
	sc, err := modeltest.ParseScenario([]byte(scenario))
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	fake := modeltest.UseGemini(t, sc)
	opts = append([]agent.Option{agent.WithKernelServer(server(t))}, opts...)
	a, err := agent.New(load(t, ws), opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := a.Start(ctx); err != nil {
		t.Fatalf("start agent: %v", err)
	}
	t.Cleanup(func() {
		if err := a.Stop(); err != nil {
			t.Errorf("stop agent: %v", err)
		}
	})
	return a, fake
}

// run streams one turn. Each approval request is answered by answer (nil:
// approve everything); it gets the request and may answer it itself or
// return a decision.
func run(t *testing.T, a *agent.Agent, prompt string, answer func(*agent.ApprovalRequest) agent.Decision) []agent.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var events []agent.Event
	for ev := range a.Stream(ctx, agent.Text(prompt)) {
		events = append(events, ev)
		if req, ok := ev.(*agent.ApprovalRequest); ok {
			d := agent.Once
			if answer != nil {
				d = answer(req)
			}
			req.Answer(d, "")
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("turn did not end within its deadline; events: %s", describe(events))
	}
	return events
}

// of returns the events of type E.
func of[E agent.Event](events []agent.Event) []E {
	var out []E
	for _, ev := range events {
		if e, ok := ev.(E); ok {
			out = append(out, e)
		}
	}
	return out
}

func describe(events []agent.Event) string {
	var b strings.Builder
	for _, ev := range events {
		b.WriteString("\n  ")
		b.WriteString(strings.TrimPrefix(fmt.Sprintf("%T", ev), "*agent."))
		switch e := ev.(type) {
		case *agent.Response:
			b.WriteString(" " + e.Text)
		case *agent.ToolOutput:
			b.WriteString(" " + e.ToolName + ": " + e.Content)
		case *agent.Failed:
			b.WriteString(" " + e.Error)
		case *agent.Cancelled:
			b.WriteString(" " + e.Phase)
		case *agent.ApprovalRequest:
			b.WriteString(" " + agent.TypeName(e.ToolCall) + " " + e.ToolCall.Name())
		}
	}
	return b.String()
}
