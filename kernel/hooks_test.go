package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/testenv"
)

// The hook tests run against both ipykernel versions, because the hooks
// touch ipykernel internals.

func TestShellInterception(t *testing.T) {
	for name, py := range pythons(t) {
		t.Run(name, func(t *testing.T) {
			s := sharedServer(t, py)
			h := &testHost{approve: func(_ context.Context, r ShellRequest) (bool, error) {
				return !strings.Contains(r.Command, "forbidden"), nil
			}}
			ws := t.TempDir()
			k := startKernel(t, s, KernelOptions{Host: h, Workspace: ws})
			run(t, k, "x = 'ex'\ny = 'why'")
			cases := []struct {
				name, code    string
				wantCmd       string
				wantInterp    string
				wantOut       string
				wantNotInText string
			}{
				{"braces and dollar", "!echo {x} $y", "echo ex why", "", "ex why", ""},
				{"function locals", "def f():\n    z = 'loc'\n    !echo {z}\nf()", "echo loc", "", "loc", ""},
				{"undefined stays literal", "!echo {nope}", "echo {nope}", "", "{nope}", ""},
				{"composite command", "!echo a && echo b | cat", "echo a && echo b | cat", "", "b", ""},
				{"getoutput", "out = !echo got-{x}\nprint(out)", "echo got-ex", "", "['got-ex']", ""},
				{"system call", "get_ipython().system('echo via-system')", "echo via-system", "", "via-system", ""},
				{"alias magic", "%ls -d /", "ls -F --color -d /", "", "/", ""},
				{"sx magic", "r = %sx echo sx-out\nprint(r)", "echo sx-out", "", "['sx-out']", ""},
				{"bash cell", "%%bash\necho cell-$((1+2))\n", "echo cell-$((1+2))\n", "bash", "cell-3", ""},
				{"sh cell", "%%sh\necho sh-cell\n", "echo sh-cell\n", "sh", "sh-cell", ""},
				{"script cell", "%%script bash\necho script-cell\n", "echo script-cell\n", "bash", "script-cell", ""},
				{"rejected", "!touch forbidden.txt", "touch forbidden.txt", "", "rejected", ""},
				{"rejected getoutput", "o = !touch forbidden2.txt\nprint(repr(o))", "touch forbidden2.txt", "", "[]", ""},
				{"rejected cell", "%%bash\ntouch forbidden3.txt\n", "touch forbidden3.txt\n", "bash", "rejected", ""},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					before := len(h.commands())
					res := run(t, k, c.code)
					if res.Error != nil {
						t.Fatalf("cell raised %v\n%s", res.Error, res.Error.Traceback)
					}
					cmds := h.commands()[before:]
					if len(cmds) != 1 {
						t.Fatalf("host saw %d shell requests %+v, want 1", len(cmds), cmds)
					}
					// A script's program is shown as the file that runs.
					interp := cmds[0].Interpreter
					if interp != "" {
						if !filepath.IsAbs(interp) {
							t.Errorf("interpreter %q: want the path of the file that runs", interp)
						}
						interp = filepath.Base(interp)
					}
					if cmds[0].Command != c.wantCmd || interp != c.wantInterp {
						t.Errorf("host saw %+v, want command %q interpreter %q", cmds[0], c.wantCmd, c.wantInterp)
					}
					if !strings.Contains(res.Text, c.wantOut) {
						t.Errorf("output %q does not contain %q", res.Text, c.wantOut)
					}
				})
			}
			// The host learns the folder each command runs in.
			if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			before := len(h.commands())
			run(t, k, "import os\n!true\n%cd sub\n!true\nos.chdir('/')\n!true")
			var dirs []string
			for _, c := range h.commands()[before:] {
				dirs = append(dirs, c.Dir)
			}
			real, _ := filepath.EvalSymlinks(ws)
			if want := []string{real, filepath.Join(real, "sub"), "/"}; !slices.Equal(dirs, want) {
				t.Errorf("folders of the commands: %q, want %q", dirs, want)
			}
			for _, f := range []string{"forbidden.txt", "forbidden2.txt", "forbidden3.txt"} {
				if _, err := os.Stat(filepath.Join(ws, f)); err == nil {
					t.Errorf("%s was created although the command was rejected", f)
				}
			}
		})
	}
}

