package acp_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/app/internal/fronttest"
	"github.com/freeact/desktop/internal/testenv"
)

// toadScreen is Toad running in a tmux of the test's own (its own server
// socket), read with capture-pane.
type toadScreen struct {
	t      *testing.T
	socket string
	shots  []string // every screen a wait saw last, for the transcript
}

func (s *toadScreen) tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	return string(out), err
}

// capture is the screen now, as text.
func (s *toadScreen) capture() string {
	out, err := s.tmux("capture-pane", "-p", "-t", "toad")
	if err != nil {
		return ""
	}
	return out
}

// waitFor polls the screen until it shows what (a deadline, no sleeping
// in place of an event: the screen is another process's).
func (s *toadScreen) waitFor(what string, d time.Duration) string {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for {
		scr := s.capture()
		if strings.Contains(scr, what) {
			s.shots = append(s.shots, fmt.Sprintf("── screen with %q ──\n%s", what, scr))
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen did not show %q within %s; it shows:\n%s", what, d, scr)
		}
		time.Sleep(100 * time.Millisecond) // polling tmux: no event tells of a redraw
	}
}

func (s *toadScreen) keys(keys ...string) {
	s.t.Helper()
	if out, err := s.tmux(append([]string{"send-keys", "-t", "toad"}, keys...)...); err != nil {
		s.t.Fatalf("send-keys %v: %v %s", keys, err, out)
	}
}

// toad returns the Toad make deps-toad installs (scripts/acp-clients/
// python314.sh) and the prefix of the Python 3.14 it runs on, after
// checking that this Python is 3.14 or later and that Toad is its own.
func toad(t *testing.T) (cmd, prefix string) {
	t.Helper()
	root := testenv.RepoRoot(t)
	prefix = filepath.Join(root, ".cache", "acp-clients", "python3.14")
	if _, err := os.Stat(filepath.Join(prefix, ".installed")); err != nil {
		testenv.Missing(t, "no Toad: run make test-acp-toad (or make deps-toad)")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		testenv.Missing(t, "no tmux for Toad")
	}
	// The wrapper names the prefix by its real path (.cache may be a link).
	prefix, err := filepath.EvalSymlinks(prefix)
	if err != nil {
		t.Fatal(err)
	}
	sid := filepath.Join(prefix, "root")
	out, err := exec.Command(filepath.Join(prefix, "bin", "python3.14"), "-c",
		"import sys, toad; print(sys.version_info >= (3, 14), sys.prefix, toad.__file__, sep='\\n')").CombinedOutput()
	if err != nil {
		t.Fatalf("Toad's Python: %v\n%s", err, out)
	}
	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(got) != 3 || got[0] != "True" || !strings.HasPrefix(got[1], sid) || !strings.HasPrefix(got[2], sid) {
		t.Fatalf("Toad is not on the private Python 3.14 in %s (version >= 3.14, sys.prefix, toad):\n%s", sid, out)
	}
	return filepath.Join(prefix, "bin", "toad"), prefix
}

// TestToadUnderTmux: Toad (batrachian-toad) hosts freeact acp in a
// terminal: a prompt typed, the approval answered by keys, the cell's
// output and the answer streamed on screen.
func TestToadUnderTmux(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("tmux test on Linux")
	}
	toadCmd, prefix := toad(t)
	bin := freeactBinary(t)
	ws, environ, marker := env(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print('six times seven is', 6*7)"}}}]
  - reply: [{text: "It is 42."}]
`)
	// Toad's settings, state and data of its own; tool calls shown
	// expanded, so the cell's output is on screen.
	xdg := filepath.Join(marker, "toad-xdg")
	for _, d := range []string{"config/toad", "state/toad", "data/toad"} {
		if err := os.MkdirAll(filepath.Join(xdg, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(xdg, "config", "toad", "toad.json"), []byte(`{"tools": {"expand": "always"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	environ = append(environ, "XDG_CONFIG_HOME="+filepath.Join(xdg, "config"), "XDG_STATE_HOME="+filepath.Join(xdg, "state"), "XDG_DATA_HOME="+filepath.Join(xdg, "data"))
	s := &toadScreen{t: t, socket: fmt.Sprintf("freeact-toad-%d", os.Getpid())}
	argv := []string{toadCmd, "acp", bin + " acp", ws}
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	start := exec.Command("tmux", "-L", s.socket, "-f", "/dev/null", "new-session", "-d", "-s", "toad", "-x", "160", "-y", "50", strings.Join(quoted, " "))
	start.Env = append(environ, "TERM=xterm-256color")
	start.Dir = ws
	if out, err := start.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() {
		if f := os.Getenv("TOAD_TRANSCRIPT"); f != "" {
			os.WriteFile(f, []byte(strings.Join(s.shots, "\n")), 0o644)
		}
		s.tmux("kill-server")
	})
	// The session is open once the status line shows its mode.
	s.waitFor("Ask for everything", 2*time.Minute)
	// What runs in the pane is sid's loader from the prefix, running its
	// Python 3.14 (Toad's setproctitle rewrites the command line itself).
	if pid, err := s.tmux("display-message", "-p", "-t", "toad", "#{pane_pid}"); err != nil {
		t.Fatalf("the pane's process: %v %s", err, pid)
	} else if exe, err := os.Readlink(filepath.Join("/proc", strings.TrimSpace(pid), "exe")); err != nil || exe != filepath.Join(prefix, "root", "usr", "lib", "x86_64-linux-gnu", "ld-linux-x86-64.so.2") {
		t.Fatalf("Toad's pane runs %q (%v), not sid's loader in %s", exe, err, prefix)
	}
	s.keys("-l", "What is 6*7?")
	s.waitFor("❯ What is 6*7?", time.Minute)
	s.keys("Enter")
	// The approval shows the exact code, with freeact's options as keys.
	scr := s.waitFor("a Allow once", 2*time.Minute)
	for _, want := range []string{"print('six times seven is', 6*7)", "A Always allow ipybox_execute_ipython_cell", "r Reject", "R Always reject ipybox_execute_ipython_cell"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the approval does not show %q:\n%s", want, scr)
		}
	}
	s.keys("a")
	// The cell's output, then the answer, streamed on screen.
	s.waitFor("six times seven is 42", 2*time.Minute)
	scr = s.waitFor("It is 42.", 2*time.Minute)
	if !strings.Contains(scr, "six times seven is 42") {
		t.Errorf("the output is not on the screen with the answer:\n%s", scr)
	}
	// Toad closed (its terminal gone): freeact acp and its kernel stop.
	s.shots = append(s.shots, "── last screen ──\n"+scr)
	s.tmux("kill-server")
	deadline := time.Now().Add(time.Minute)
	for len(fronttest.ProcessesWith(marker)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes left after Toad closed: %v", fronttest.ProcessesWith(marker))
		}
		time.Sleep(100 * time.Millisecond) // polling /proc: no event tells of another process's exit
	}
}
