package kernel

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/testenv"
)

// TestWarmPool checks that StartKernel hands out the spare kernel the pool
// keeps and that the pool starts a new spare after each one is taken.
func TestWarmPool(t *testing.T) {
	py := newPython(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dir := t.TempDir()
	// The kernels' folders in dir: their command lines mention it.
	s, err := StartServer(ctx, ServerOptions{Python: py, Dir: dir, RuntimeDir: filepath.Join(dir, "run"), WarmPool: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	kernelsWhen := func(want int) []string { t.Helper(); return kernelsWhen(t, s, want) }

	spare := kernelsWhen(1) // the pool's spare, before anyone asked
	a := startKernel(t, s, KernelOptions{})
	if a.ID() != spare[0] {
		t.Errorf("first kernel %s is not the spare %s", a.ID(), spare[0])
	}
	ids := kernelsWhen(2) // a's kernel and a new spare
	next := ids[0]
	if next == a.ID() {
		next = ids[1]
	}
	b := startKernel(t, s, KernelOptions{})
	if b.ID() != next {
		t.Errorf("second kernel %s is not the refilled spare %s", b.ID(), next)
	}
	if !slices.Contains(kernelsWhen(3), b.ID()) {
		t.Error("second kernel is not running")
	}
	// Kernels from the pool are separate and configured.
	run(t, a, "v = 'a'")
	if r := run(t, b, "print('v' in dir())"); r.Text != "False\n" {
		t.Errorf("pool kernels share state: %q", r.Text)
	}
}

// kernelsWhen waits until s runs want kernels and returns their ids: the
// kernel processes of its folder (their connection file names the id).
func kernelsWhen(t *testing.T, s *Server, want int) []string {
	t.Helper()
	var ids []string
	named := regexp.MustCompile(`kernel-([0-9a-f]+)\.json`)
	testenv.Eventually(t, time.Minute, func() error {
		ids = ids[:0]
		for _, pid := range processesMentioning(s.StateDir()) {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			if m := named.FindSubmatch(b); err == nil && m != nil && !slices.Contains(ids, string(m[1])) {
				ids = append(ids, string(m[1]))
			}
		}
		if len(ids) != want {
			return fmt.Errorf("the server runs %d kernels, want %d", len(ids), want)
		}
		return nil
	})
	return ids
}

// TestWarmPoolHeldBack checks WarmAfter: no spare at start nor with the
// first kernel; Warm starts it and the next StartKernel takes it; left
// idle, the server starts it by itself.
func TestWarmPoolHeldBack(t *testing.T) {
	py := newPython(t)
	start := func(after time.Duration) *Server {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		dir := t.TempDir()
		s, err := StartServer(ctx, ServerOptions{Python: py, Dir: dir, RuntimeDir: filepath.Join(dir, "run"), WarmPool: true, WarmAfter: after})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	t.Run("warm", func(t *testing.T) {
		s := start(time.Hour)
		a := startKernel(t, s, KernelOptions{})
		if ids := kernelsWhen(t, s, 1); ids[0] != a.ID() {
			t.Fatalf("the server runs %v, want only the first kernel %s", ids, a.ID())
		}
		s.mu.Lock()
		warmed := s.warmed
		s.mu.Unlock()
		if warmed {
			t.Fatal("the pool started a spare before Warm or WarmAfter")
		}
		s.Warm()
		ids := kernelsWhen(t, s, 2)
		spare := ids[0]
		if spare == a.ID() {
			spare = ids[1]
		}
		b := startKernel(t, s, KernelOptions{})
		if b.ID() != spare {
			t.Errorf("kernel %s after Warm is not the spare %s", b.ID(), spare)
		}
		kernelsWhen(t, s, 3) // and the pool refilled
	})
	t.Run("idle", func(t *testing.T) {
		s := start(200 * time.Millisecond)
		a := startKernel(t, s, KernelOptions{})
		run(t, a, "1+1")
		kernelsWhen(t, s, 2) // the spare, once the server was idle
	})
}
