package kernel

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// safeWriter is a Log the test reads while the server writes it.
type safeWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *safeWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *safeWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

// A kernel that dies while it starts is started once more: one death does
// not fail the start (and the server's log says why it happened); a
// kernel that dies at every start fails, saying it died and what it
// printed, after two tries.
func TestKernelThatDiesWhileStartingIsStartedAgain(t *testing.T) {
	py := newPython(t)
	for _, c := range []struct {
		name   string
		deaths int // starts that die before the kernel runs
		ok     bool
	}{
		{"once", 1, true},
		{"always", 99, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			count := filepath.Join(dir, "starts")
			// The kernel's Python, counting its starts: the first deaths
			// exit at once, as a process killed while starting would.
			wrapper := filepath.Join(dir, "python")
			script := "#!/bin/sh\necho x >> " + count + "\n" +
				"if [ $(wc -l < " + count + ") -le " + strconv.Itoa(c.deaths) + " ]; then echo 'dying on purpose' >&2; exit 3; fi\n" +
				"exec " + py + " \"$@\"\n"
			if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			log := &safeWriter{w: &bytes.Buffer{}}
			s, err := StartServer(context.Background(), ServerOptions{Python: py, KernelPython: wrapper, Dir: t.TempDir(), Log: log})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			k, err := s.StartKernel(ctx, KernelOptions{Workspace: t.TempDir()})
			data, _ := os.ReadFile(count)
			starts := strings.Count(string(data), "x")
			if c.ok {
				if err != nil {
					t.Fatalf("a kernel that died once was not started again: %v", err)
				}
				defer k.Close()
				if res := run(t, k, "print(6 * 7)"); !strings.Contains(res.Text, "42") {
					t.Errorf("the second kernel runs %q", res.Text)
				}
				if starts != 2 || !strings.Contains(log.String(), "died while it started") {
					t.Errorf("%d starts, log %q", starts, log.String())
				}
				return
			}
			if err == nil {
				k.Close()
				t.Fatal("a kernel that dies at every start started")
			}
			if !errors.Is(err, errExitedStarting) || !strings.Contains(err.Error(), "dying on purpose") || starts != 2 {
				t.Errorf("after %d starts: %v", starts, err)
			}
		})
	}
}
