//go:build journey

package journey

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// webProcesses returns the pids of the app's WebKitWebProcess: the
// processes below the app's whose command line names it.
func (a *App) webProcesses() []int {
	entries, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so after the last ')'.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 1 {
			parent[pid], _ = strconv.Atoi(f[1])
		}
	}
	below := func(pid int) bool {
		for p := parent[pid]; p > 1; p = parent[p] {
			if p == a.cmd.Process.Pid {
				return true
			}
		}
		return false
	}
	var out []int
	for pid := range parent {
		cmd, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if below(pid) && strings.Contains(string(cmd), "WebKitWebProcess") {
			out = append(out, pid)
		}
	}
	return out
}

// webProcess waits for the app's one web process and returns its pid.
func (a *App) webProcess() int {
	a.t.Helper()
	var pid int
	a.Wait("the app's web process", func() bool {
		ps := a.webProcesses()
		if len(ps) == 1 {
			pid = ps[0]
		}
		return len(ps) == 1
	})
	return pid
}

// alive reports whether pid is still running (not a zombie).
func alive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// lockHeld reports whether a session lock below ws is held by another
// process (an flock the test cannot take).
func lockHeld(t *testing.T, ws string) bool {
	t.Helper()
	locks, _ := filepath.Glob(filepath.Join(ws, ".freeact", "sessions", "*.lock"))
	for _, l := range locks {
		f, err := os.Open(l)
		if err != nil {
			continue
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		_ = f.Close()
		if err != nil {
			return true
		}
	}
	return false
}

// Issue 34, item 2: a web process that dies is noticed. The page is
// loaded again in a new one and shows the same workspace and
// conversation; a second death within a minute says so, and the agent
// is shut down (the session's lock released) before the app quits.
func TestDeadWebProcessIsReloadedThenGivenUp(t *testing.T) {
	ws := Workspace(t, nil)
	app := Start(t, Options{Workspace: ws, Scenario: "testdata/two-turns.yaml"})
	app.WaitFor(Text("Kernel ready"))
	app.Send("First question")
	app.WaitFor(Text("First answer."))
	first := app.webProcess()
	if !lockHeld(t, ws) {
		t.Fatal("no session lock is held while the conversation is open")
	}

	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var second int
	app.Wait("a new web process", func() bool {
		ps := app.webProcesses()
		if len(ps) == 1 && ps[0] != first {
			second = ps[0]
			return true
		}
		return false
	})
	app.WaitFor(Text("Kernel ready"))
	app.WaitFor(Text("First answer."))
	app.WaitFor(Query{Role: "section", Text: "First question"})
	app.Shot("reloaded")
	// The conversation goes on where it was.
	app.Send("Second question")
	app.WaitFor(Text("Second answer."))

	if err := syscall.Kill(second, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	dialog := app.WaitFor(Text("stopped twice within a minute"))
	app.Shot("given-up")
	if lockHeld(t, ws) {
		t.Error("the session lock is still held after the window's page was given up")
	}
	_ = dialog
	app.Click(Query{Role: "push button", Name: "Quit", Exact: true})
	select {
	case <-app.exited:
	case <-time.After(Timeout):
		t.Fatal("the app did not quit after Quit")
	}
}
