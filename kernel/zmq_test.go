package kernel

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/testenv"
)

// TestLocalKeysPrivate: each local kernel gets its own key, in a 0700
// folder of its server's own; once the kernel runs the key is on no disk,
// so code of another kernel (or in a sandbox, which reads the runtime
// folder) cannot find it.
func TestLocalKeysPrivate(t *testing.T) {
	py := newPython(t)
	var dirs []string
	var kernels []*Kernel
	for range 2 {
		dir := t.TempDir()
		s, err := StartServer(context.Background(), ServerOptions{Python: py, Dir: dir, RuntimeDir: filepath.Join(dir, "run")})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if s.URL() != "" || s.Token() != "" || s.PID() != 0 {
			t.Fatalf("a local server without jupyter_server has url %q token %q pid %d", s.URL(), s.Token(), s.PID())
		}
		k := startKernel(t, s, KernelOptions{})
		dirs, kernels = append(dirs, dir), append(kernels, k)
	}
	keys := map[string]bool{}
	for i, k := range kernels {
		z := k.c.z
		keys[z.info.Key] = true
		if fi, err := os.Stat(z.dir); err != nil || fi.Mode().Perm() != 0o700 || !strings.HasPrefix(z.dir, dirs[i]) {
			t.Fatalf("connection folder %s: %v %v, want 0700 under %s", z.dir, fi, err, dirs[i])
		}
		if res := run(t, k, "print(get_ipython().kernel.session.key.decode())"); strings.TrimSpace(res.Text) != z.info.Key {
			t.Fatalf("the kernel runs with key %q, not its own", res.Text)
		}
	}
	if len(keys) != 2 {
		t.Fatal("two kernels share a key")
	}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for key := range keys {
				if bytes.Contains(data, []byte(key)) {
					t.Errorf("%s holds a kernel's key", p)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestHeartbeatNoticesHungKernel: a kernel process that stops answering
// (stopped here, as a hung one would be) while it still exists is found
// dead by its heartbeat, and the next cell runs in a fresh kernel.
func TestHeartbeatNoticesHungKernel(t *testing.T) {
	s := sharedServer(t, newPython(t))
	k := startKernel(t, s, KernelOptions{})
	run(t, k, "x = 1")
	pid := pidOf(t, k)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := startCell(t, ctx, k, "import time; print('started', flush=True); time.sleep(60)", "started")
	if err := signal(pid, sigStop); err != nil {
		t.Fatal(err)
	}
	err := testenv.Receive(t, done, time.Minute, "the end of the cell whose kernel hung").err
	if !errors.Is(err, ErrKernelDied) || !strings.Contains(err.Error(), "heartbeat") {
		t.Fatalf("want ErrKernelDied by heartbeat, got %v", err)
	}
	waitGone(t, "the hung kernel", pid)
	if res := run(t, k, "x"); res.Error == nil || res.Error.Name != "NameError" {
		t.Fatalf("next execution should run in a fresh kernel: %+v", res)
	}
}

// TestInterruptModes: a local kernel is interrupted by SIGINT to its
// process group, or (as in the sandbox, where signals do not reach) by an
// interrupt_request on the control channel.
func TestInterruptModes(t *testing.T) {
	py := newPython(t)
	for _, mode := range []string{"signal", "message"} {
		t.Run(mode, func(t *testing.T) {
			s, err := StartServer(context.Background(), ServerOptions{Python: py, Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			s.spec.InterruptMode = mode
			k := startKernel(t, s, KernelOptions{})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			done := startCell(t, ctx, k, "import time; print('started', flush=True); time.sleep(60)", "started")
			if err := k.Interrupt(ctx); err != nil {
				t.Fatal(err)
			}
			o := testenv.Receive(t, done, time.Minute, "the end of the interrupted cell")
			if o.err != nil || o.res.Error == nil || o.res.Error.Name != "KeyboardInterrupt" {
				t.Fatalf("want KeyboardInterrupt, got %+v %v", o.res, o.err)
			}
			if res := run(t, k, "print('after')"); !strings.Contains(res.Text, "after") {
				t.Fatalf("kernel unusable after the interrupt: %q", res.Text)
			}
		})
	}
}
