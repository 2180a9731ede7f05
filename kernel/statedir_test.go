package kernel

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestIsolatedServersShareADir: two servers over one state directory, one
// sandboxed, started in either order. A kernel the sandboxed server starts
// after the other server started is still sandboxed, and the other one's
// kernels are not: each keeps its kernelspec in a directory of its own,
// which Close removes.
func TestIsolatedServersShareADir(t *testing.T) {
	py, srt := newPython(t), testSrt(t)
	for _, sandboxedFirst := range []bool{true, false} {
		name := map[bool]string{true: "sandboxed first", false: "plain first"}[sandboxedFirst]
		t.Run(name, func(t *testing.T) {
			base := t.TempDir()
			ws, outside := t.TempDir(), t.TempDir()
			start := func(sb *Sandbox) *Server {
				ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
				defer cancel()
				s, err := StartServer(ctx, ServerOptions{Python: py, Dir: base, Isolate: true, Root: ws, Sandbox: sb})
				if err != nil {
					t.Fatalf("start server: %v", err)
				}
				t.Cleanup(func() { s.Close() })
				return s
			}
			var sandboxed, plain *Server
			if sandboxedFirst {
				sandboxed, plain = start(&Sandbox{Srt: srt}), start(nil)
			} else {
				plain, sandboxed = start(nil), start(&Sandbox{Srt: srt})
			}
			if sandboxed.StateDir() == plain.StateDir() || filepath.Dir(sandboxed.StateDir()) != base {
				t.Fatalf("state directories %s and %s: want two under %s", sandboxed.StateDir(), plain.StateDir(), base)
			}
			write := func(s *Server, file string) string {
				k := startKernel(t, s, KernelOptions{Workspace: ws, Host: &testHost{}})
				res := run(t, k, "try:\n    open("+pyString(filepath.Join(outside, file))+", 'w').write('x')\n    print('wrote')\nexcept OSError as e:\n    print('blocked', e)")
				return res.Text
			}
			if out := write(sandboxed, "from-sandbox.txt"); !strings.Contains(out, "blocked") || exists(filepath.Join(outside, "from-sandbox.txt")) {
				t.Errorf("a kernel of the sandboxed server wrote outside its workspace: %q", out)
			}
			if out := write(plain, "from-plain.txt"); !strings.Contains(out, "wrote") {
				t.Errorf("a kernel of the plain server could not write outside the workspace: %q", out)
			}
			for _, s := range []*Server{sandboxed, plain} {
				dir := s.StateDir()
				if err := s.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
				if exists(dir) {
					t.Errorf("%s is still there after Close", dir)
				}
			}
		})
	}
}

// TestStaleStateDirsRemoved: a private directory that no process holds and
// that nothing changed lately is removed when a server starts; the one of a
// running server stays.
func TestStaleStateDirsRemoved(t *testing.T) {
	base := t.TempDir()
	live, err := newStateDir(base)
	if err != nil {
		t.Fatal(err)
	}
	defer live.remove()
	stale := filepath.Join(base, privatePrefix+"123456-abc")
	recent := filepath.Join(base, privatePrefix+"123457-abc")
	other := filepath.Join(base, "not-ours")
	for _, d := range []string{stale, recent, other} {
		if err := os.MkdirAll(filepath.Join(d, "runtime"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	for _, d := range []string{stale, other, live.path} {
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
	}
	next, err := newStateDir(base)
	if err != nil {
		t.Fatal(err)
	}
	defer next.remove()
	if exists(stale) {
		t.Error("the stale directory was not removed")
	}
	for _, d := range []string{recent, other, live.path, next.path} {
		if !exists(d) {
			t.Errorf("%s was removed", d)
		}
	}
}
