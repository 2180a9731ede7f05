package kernel

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/testenv"
)

func pidOf(t *testing.T, k *Kernel) int {
	t.Helper()
	res := run(t, k, "import os; print(os.getpid())")
	pid, err := strconv.Atoi(strings.TrimSpace(res.Text))
	if err != nil {
		t.Fatalf("pid from %q: %v", res.Text, err)
	}
	return pid
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// waitGone waits for a process to end (a safety net of a minute: on a
// loaded machine ending and reaping it can take a while).
func waitGone(t *testing.T, what string, pid int) {
	t.Helper()
	testenv.Eventually(t, time.Minute, func() error {
		if alive(pid) {
			return fmt.Errorf("%s (pid %d) is still running", what, pid)
		}
		return nil
	})
}

// Every cell of this kernel runs under the limit, so it leaves a loaded
// machine time for the cells that must not time out.
func TestExecutionTimeout(t *testing.T) {
	s := sharedServer(t, newPython(t))
	k := startKernel(t, s, KernelOptions{ExecutionTimeout: 3 * time.Second})
	run(t, k, "kept = 'state'")
	start := time.Now()
	res := run(t, k, "while True: pass")
	if !res.TimedOut || !strings.Contains(res.Text, "timed out after 3s") {
		t.Fatalf("want a timeout notice, got timedOut=%v text %q", res.TimedOut, res.Text)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("a 3 s timeout took %s", d)
	}
	if res := run(t, k, "print(kept)"); !strings.Contains(res.Text, "state") {
		t.Fatalf("state lost after timeout: %q", res.Text)
	}
}

// The approval of the first command takes longer than the whole limit; the
// cell itself runs far below it, so it must finish even on a loaded machine.
func TestTimeoutExcludesCallbackWait(t *testing.T) {
	s := sharedServer(t, newPython(t))
	h := &testHost{approve: func(ctx context.Context, req ShellRequest) (bool, error) {
		if req.Command == "echo approved-late" {
			time.Sleep(2500 * time.Millisecond) // a slow human
		}
		return true, nil
	}}
	k := startKernel(t, s, KernelOptions{Host: h, ExecutionTimeout: 2 * time.Second})
	res := run(t, k, "import time\ntime.sleep(0.1)\n!echo approved-late\ntime.sleep(0.1)\nprint('finished')")
	if res.TimedOut || !strings.Contains(res.Text, "finished") {
		t.Fatalf("approval wait counted against the timeout: %+v", res)
	}
	// ... but execution time on both sides of the wait still counts.
	res = run(t, k, "time.sleep(1.1)\n!true\ntime.sleep(1.1)\nprint('finished')")
	if !res.TimedOut {
		t.Fatalf("2.2 s of execution did not time out with a 2 s limit: %q", res.Text)
	}
}

// The command prints first, so the interrupt comes when IPython runs it:
// an interrupt while IPython is still spawning it (pexpect.spawn) leaves the
// command running, a fault of IPython's, not what this test is about.
func TestInterruptShellCommand(t *testing.T) {
	for name, py := range pythons(t) {
		t.Run(name, func(t *testing.T) {
			s := sharedServer(t, py)
			k := startKernel(t, s, KernelOptions{Host: &testHost{}})
			marker := "600.00" + strconv.Itoa(os.Getpid())
			done := startCell(t, context.Background(), k, "!echo started; sleep "+marker, "started")
			testenv.Eventually(t, time.Minute, func() error {
				if len(processesMentioning(marker)) == 0 {
					return errors.New("the approved sleep is not running")
				}
				return nil
			})
			start := time.Now()
			if err := k.Interrupt(context.Background()); err != nil {
				t.Fatal(err)
			}
			testenv.Receive(t, done, time.Minute, "the end of the interrupted !sleep 600")
			t.Logf("interrupt took %s", time.Since(start))
			waitNoProcesses(t, marker) // the sleep itself was stopped
			if res := run(t, k, "print('alive')"); !strings.Contains(res.Text, "alive") {
				t.Fatalf("kernel unusable after interrupt: %q", res.Text)
			}
		})
	}
}

func TestInterruptWhileWaitingOnCallback(t *testing.T) {
	for name, py := range pythons(t) {
		t.Run(name, func(t *testing.T) {
			s := sharedServer(t, py)
			cancelled := make(chan error, 1)
			h := &testHost{requests: make(chan string, 4), approve: func(ctx context.Context, _ ShellRequest) (bool, error) {
				<-ctx.Done()
				cancelled <- ctx.Err()
				return false, ctx.Err()
			}}
			k := startKernel(t, s, KernelOptions{Host: h})
			done := make(chan *Result, 1)
			go func() {
				res, _ := k.Execute(context.Background(), "!echo never", nil)
				done <- res
			}()
			testenv.Receive(t, h.requests, time.Minute, "the approval request")
			if err := k.Interrupt(context.Background()); err != nil {
				t.Fatal(err)
			}
			res := testenv.Receive(t, done, time.Minute, "the end of a cell waiting on the host after an interrupt")
			if res == nil || res.Error == nil || res.Error.Name != "KeyboardInterrupt" || strings.Contains(res.Text, "never\n") {
				t.Fatalf("want KeyboardInterrupt and nothing run, got %+v", res)
			}
			if strings.Contains(res.Error.Traceback, "freeact_kernel") {
				t.Fatalf("hook frames in traceback:\n%s", res.Error.Traceback)
			}
			if err := testenv.Receive(t, cancelled, time.Minute, "the cancellation of the host request"); !errors.Is(err, context.Canceled) {
				t.Fatalf("host context: %v", err)
			}
		})
	}
}

func TestCancelContextInterrupts(t *testing.T) {
	s := sharedServer(t, newPython(t))
	k := startKernel(t, s, KernelOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := startCell(t, ctx, k, "import time\nprint('sleeping', flush=True)\ntime.sleep(30)", "sleeping")
	cancel()
	o := testenv.Receive(t, done, time.Minute, "the end of a cancelled time.sleep(30)")
	if !errors.Is(o.err, context.Canceled) || o.res == nil || o.res.Error == nil || o.res.Error.Name != "KeyboardInterrupt" {
		t.Fatalf("want the cell interrupted and context.Canceled, got %+v %v", o.res, o.err)
	}
	if res := run(t, k, "print('next')"); !strings.Contains(res.Text, "next") {
		t.Fatalf("%q", res.Text)
	}
}

func TestRestart(t *testing.T) {
	for name, py := range pythons(t) {
		t.Run(name, func(t *testing.T) {
			s := sharedServer(t, py)
			h := &testHost{}
			k := startKernel(t, s, KernelOptions{Host: h})
			run(t, k, "x = 1")
			if err := k.Restart(context.Background()); err != nil {
				t.Fatal(err)
			}
			res := run(t, k, "x")
			if res.Error == nil || res.Error.Name != "NameError" {
				t.Fatalf("state survived restart: %+v", res)
			}
			res = run(t, k, "!echo hooks-back")
			if len(h.commands()) != 1 || !strings.Contains(res.Text, "hooks-back") {
				t.Fatalf("hooks not loaded after restart: %q %+v", res.Text, h.commands())
			}
		})
	}
}

func TestKernelDeath(t *testing.T) {
	cases := []struct {
		name string
		code string
		kill bool // SIGKILL the kernel once the cell printed "started"
	}{
		{"os._exit", "import os; os._exit(1)", false},
		{"killed mid-cell", "import time; print('started', flush=True); time.sleep(30)", true},
	}
	s := sharedServer(t, newPython(t))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := &testHost{}
			k := startKernel(t, s, KernelOptions{Host: h})
			run(t, k, "x = 1")
			pid := pidOf(t, k)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var err error
			if c.kill {
				done := startCell(t, ctx, k, c.code, "started")
				if err := signal(pid, sigKill); err != nil {
					t.Fatal(err)
				}
				o := testenv.Receive(t, done, time.Minute, "the end of the cell whose kernel was killed")
				err = o.err
				// What it printed before it died stays its output.
				if o.res == nil || !strings.Contains(o.res.Text, "started") {
					t.Errorf("the killed cell's output %+v lost what it printed", o.res)
				}
			} else {
				_, err = k.Execute(ctx, c.code, nil)
			}
			if !errors.Is(err, ErrKernelDied) || !strings.Contains(err.Error(), "state was lost") {
				t.Fatalf("want ErrKernelDied, got %v", err)
			}
			res := run(t, k, "x")
			if res.Error == nil || res.Error.Name != "NameError" {
				t.Fatalf("next execution should run in a fresh kernel: %+v", res)
			}
			if res := run(t, k, "!echo fresh"); !strings.Contains(res.Text, "fresh") || len(h.commands()) != 1 {
				t.Fatalf("hooks missing in fresh kernel: %q", res.Text)
			}
		})
	}
}

