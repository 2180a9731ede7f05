// Command ours runs one round of the side-by-side benchmark for this app
// (scripts/bench/compare.py runs it alternately with ref.py, which does the
// same for the Python freeact's ipybox) and prints the round's figures as
// one JSON object on stdout.
//
//	ours -python PY -echo-server scripts/bench/echo_server.py
//
// The kernel figures (cold start, trivial cell, `!true`) are taken at the
// kernel package; the 10 MB output, the programmatic MCP calls and the idle
// memory through a whole agent (its turn, approvals, events and MCP
// connection), with the model faked at the wire as in the tests.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/kernel"
)

func main() {
	python := flag.String("python", "", "the Python interpreter both systems run their kernels with")
	echo := flag.String("echo-server", "", "the stdio MCP server script (scripts/bench/echo_server.py)")
	cells := flag.Int("cells", 20, "trivial and `!true` cells a round")
	calls := flag.Int("calls", 200, "programmatic MCP calls from one cell")
	flag.Parse()
	if *python == "" || *echo == "" {
		fmt.Fprintln(os.Stderr, "ours: give -python and -echo-server")
		os.Exit(2)
	}
	r := &round{python: *python, echo: *echo, cells: *cells, calls: *calls, figures: map[string]float64{}}
	if err := r.run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "ours:", err)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(r.figures); err != nil {
		fmt.Fprintln(os.Stderr, "ours:", err)
		os.Exit(1)
	}
}

type round struct {
	python, echo string
	cells, calls int
	figures      map[string]float64
}

func (r *round) run(ctx context.Context) error {
	tmp, err := os.MkdirTemp("", "freeact-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := r.kernelFigures(ctx, tmp); err != nil {
		return err
	}
	return r.agentFigures(ctx, tmp)
}

// grant approves every shell command, as a permission rule does.
type grant struct{}

func (grant) ApproveShell(context.Context, kernel.ShellRequest) (bool, error) { return true, nil }
func (grant) CallTool(context.Context, string, string, json.RawMessage) (json.RawMessage, error) {
	return nil, errors.New("no tools here")
}
func (grant) Input(context.Context, string, bool) (string, error) { return "", errors.New("no input") }

func (r *round) kernelFigures(ctx context.Context, tmp string) error {
	dir, ws := filepath.Join(tmp, "jupyter"), filepath.Join(tmp, "kernel-ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return err
	}
	t0 := time.Now()
	s, err := kernel.StartServer(ctx, kernel.ServerOptions{Python: r.python, Dir: dir})
	if err != nil {
		return err
	}
	defer s.Close()
	k, err := s.StartKernel(ctx, kernel.KernelOptions{Workspace: ws, Host: grant{}})
	if err != nil {
		return err
	}
	if _, err := k.Execute(ctx, "1+1", nil); err != nil {
		return err
	}
	r.figures["cold_start_ms"] = ms(time.Since(t0))
	for _, c := range []struct{ name, code string }{{"trivial_p50_ms", "1+1"}, {"bang_true_p50_ms", "!true"}} {
		var durs []time.Duration
		for range r.cells {
			t := time.Now()
			res, err := k.Execute(ctx, c.code, nil)
			if err != nil {
				return err
			}
			if res.Error != nil {
				return fmt.Errorf("%s: %v", c.code, res.Error)
			}
			durs = append(durs, time.Since(t))
		}
		r.figures[c.name] = ms(median(durs))
	}
	return nil
}

// t is the part of testing.TB the fake model server needs.
type t struct{ cleanups []func() }

func (*t) Helper() {}
func (*t) Errorf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fake model: "+format+"\n", args...)
}
func (x *t) Cleanup(f func()) { x.cleanups = append(x.cleanups, f) }

var callsRE = regexp.MustCompile(`calls_per_s ([0-9.]+)`)

const (
	lines, width = 100_000, 100
	bigCell      = "line = 'z' * 99\nfor _ in range(100000): print(line)"
)