func TestCallTool(t *testing.T) {
	for name, py := range pythons(t) {
		t.Run(name, func(t *testing.T) {
			s := sharedServer(t, py)
			h := &testHost{tool: func(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
				switch tool {
				case "echo":
					return args, nil
				case "reject":
					return nil, fmt.Errorf("user said no: %w", ErrRejected)
				case "fail":
					return nil, errors.New("disk on fire")
				case "slow":
					<-ctx.Done()
					return nil, ctx.Err()
				}
				return nil, errors.New("unknown tool")
			}}
			k := startKernel(t, s, KernelOptions{Host: h})
			run(t, k, "from freeact_runtime import call_tool, ToolRejected, ToolFailed, ToolTimeout, ToolCallError")
			cases := []struct{ name, code, want string }{
				{"result", "r = call_tool('srv', 'echo', {'a': [1, 2], 's': 'ü'})\nprint(r == {'a': [1, 2], 's': 'ü'})", "True"},
				{"rejected", "try:\n    call_tool('srv', 'reject', {})\nexcept ToolRejected as e:\n    print('rejected:', e)", "rejected: srv.reject: tool call rejected"},
				{"tool error", "try:\n    call_tool('srv', 'fail')\nexcept ToolFailed as e:\n    print('failed:', e)", "failed: srv.fail: disk on fire"},
				{"timeout", "try:\n    call_tool('srv', 'slow', timeout=0.3)\nexcept ToolTimeout as e:\n    print('timeout:', isinstance(e, TimeoutError), isinstance(e, ToolCallError))", "timeout: True True"},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					res := run(t, k, c.code)
					if res.Error != nil || !strings.Contains(res.Text, c.want) {
						t.Fatalf("output %q (error %v), want %q", res.Text, res.Error, c.want)
					}
				})
			}
			t.Run("uncaught error hides hook frames", func(t *testing.T) {
				res := run(t, k, "call_tool('srv', 'fail')")
				if res.Error == nil || res.Error.Name != "ToolFailed" {
					t.Fatalf("error %+v", res.Error)
				}
				if strings.Contains(res.Error.Traceback, "freeact_kernel") || strings.Contains(res.Error.Traceback, "\x1b[") {
					t.Fatalf("traceback shows hook frames or ANSI codes:\n%s", res.Error.Traceback)
				}
				if !strings.Contains(res.Text, "ToolFailed: srv.fail: disk on fire") {
					t.Fatalf("text %q", res.Text)
				}
			})
		})
	}
}

func TestUserInput(t *testing.T) {
	for name, py := range pythons(t) {
		t.Run(name, func(t *testing.T) {
			s := sharedServer(t, py)
			var got atomic.Value
			h := &testHost{input: func(_ context.Context, prompt string, password bool) (string, error) {
				got.Store(fmt.Sprintf("%s|%v", prompt, password))
				if password {
					return "s3cret", nil
				}
				return "Ada", nil
			}}
			k := startKernel(t, s, KernelOptions{Host: h})
			res := run(t, k, "name = input('Name? ')\nprint('hello', name)")
			if !strings.Contains(res.Text, "hello Ada") || got.Load() != "Name? |false" {
				t.Fatalf("input: text %q host saw %v", res.Text, got.Load())
			}
			res = run(t, k, "import getpass\npw = getpass.getpass('PW: ')\nprint(len(pw))")
			if !strings.Contains(res.Text, "6") || got.Load() != "PW: |true" {
				t.Fatalf("getpass: text %q host saw %v", res.Text, got.Load())
			}
			h.input = func(context.Context, string, bool) (string, error) { return "", errors.New("no front end") }
			res = run(t, k, "try:\n    input()\nexcept EOFError:\n    print('eof')")
			if !strings.Contains(res.Text, "eof") {
				t.Fatalf("host error should raise EOFError: %q", res.Text)
			}
		})
	}
}