// TestServerKilledMidCell: the running cell fails with a clear error; the
// next execution relaunches the local server and runs in a fresh kernel.
// (Local kernels reached over ZeroMQ have no server: see TestKernelDeath.)
func TestServerKilledMidCell(t *testing.T) {
	py := newPython(t)
	dir := t.TempDir()
	s, err := StartServer(context.Background(), ServerOptions{Python: py, Dir: dir, JupyterServer: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h := &testHost{}
	k := startKernel(t, s, KernelOptions{Host: h})
	run(t, k, "x = 1")
	kpid, spid := pidOf(t, k), s.PID()
	if spid <= 0 {
		t.Fatalf("no server process (pid %d)", spid)
	}
	// Generous: the next execution starts a new server and kernel.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done := startCell(t, ctx, k, "import time; print('started', flush=True); time.sleep(30)", "started")
	if err := signal(-spid, sigKill); err != nil {
		t.Fatal(err)
	}
	if err := testenv.Receive(t, done, time.Minute, "the end of the cell whose server was killed").err; !errors.Is(err, ErrConnectionLost) {
		t.Fatalf("want ErrConnectionLost, got %v", err)
	}
	waitGone(t, "orphaned kernel", kpid)
	res, err := k.Execute(ctx, "x", nil)
	if err != nil || res.Error == nil || res.Error.Name != "NameError" {
		t.Fatalf("next execution should run in a fresh kernel: %+v %v", res, err)
	}
	if s.PID() == spid {
		t.Fatal("server was not relaunched")
	}
	if res := run(t, k, "!echo hooks"); !strings.Contains(res.Text, "hooks") || len(h.commands()) != 1 {
		t.Fatalf("hooks missing after relaunch: %q", res.Text)
	}
	s.Close()
	waitNoProcesses(t, dir)
}

func TestCloseDuringExecution(t *testing.T) {
	s := sharedServer(t, newPython(t))
	k := startKernel(t, s, KernelOptions{})
	pid := pidOf(t, k)
	done := startCell(t, context.Background(), k, "import time; print('started', flush=True); time.sleep(30)", "started")
	k.Close()
	if err := testenv.Receive(t, done, time.Minute, "the return of Execute after Close").err; err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("err %v", err)
	}
	waitGone(t, "closed kernel", pid)
	if _, err := k.Execute(context.Background(), "1", nil); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("execute after close: %v", err)
	}
}

// A cell that ignores SIGINT cannot be interrupted: after a grace period the
// kernel is given up and the next execution gets a fresh one. The limit
// leaves the cell ample time to ignore SIGINT before the timeout's
// interrupt comes, even on a loaded machine; the output shows it did.
func TestUninterruptibleCell(t *testing.T) {
	s := sharedServer(t, newPython(t))
	k := startKernel(t, s, KernelOptions{ExecutionTimeout: 5 * time.Second})
	pid := pidOf(t, k)
	res, err := k.Execute(context.Background(), "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint('ignoring SIGINT', flush=True)\ntime.sleep(60)", nil)
	if res != nil && !strings.Contains(res.Text, "ignoring SIGINT") {
		t.Fatalf("the timeout came before the cell ignored SIGINT: %+v", res)
	}
	if !errors.Is(err, ErrKernelDied) || res == nil || !res.TimedOut {
		t.Fatalf("want a timeout and ErrKernelDied, got %+v %v", res, err)
	}
	if res := run(t, k, "print('fresh')"); !strings.Contains(res.Text, "fresh") {
		t.Fatalf("%q", res.Text)
	}
	waitGone(t, "stuck kernel", pid)
}
