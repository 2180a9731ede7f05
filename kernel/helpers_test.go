package kernel

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/testenv"
)

// Test interpreters. Defaults are what scripts/setup-python.sh prepares:
//
//	FREEACT_TEST_PYTHON       newest ipykernel + jupyter_server (.cache/python/venv/bin/python)
//	FREEACT_TEST_OLD_PYTHON   Debian 12's ipykernel 6.17 + jupyter_server 1.23 (/usr/bin/python3)
//	FREEACT_TEST_BARE_PYTHON  a Python without ipykernel (.cache/python/bare/bin/python)
//	FREEACT_TEST_WHEELS       wheels for offline provisioning (.cache/python/wheels)
//
// When one is missing the test is skipped, or fails when CI=true.

func testPath(t testing.TB, env, def, what string, check func(string) bool) string {
	t.Helper()
	testenv.Integration(t, what)
	p := os.Getenv(env)
	if p == "" {
		p = def
		if !filepath.IsAbs(p) {
			p = filepath.Join(testenv.RepoRoot(t), p)
		}
	}
	if !check(p) {
		testenv.Missing(t, what+" not found ("+env+"="+p+"): make test installs it")
	}
	return p
}

func hasModules(py string, mods ...string) bool {
	return exec.Command(py, "-c", "import "+strings.Join(mods, ", ")).Run() == nil
}

func newPython(t testing.TB) string {
	return testPath(t, "FREEACT_TEST_PYTHON", ".cache/python/venv/bin/python", "Python with the newest ipykernel",
		func(p string) bool { return hasModules(p, "ipykernel", "jupyter_server", "matplotlib") })
}

func oldPython(t testing.TB) string { return testenv.OldPython(t) }

// shared servers, one per interpreter, started on first use and closed by TestMain.
var (
	sharedMu      sync.Mutex
	sharedServers = map[string]*Server{}
)

func TestMain(m *testing.M) {
	code := m.Run()
	sharedMu.Lock()
	for _, s := range sharedServers {
		s.Close()
	}
	sharedMu.Unlock()
	os.Exit(code)
}

func sharedServer(t testing.TB, py string) *Server {
	t.Helper()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if s := sharedServers[py]; s != nil {
		return s
	}
	dir, err := os.MkdirTemp("", "freeact-kernel-test-")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	s, err := StartServer(ctx, ServerOptions{Python: py, Dir: dir})
	if err != nil {
		t.Fatalf("start shared server: %v", err)
	}
	sharedServers[py] = s
	return s
}

// pythons are the interpreters hook tests run against.
func pythons(t *testing.T) map[string]string {
	return map[string]string{"new": newPython(t), "old": oldPython(t)}
}

func startKernel(t testing.TB, s *Server, opts KernelOptions) *Kernel {
	t.Helper()
	if opts.Workspace == "" {
		opts.Workspace = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	k, err := s.StartKernel(ctx, opts)
	if err != nil {
		t.Fatalf("start kernel: %v", err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

func run(t testing.TB, k *Kernel, code string) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := k.Execute(ctx, code, nil)
	if err != nil {
		t.Fatalf("execute %q: %v", code, err)
	}
	return res
}

// outcome is what Execute returned.
type outcome struct {
	res *Result
	err error
}

// startCell runs code in the background and returns once its output shows
// marker (the cell prints it, flushed, when it has reached the point the
// test waits for). Execute's outcome comes on the returned channel.
func startCell(t *testing.T, ctx context.Context, k *Kernel, code, marker string) <-chan outcome {
	t.Helper()
	started := make(chan struct{})
	done := make(chan outcome, 1)
	go func() {
		var out strings.Builder
		var once sync.Once
		res, err := k.Execute(ctx, code, func(c Chunk) {
			out.WriteString(c.Text) // chunks come from one goroutine
			if strings.Contains(out.String(), marker) {
				once.Do(func() { close(started) })
			}
		})
		done <- outcome{res, err}
	}()
	select {
	case <-started:
		return done
	case o := <-done:
		t.Fatalf("the cell ended before printing %q: %+v %v", marker, o.res, o.err)
	case <-time.After(time.Minute):
		t.Fatalf("the cell did not print %q within a minute", marker)
	}
	return nil
}

// testHost is a Host whose answers are set per test.
type testHost struct {
	mu       sync.Mutex
	shell    []ShellRequest
	approve  func(ctx context.Context, req ShellRequest) (bool, error)
	tool     func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error)
	input    func(ctx context.Context, prompt string, password bool) (string, error)
	requests chan string
}

func (h *testHost) ApproveShell(ctx context.Context, req ShellRequest) (bool, error) {
	h.mu.Lock()
	h.shell = append(h.shell, req)
	h.mu.Unlock()
	h.note("shell:" + req.Command)
	if h.approve == nil {
		return true, nil
	}
	return h.approve(ctx, req)
}

func (h *testHost) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
	h.note("tool:" + server + "." + tool)
	if h.tool == nil {
		return json.RawMessage(`{"echo":` + string(args) + `}`), nil
	}
	return h.tool(ctx, server, tool, args)
}

func (h *testHost) Input(ctx context.Context, prompt string, password bool) (string, error) {
	h.note("input:" + prompt)
	if h.input == nil {
		return "typed", nil
	}
	return h.input(ctx, prompt, password)
}

func (h *testHost) note(s string) {
	if h.requests != nil {
		select {
		case h.requests <- s:
		default:
		}
	}
}

func (h *testHost) commands() []ShellRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]ShellRequest(nil), h.shell...)
}
