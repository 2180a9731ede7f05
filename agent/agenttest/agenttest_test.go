package agenttest_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/agenttest"
	"github.com/freeact/desktop/internal/testenv"
	"github.com/freeact/desktop/kernel"
)

// host records the requests a cell makes and answers them as told.
type host struct {
	mu       sync.Mutex
	requests []string
	shellOK  bool
	block    bool          // hold every request until its context ends
	asked    chan struct{} // if not nil, gets a value for each request
}

func (h *host) record(s string) {
	h.mu.Lock()
	h.requests = append(h.requests, s)
	h.mu.Unlock()
	if h.asked != nil {
		h.asked <- struct{}{}
	}
}

func (h *host) ApproveShell(ctx context.Context, req kernel.ShellRequest) (bool, error) {
	h.record("shell " + req.Interpreter + ":" + req.Command)
	if h.block {
		<-ctx.Done()
		return false, ctx.Err()
	}
	return h.shellOK, nil
}

func (h *host) CallTool(_ context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
	h.record("tool " + server + "." + tool + " " + string(args))
	if tool == "denied" {
		return nil, kernel.ErrRejected
	}
	return json.RawMessage(`{"ok": true}`), nil
}

func (h *host) Input(_ context.Context, prompt string, _ bool) (string, error) {
	h.record("input " + prompt)
	return "Ada", nil
}

func start(t *testing.T, ks *agenttest.Kernels, h *host) *agenttest.Kernel {
	t.Helper()
	x, err := ks.StartExecutor(context.Background(), kernel.KernelOptions{Workspace: t.TempDir(), Host: h})
	if err != nil {
		t.Fatal(err)
	}
	return x.(*agenttest.Kernel)
}

func TestCellOutputAndHostRequests(t *testing.T) {
	ks := agenttest.New().On("work", func(c *agenttest.Cell) {
		c.Print("hello", 42)
		c.Stderr("careful\n")
		c.Result("'value'")
		c.Image([]byte("\x89PNG"))
		if c.Shell("ls -l") {
			c.Print("listed")
		}
		c.ShellCell("bash", "echo hi\n")
		res, err := c.CallTool("github", "search", map[string]any{"q": "x"})
		c.Print(string(res), err)
		c.Print("name:", c.Input("Name? "))
	})
	h := &host{shellOK: true}
	k := start(t, ks, h)
	var chunks []kernel.Chunk
	res, err := k.Execute(context.Background(), "work", func(c kernel.Chunk) { chunks = append(chunks, c) })
	if err != nil || res.Error != nil {
		t.Fatalf("execute: %v %+v", err, res)
	}
	want := []string{"shell :ls -l", "shell bash:echo hi\n", `tool github.search {"q":"x"}`, "input Name? "}
	if strings.Join(h.requests, "|") != strings.Join(want, "|") {
		t.Errorf("host requests %q, want %q", h.requests, want)
	}
	if len(res.Images) != 1 {
		t.Fatalf("images %v", res.Images)
	}
	if b, err := os.ReadFile(res.Images[0]); err != nil || string(b) != "\x89PNG" {
		t.Errorf("image file: %q %v", b, err)
	}
	for _, s := range []string{"hello 42\n", "careful\n", "'value'\n", "![image](", "listed\n", `{"ok": true} <nil>`, "name: Ada\n"} {
		if !strings.Contains(res.Text, s) {
			t.Errorf("result text lacks %q:\n%s", s, res.Text)
		}
	}
	var joined strings.Builder
	kinds := map[kernel.ChunkKind]bool{}
	for _, c := range chunks {
		joined.WriteString(c.Text)
		kinds[c.Kind] = true
	}
	if joined.String() != res.Text {
		t.Errorf("chunks %q do not add up to the text %q", joined.String(), res.Text)
	}
	for _, kind := range []kernel.ChunkKind{kernel.ChunkStdout, kernel.ChunkStderr, kernel.ChunkResult, kernel.ChunkImage} {
		if !kinds[kind] {
			t.Errorf("no %s chunk", kind)
		}
	}
}

func TestRejectedShellAndTool(t *testing.T) {
	ks := agenttest.New().On("refused", func(c *agenttest.Cell) {
		if c.Shell("rm -rf /") {
			c.Print("ran")
		}
		if _, err := c.CallTool("db", "denied", nil); errors.Is(err, kernel.ErrRejected) {
			c.Print("tool rejected")
		}
	})
	k := start(t, ks, &host{})
	res, err := k.Execute(context.Background(), "refused", nil)
	if err != nil || strings.Contains(res.Text, "ran") ||
		!strings.Contains(res.Text, "Shell command rejected, not run: rm -rf /") || !strings.Contains(res.Text, "tool rejected") {
		t.Errorf("result %v %q", err, res.Text)
	}
}