func (r *round) agentFigures(ctx context.Context, tmp string) error {
	callCell := fmt.Sprintf(`import time
from freeact_runtime import call_tool
t = time.perf_counter()
for i in range(%d):
    call_tool("echo", "echo", {"text": "x"})
print("calls_per_s %%.1f" %% (%d / (time.perf_counter() - t)))`, r.calls, r.calls)
	codes := []string{`call_tool_warm = __import__("freeact_runtime").call_tool("echo", "echo", {"text": "x"})`, callCell, bigCell, bigCell}
	var sc strings.Builder
	sc.WriteString("turns:\n")
	for i, code := range codes {
		c, _ := json.Marshal(code)
		fmt.Fprintf(&sc, "  - reply: [{call: {id: c%d, name: ipybox_execute_ipython_cell, args: {code: %s}}}]\n  - reply: [{text: done}]\n", i, c)
	}
	scenario, err := modeltest.ParseScenario([]byte(sc.String()))
	if err != nil {
		return err
	}
	fake := &t{}
	defer func() {
		for _, f := range slices.Backward(fake.cleanups) {
			f()
		}
	}()
	srv := modeltest.NewGemini(fake, scenario)
	os.Setenv("GOOGLE_GEMINI_BASE_URL", srv.URL())
	os.Setenv("GEMINI_API_KEY", "fake-key")
	os.Setenv("GOOGLE_API_KEY", "")

	ws := filepath.Join(tmp, "agent-ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return err
	}
	if err := config.Init(ws); err != nil {
		return err
	}
	agentJSON, _ := json.Marshal(map[string]any{
		"python":      r.python,
		"ptc_servers": map[string]any{"echo": map[string]any{"command": r.python, "args": []string{r.echo}, "connect_timeout": 60}},
	})
	if err := os.WriteFile(filepath.Join(ws, config.FreeactDir, config.AgentFile), agentJSON, 0o644); err != nil {
		return err
	}
	cfg, err := config.Load(ws, config.LoadOptions{})
	if err != nil {
		return err
	}
	a, err := agent.New(cfg, agent.WithSkipPermissions(), agent.WithKernelDir(filepath.Join(tmp, "agent-jupyter")), agent.WithoutProvisioning())
	if err != nil {
		return err
	}
	if err := a.Start(ctx); err != nil {
		return err
	}
	defer a.Stop()

	turn := func() (*agent.CodeExecutionOutput, time.Duration, error) {
		t0 := time.Now()
		var out *agent.CodeExecutionOutput
		var d time.Duration
		for ev := range a.Stream(ctx, agent.Text("Go.")) {
			switch e := ev.(type) {
			case *agent.CodeExecutionOutput:
				out, d = e, time.Since(t0)
			case *agent.Failed:
				return nil, 0, fmt.Errorf("turn failed: %s", e.Error)
			}
		}
		if out == nil {
			return nil, 0, errors.New("turn ran no code")
		}
		if out.Error {
			return nil, 0, fmt.Errorf("cell failed: %s", out.Text)
		}
		return out, d, nil
	}
	if _, _, err := turn(); err != nil { // the MCP server starts
		return err
	}
	// Idle: the kernel ready, the MCP server started, nothing running (a
	// spare kernel, when the configuration keeps one, has had time to start).
	time.Sleep(2 * time.Second)
	rss, err := treeRSS(os.Getpid())
	if err != nil {
		return err
	}
	r.figures["idle_rss_mb"] = float64(rss) / 1e6
	out, _, err := turn()
	if err != nil {
		return err
	}
	m := callsRE.FindStringSubmatch(out.Text)
	if m == nil {
		return fmt.Errorf("MCP cell printed %q", out.Text)
	}
	r.figures["mcp_calls_per_s"], _ = strconv.ParseFloat(m[1], 64)
	var durs []time.Duration
	var bigOut string
	for range 2 {
		out, d, err := turn()
		if err != nil {
			return err
		}
		if len(out.Text) != lines*width-1 && len(out.Text) != lines*width {
			return fmt.Errorf("10 MB cell: %d bytes of output", len(out.Text))
		}
		durs, bigOut = append(durs, d), out.Text
	}
	r.figures["output_10mb_ms"] = ms(slices.Min(durs))
	r.figures["output_10mb_bytes"] = float64(len(bigOut))
	return nil
}

// treeRSS sums the resident memory of process pid and all its descendants.
func treeRSS(pid int) (int64, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, fmt.Errorf("list processes: %w", err)
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			children[ppid] = append(children[ppid], p)
		}
	}
	var total int64
	for todo := []int{pid}; len(todo) > 0; {
		p := todo[len(todo)-1]
		todo = append(todo[:len(todo)-1], children[p]...)
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p))
		if err != nil {
			continue
		}
		for l := range strings.Lines(string(status)) {
			if kb, ok := strings.CutPrefix(l, "VmRSS:"); ok {
				n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(kb), " kB"), 10, 64)
				total += n * 1024
			}
		}
	}
	return total, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
