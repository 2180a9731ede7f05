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
	"github.com/freeact/desktop/agent/agenttest"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/internal/appdirs"
	"github.com/freeact/desktop/internal/testenv"
	"github.com/freeact/desktop/kernel"
)

// The model is the wire-level fake of agent/model/modeltest. Code actions
// run in the tiers below: real kernels come from a Jupyter server of the
// Python that scripts/setup-python.sh prepares (FREEACT_TEST_PYTHON
// overrides it).

var shared struct {
	once sync.Once
	srv  *kernel.Server
	dir  string
	err  error
}

// testDirs are the folders every test's agent keeps its files in (set
// once, before the tests run).
var testDirs appdirs.Dirs

func TestMain(m *testing.M) {
	mcptest.Main() // serves MCP when the binary runs as a test server
	// Checkpoints (and anything else kept in the data folder) go to a
	// folder of the test run, not the user's.
	data, err := os.MkdirTemp("", "freeact-agent-data-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testDirs = appdirs.In(data)
	code := m.Run()
	_ = os.RemoveAll(data)
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

// Tiers: a test's code actions run either in the scripted kernels of
// agent/agenttest (the fast tier, which go test -short runs) or in real
// kernels on the shared Jupyter server (the integration tier). Tests about
// what code actions do run in both (tiers), with a script standing in for
// each cell's code in the fast tier, so the real kernel holds the fake to
// its behaviour; tests that run no code run with the fake alone, and tests
// of what only a real kernel does (timeouts, generated modules, the
// sandbox) with real kernels alone.
type tier struct {
	name string
	fake *agenttest.Kernels // nil: real kernels
}

// cells are the scripts the fake kernels run, by the code of the cell.
type cells map[string]agenttest.Script

// fakeKernels is the fast tier with the scripts c.
func fakeKernels(c cells) tier {
	k := agenttest.New()
	for code, s := range c {
		k.On(code, s)
	}
	return tier{name: "fake", fake: k}
}

// realKernels is the integration tier.
var realKernels = tier{name: "kernel"}

// tiers runs test as subtest "fake" (with the scripts c) and as subtest
// "kernel" (skipped under -short).
func tiers(t *testing.T, c cells, test func(t *testing.T, x tier)) {
	t.Helper()
	for _, x := range []tier{fakeKernels(c), realKernels} {
		t.Run(x.name, func(t *testing.T) { test(t, x) })
	}
}

// executors is the option that puts the agent's code actions in the tier.
func (x tier) executors(t testing.TB) agent.Option {
	if x.fake != nil {
		return agent.WithExecutors(x.fake)
	}
	return agent.WithKernelServer(server(t))
}

// start plays scenario (YAML) with the fake Gemini server and returns a
// started agent over a fresh workspace.
func (x tier) start(t *testing.T, scenario string, opts ...agent.Option) (*agent.Agent, *modeltest.Server, string) {
	t.Helper()
	ws := workspace(t, "")
	a, fake := x.startIn(t, ws, scenario, opts...)
	return a, fake, ws
}

func (x tier) startIn(t *testing.T, ws, scenario string, opts ...agent.Option) (*agent.Agent, *modeltest.Server) {
	t.Helper()
	opts = append([]agent.Option{x.executors(t)}, opts...)
	sc, err := modeltest.ParseScenario([]byte(scenario))
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	fake := modeltest.UseGemini(t, sc)
	return started(t, ws, opts...), fake
}

// started returns an agent over ws, started; the test stops it.
func started(t *testing.T, ws string, opts ...agent.Option) *agent.Agent {
	t.Helper()
	a, err := agent.New(load(t, ws), append([]agent.Option{agent.WithDirs(testDirs)}, opts...)...)
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
	return a
}

// prints is a script that prints its lines, as print() does.
func prints(lines ...string) agenttest.Script {
	return func(c *agenttest.Cell) {
		for _, l := range lines {
			c.Print(l)
		}
	}
}

// sleeps is a script that prints line and sleeps until it is interrupted,
// as print(line, flush=True); time.sleep(60) does.
func sleeps(line string) agenttest.Script {
	return func(c *agenttest.Cell) {
		c.Set("time", "<module 'time'>")
		c.Print(line)
		c.Wait()
	}
}

// touch makes empty files in the cell's workspace, as a script that writes
// them would.
func touch(c *agenttest.Cell, names ...string) {
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(c.Workspace(), n), nil, 0o644); err != nil {
			c.Raise("OSError", err.Error())
		}
	}
}

// inDir is the script of print('name' in dir()): whether an earlier cell
// of the kernel set the variable.
func inDir(name string) agenttest.Script {
	return func(c *agenttest.Cell) {
		_, ok := c.Get(name)
		c.Print(map[bool]string{true: "True", false: "False"}[ok])
	}
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

// outputsByCall is what each call gave back, by its correlation id: a
// tool's output, or a cell's output and error text.
func outputsByCall(events []agent.Event) map[string]string {
	outputs := map[string]string{}
	for _, o := range of[*agent.ToolOutput](events) {
		outputs[o.CorrelationID] = o.Content
	}
	for _, o := range of[*agent.CodeExecutionOutput](events) {
		outputs[o.CorrelationID] += o.Text + o.ErrorText
	}
	return outputs
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