func TestStateRaiseAndUnknownCode(t *testing.T) {
	ks := agenttest.New().
		On("x = 1", func(c *agenttest.Cell) { c.Set("x", "1") }).
		On("print(x)", func(c *agenttest.Cell) {
			x, ok := c.Get("x")
			if !ok {
				c.Raise("NameError", "name 'x' is not defined")
			}
			c.Print(x)
		})
	k := start(t, ks, &host{})
	ctx := context.Background()
	steps := []struct{ code, text, errName string }{
		{"x = 1", "", ""},
		{"print(x)", "1\n", ""},
		{"restart", "", ""},
		{"print(x)", "NameError: name 'x' is not defined\n", "NameError"},
		{"nonsense", "agenttest: no script", "NameError"},
	}
	for _, s := range steps {
		if s.code == "restart" {
			if err := k.Restart(ctx); err != nil {
				t.Fatal(err)
			}
			continue
		}
		res, err := k.Execute(ctx, s.code, nil)
		if err != nil {
			t.Fatalf("%s: %v", s.code, err)
		}
		name := ""
		if res.Error != nil {
			name = res.Error.Name
		}
		if name != s.errName || !strings.Contains(res.Text, s.text) {
			t.Errorf("%s: error %q, text %q; want %q, %q", s.code, name, res.Text, s.errName, s.text)
		}
	}
	if got := strings.Join(k.Ran(), "|"); got != "x = 1|print(x)|print(x)|nonsense" {
		t.Errorf("ran %q", got)
	}
	if k.Restarts() != 1 {
		t.Errorf("%d restarts", k.Restarts())
	}
}

// Cancelling the context interrupts the cell: the partial result comes with
// the error, and what the script does afterwards does not happen.
func TestCancelInterruptsAWaitingCell(t *testing.T) {
	after := false
	ks := agenttest.New().On("sleep", func(c *agenttest.Cell) {
		c.Print("started")
		c.Wait()
		after = true
	})
	k := start(t, ks, &host{})
	ctx, cancel := context.WithCancel(context.Background())
	res, err := k.Execute(ctx, "sleep", func(c kernel.Chunk) {
		if c.Text == "started\n" {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || res == nil || !strings.Contains(res.Text, "started") || after {
		t.Errorf("err %v, result %+v, ran on after the interrupt: %v", err, res, after)
	}
	if res.Error == nil || res.Error.Name != "KeyboardInterrupt" {
		t.Errorf("error %+v, want KeyboardInterrupt", res.Error)
	}
}

// Interrupt ends a host request in flight and the cell with it.
func TestInterruptEndsAHostRequest(t *testing.T) {
	ks := agenttest.New().On("ask", func(c *agenttest.Cell) { c.Shell("sleep 100") })
	h := &host{block: true, asked: make(chan struct{}, 1)}
	k := start(t, ks, h)
	done := make(chan struct{})
	var res *kernel.Result
	go func() {
		defer close(done)
		res, _ = k.Execute(context.Background(), "ask", nil)
	}()
	testenv.Receive(t, h.asked, time.Minute, "the host request")
	if err := k.Interrupt(context.Background()); err != nil {
		t.Fatal(err)
	}
	testenv.Receive(t, done, time.Minute, "the end of the cell after Interrupt")
	if res.Error == nil || res.Error.Name != "KeyboardInterrupt" || k.Interrupts() != 1 {
		t.Errorf("result %+v after %d interrupts", res, k.Interrupts())
	}
}

// A death fails the cell with kernel.ErrKernelDied; the next cell runs in
// a fresh kernel. Close ends a running cell and refuses new ones.
func TestDeathAndClose(t *testing.T) {
	sleeping := make(chan struct{})
	ks := agenttest.New().
		On("x = 1", func(c *agenttest.Cell) { c.Set("x", "1") }).
		On("die", func(c *agenttest.Cell) { c.Print("dying"); c.Die() }).
		On("sleep", func(c *agenttest.Cell) { close(sleeping); c.Wait() })
	k := start(t, ks, &host{})
	ctx := context.Background()
	if _, err := k.Execute(ctx, "x = 1", nil); err != nil {
		t.Fatal(err)
	}
	res, err := k.Execute(ctx, "die", nil)
	if !errors.Is(err, kernel.ErrKernelDied) || !strings.Contains(res.Text, "dying") {
		t.Errorf("death: %v %+v", err, res)
	}
	if _, ok := k.Var("x"); ok {
		t.Error("state survived the death")
	}
	done := make(chan error, 1)
	go func() {
		_, err := k.Execute(ctx, "sleep", nil)
		done <- err
	}()
	testenv.Receive(t, sleeping, time.Minute, "the sleeping cell")
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	if err := testenv.Receive(t, done, time.Minute, "the end of the running cell at Close"); err == nil || !strings.Contains(err.Error(), "closed during the execution") {
		t.Errorf("running cell at close: %v", err)
	}
	if _, err := k.Execute(ctx, "x = 1", nil); err == nil || !k.Closed() {
		t.Error("a closed kernel ran a cell")
	}
}

func TestFailStarts(t *testing.T) {
	ks := agenttest.New()
	ks.FailStarts(errors.New("no kernels today"))
	if _, err := ks.StartExecutor(context.Background(), kernel.KernelOptions{}); err == nil || !strings.Contains(err.Error(), "no kernels today") {
		t.Errorf("first start: %v", err)
	}
	if _, err := ks.StartExecutor(context.Background(), kernel.KernelOptions{}); err != nil || len(ks.Started()) != 1 {
		t.Errorf("second start: %v, %d started", err, len(ks.Started()))
	}
}