func TestConcurrentCallbacks(t *testing.T) {
	for name, py := range pythons(t) {
		t.Run(name, func(t *testing.T) {
			s := sharedServer(t, py)
			var inFlight, peak atomic.Int32
			// Requests wait until two are in flight at once, which only a
			// host that serves them concurrently sees; a serial one gives
			// up waiting after the safety net and fails the peak check.
			overlapped := make(chan struct{})
			var once sync.Once
			giveUp, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			h := &testHost{tool: func(_ context.Context, _, _ string, args json.RawMessage) (json.RawMessage, error) {
				n := inFlight.Add(1)
				defer inFlight.Add(-1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				if n >= 2 {
					once.Do(func() { close(overlapped) })
				}
				select {
				case <-overlapped:
				case <-giveUp.Done():
				}
				return args, nil
			}}
			k := startKernel(t, s, KernelOptions{Host: h})
			res := run(t, k, `
import asyncio, threading
from concurrent.futures import ThreadPoolExecutor
from freeact_runtime import call_tool
def work(i):
    return [call_tool('s', 't', {'i': i, 'j': j})['j'] for j in range(10)]
with ThreadPoolExecutor(8) as ex:
    results = list(ex.map(work, range(16)))
print('threads ok', all(r == list(range(10)) for r in results))
async def main():
    rs = await asyncio.gather(*[asyncio.to_thread(call_tool, 's', 't', {'k': k}) for k in range(20)])
    return [r['k'] for r in rs]
print('to_thread ok', await main() == list(range(20)))
`)
			if res.Error != nil || !strings.Contains(res.Text, "threads ok True") || !strings.Contains(res.Text, "to_thread ok True") {
				t.Fatalf("output %q error %v", res.Text, res.Error)
			}
			if peak.Load() < 2 {
				t.Fatalf("requests never overlapped (peak %d): not concurrent", peak.Load())
			}
		})
	}
}

// TestRequestAfterCellEnded: requests from a thread whose cell has ended
// are refused with a message the code sees, never passed to the host as
// if they came from the running cell; work a later cell hands to an older
// thread pool belongs to that later cell.
func TestRequestAfterCellEnded(t *testing.T) {
	for name, py := range pythons(t) {
		t.Run(name, func(t *testing.T) {
			s := sharedServer(t, py)
			h := &testHost{requests: make(chan string, 10)}
			ws := t.TempDir()
			k := startKernel(t, s, KernelOptions{Host: h, Workspace: ws})
			flag := filepath.Join(t.TempDir(), "go")
			run(t, k, `
import os, threading
from concurrent.futures import ThreadPoolExecutor
from freeact_runtime import call_tool
pool = ThreadPoolExecutor(2)
print(pool.submit(call_tool, 's', 'first', {}).result())
def attempts(go):
    go()
    out = []
    for what, f in [("tool", lambda: call_tool('s', 'late', {})),
                    ("shell", lambda: get_ipython().system('touch late.txt')),
                    ("input", lambda: input('late? '))]:
        try:
            f()
            out.append(what + ": ran")
        except Exception as e:
            out.append(f"{what}: {type(e).__name__}: {e}")
    return out
results = {}
ev = threading.Event()
t1 = threading.Thread(target=lambda: results.__setitem__('next cell', attempts(ev.wait)))
t1.start()
def wait_file():
    while not os.path.exists(`+pyString(flag)+`):
        threading.Event().wait(0.01)
t2 = threading.Thread(target=lambda: results.__setitem__('idle', attempts(wait_file)))
t2.start()
`)
			if got := drain(h.requests); len(got) != 1 || got[0] != "tool:s.first" {
				t.Fatalf("host saw %q during the first cell, want the pool's call", got)
			}
			// The second thread goes on while no cell runs (or during the
			// next one: either way its cell has ended).
			if err := os.WriteFile(flag, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			res := run(t, k, "ev.set(); t1.join(); t2.join()\nfor k, v in sorted(results.items()):\n    print(k, v)\nprint(pool.submit(call_tool, 's', 'again', {}).result())")
			if res.Error != nil {
				t.Fatalf("cell raised %v: %s", res.Error, res.Text)
			}
			if got := drain(h.requests); len(got) != 1 || got[0] != "tool:s.again" {
				t.Errorf("host saw %q, want only the pool's call of the running cell", got)
			}
			for _, want := range []string{"tool: ToolFailed: s.late: refused: the cell this request comes from has ended",
				"shell: CellEnded: shell command refused, not run: the cell this request comes from has ended",
				"input: CellEnded: input refused: the cell this request comes from has ended"} {
				if n := strings.Count(res.Text, want); n != 2 {
					t.Errorf("%q appears %d times, want 2 (idle and next cell):\n%s", want, n, res.Text)
				}
			}
			if _, err := os.Stat(filepath.Join(ws, "late.txt")); err == nil {
				t.Error("the late shell command ran")
			}
		})
	}
}

// drain returns what is buffered in ch now.
func drain(ch chan string) []string {
	var out []string
	for {
		select {
		case s := <-ch:
			out = append(out, s)
		default:
			return out
		}
	}
}

func pyString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestLargePayloads sends 12 MiB each way: over tornado's default 10 MiB
// websocket message limit, so it fails unless the server raised it.
func TestLargePayloads(t *testing.T) {
	for name, py := range pythons(t) {
		t.Run(name, func(t *testing.T) {
			s := sharedServer(t, py)
			h := &testHost{tool: func(_ context.Context, _, _ string, args json.RawMessage) (json.RawMessage, error) {
				var a struct{ Data string }
				if err := json.Unmarshal(args, &a); err != nil {
					return nil, err
				}
				return json.Marshal(map[string]any{"len": len(a.Data), "back": strings.Repeat("y", 12<<20)})
			}}
			k := startKernel(t, s, KernelOptions{Host: h})
			res := run(t, k, "from freeact_runtime import call_tool\nr = call_tool('s', 'big', {'data': 'x' * (12 << 20)})\nprint(r['len'], len(r['back']))")
			want := fmt.Sprintf("%d %d", 12<<20, 12<<20)
			if !strings.Contains(res.Text, want) {
				t.Fatalf("output %q error %v, want %q", res.Text, res.Error, want)
			}
		})
	}
}

func TestCallbackDeadline(t *testing.T) {
	for name, py := range pythons(t) {
		t.Run(name, func(t *testing.T) {
			s := sharedServer(t, py)
			ctxEnded := make(chan error, 1)
			h := &testHost{approve: func(ctx context.Context, _ ShellRequest) (bool, error) {
				<-ctx.Done() // never answers
				ctxEnded <- ctx.Err()
				return true, nil
			}}
			ws := t.TempDir()
			k := startKernel(t, s, KernelOptions{Host: h, Workspace: ws, CallbackTimeout: 500 * time.Millisecond})
			res := run(t, k, "!touch ran.txt")
			if res.Error == nil || res.Error.Name != "CallbackTimeout" {
				t.Fatalf("want CallbackTimeout, got %+v text %q", res.Error, res.Text)
			}
			if _, err := os.Stat(filepath.Join(ws, "ran.txt")); err == nil {
				t.Fatal("command ran although approval never came")
			}
			if err := testenv.Receive(t, ctxEnded, time.Minute, "the end of the host request's context"); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("host context ended with %v", err)
			}
		})
	}
}

// A host that answers after the request's deadline gets no reply sent: the
// code raised CallbackTimeout at that deadline (it started counting first),
// and a late yes must not reach it when its thread ran late.
func TestLateAnswerIsNotSent(t *testing.T) {
	h := &testHost{approve: func(ctx context.Context, _ ShellRequest) (bool, error) {
		<-ctx.Done()
		return true, nil
	}}
	k := &Kernel{opts: KernelOptions{Host: h}}
	bg := context.Background()
	if _, late := k.answer(bg, bg, marker+`{"kind":"shell","command":"ls","timeout":0.01}`, false); !late {
		t.Error("an approval after the deadline is sent")
	}
	h.approve = nil // yes at once
	if v, late := k.answer(bg, bg, marker+`{"kind":"shell","command":"ls","timeout":60}`, false); late || v != `{"ok":true,"result":true}` {
		t.Errorf("an approval in time: %q, late %v", v, late)
	}
}
