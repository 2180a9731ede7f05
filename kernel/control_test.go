package kernel

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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

func waitGone(t *testing.T, what string, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) still running after %s", what, pid, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestExecutionTimeout(t *testing.T) {
	s := sharedServer(t, newPython(t))
	k := startKernel(t, s, KernelOptions{ExecutionTimeout: time.Second})
	run(t, k, "kept = 'state'")
	start := time.Now()
	res := run(t, k, "while True: pass")
	if !res.TimedOut || !strings.Contains(res.Text, "timed out after 1s") {
		t.Fatalf("want a timeout notice, got timedOut=%v text %q", res.TimedOut, res.Text)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Fatalf("timeout took %s", d)
	}
	if res := run(t, k, "print(kept)"); !strings.Contains(res.Text, "state") {
		t.Fatalf("state lost after timeout: %q", res.Text)
	}
}

func TestTimeoutExcludesCallbackWait(t *testing.T) {
	s := sharedServer(t, newPython(t))
	h := &testHost{approve: func(ctx context.Context, _ ShellRequest) (bool, error) {
		time.Sleep(1500 * time.Millisecond) // a slow human
		return true, nil
	}}
	k := startKernel(t, s, KernelOptions{Host: h, ExecutionTimeout: time.Second})
	res := run(t, k, "import time\ntime.sleep(0.4)\n!echo approved-late\ntime.sleep(0.4)\nprint('finished')")
	if res.TimedOut || !strings.Contains(res.Text, "finished") {
		t.Fatalf("approval wait counted against the timeout: %+v", res)
	}
	// ... but execution time on both sides of the wait still counts.
	res = run(t, k, "time.sleep(0.6)\n!true\ntime.sleep(0.6)\nprint('finished')")
	if !res.TimedOut {
		t.Fatalf("1.2 s of execution did not time out with a 1 s limit: %q", res.Text)
	}
}

func TestInterruptShellCommand(t *testing.T) {
	for name, py := range pythons(t) {
		t.Run(name, func(t *testing.T) {
			s := sharedServer(t, py)
			h := &testHost{requests: make(chan string, 4)}
			k := startKernel(t, s, KernelOptions{Host: h})
			done := make(chan *Result, 1)
			marker := "30.00" + strconv.Itoa(os.Getpid())
			go func() {
				res, _ := k.Execute(context.Background(), "!sleep "+marker, nil)
				done <- res
			}()
			<-h.requests
			time.Sleep(500 * time.Millisecond) // let sleep start
			if len(processesMentioning(marker)) == 0 {
				t.Fatal("the approved sleep is not running")
			}
			start := time.Now()
			if err := k.Interrupt(context.Background()); err != nil {
				t.Fatal(err)
			}
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("interrupt did not stop !sleep 30")
			}
			t.Logf("interrupt took %s", time.Since(start))
			waitNoProcesses(t, marker, 2*time.Second) // the sleep itself was stopped
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
			<-h.requests
			if err := k.Interrupt(context.Background()); err != nil {
				t.Fatal(err)
			}
			select {
			case res := <-done:
				if res == nil || res.Error == nil || res.Error.Name != "KeyboardInterrupt" || strings.Contains(res.Text, "never\n") {
					t.Fatalf("want KeyboardInterrupt and nothing run, got %+v", res)
				}
				if strings.Contains(res.Error.Traceback, "freeact_kernel") {
					t.Fatalf("hook frames in traceback:\n%s", res.Error.Traceback)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("interrupt did not end a cell waiting on the host")
			}
			select {
			case err := <-cancelled:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("host context: %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("host request was not cancelled by the interrupt")
			}
		})
	}
}

func TestCancelContextInterrupts(t *testing.T) {
	s := sharedServer(t, newPython(t))
	k := startKernel(t, s, KernelOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	_, err := k.Execute(ctx, "import time\ntime.sleep(30)", nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
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
		kill func(t *testing.T, k *Kernel, pid int) string // returns the cell to run
	}{
		{"os._exit", func(t *testing.T, k *Kernel, pid int) string { return "import os; os._exit(1)" }},
		{"killed mid-cell", func(t *testing.T, k *Kernel, pid int) string {
			go func() {
				time.Sleep(500 * time.Millisecond)
				syscall.Kill(pid, syscall.SIGKILL)
			}()
			return "import time; time.sleep(30)"
		}},
	}
	s := sharedServer(t, newPython(t))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := &testHost{}
			k := startKernel(t, s, KernelOptions{Host: h})
			run(t, k, "x = 1")
			pid := pidOf(t, k)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err := k.Execute(ctx, c.kill(t, k, pid), nil)
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
func TestServerKilledMidCell(t *testing.T) {
	py := newPython(t)
	dir := t.TempDir()
	s, err := StartServer(context.Background(), ServerOptions{Python: py, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h := &testHost{}
	k := startKernel(t, s, KernelOptions{Host: h})
	run(t, k, "x = 1")
	kpid, spid := pidOf(t, k), s.PID()
	go func() {
		time.Sleep(500 * time.Millisecond)
		syscall.Kill(-spid, syscall.SIGKILL)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = k.Execute(ctx, "import time; time.sleep(30)", nil)
	if !errors.Is(err, ErrConnectionLost) {
		t.Fatalf("want ErrConnectionLost, got %v", err)
	}
	waitGone(t, "orphaned kernel", kpid, 5*time.Second)
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
	waitNoProcesses(t, dir, 2*time.Second)
}

func TestCloseDuringExecution(t *testing.T) {
	s := sharedServer(t, newPython(t))
	k := startKernel(t, s, KernelOptions{})
	pid := pidOf(t, k)
	errc := make(chan error, 1)
	go func() {
		_, err := k.Execute(context.Background(), "import time; time.sleep(30)", nil)
		errc <- err
	}()
	time.Sleep(300 * time.Millisecond)
	k.Close()
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "closed") {
			t.Fatalf("err %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Execute did not return after Close")
	}
	waitGone(t, "closed kernel", pid, 5*time.Second)
	if _, err := k.Execute(context.Background(), "1", nil); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("execute after close: %v", err)
	}
}

// A cell that ignores SIGINT cannot be interrupted: after a grace period the
// kernel is given up and the next execution gets a fresh one.
func TestUninterruptibleCell(t *testing.T) {
	s := sharedServer(t, newPython(t))
	k := startKernel(t, s, KernelOptions{ExecutionTimeout: 500 * time.Millisecond})
	pid := pidOf(t, k)
	res, err := k.Execute(context.Background(), "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(60)", nil)
	if !errors.Is(err, ErrKernelDied) || res == nil || !res.TimedOut {
		t.Fatalf("want a timeout and ErrKernelDied, got %+v %v", res, err)
	}
	if res := run(t, k, "print('fresh')"); !strings.Contains(res.Text, "fresh") {
		t.Fatalf("%q", res.Text)
	}
	waitGone(t, "stuck kernel", pid, 10*time.Second)
}
