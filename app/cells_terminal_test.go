package app

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// runTerminal starts `freeact run` with args on a pseudo-terminal and
// returns its screen, a way to type, and a wait for its exit.
func runTerminal(t *testing.T, bin string, env []string, args ...string) (*screen, func(string), func()) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"run"}, args...)...)
	cmd.Env = env
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	scr := &screen{}
	go func() { _, _ = io.Copy(scr, f) }()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	send := func(s string) {
		if _, err := f.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	wait := func() {
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("exit: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("freeact did not quit")
			_ = cmd.Process.Kill()
		}
		f.Close()
		if t.Failed() || testing.Verbose() {
			t.Logf("terminal:\n%s", scr.String())
		}
	}
	return scr, send, wait
}

// e at a code action's approval opens $EDITOR; the edited cell runs and the
// model sees it. Resuming the session then offers to replay it.
func TestTerminalEditAndReplay(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, _ := terminalEnv(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "word = 'model'\nprint(word)"}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "The user edited your code"}]
    reply: [{text: "You changed it."}]
  - expect:
      last:
        - {role: user, text: "All succeeded"}
        - {role: user, text: "And now?"}
    reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "print(word.upper())"}}}]
  - reply: [{text: "USER."}]
`)
	// The "editor" rewrites the cell without a screen, as a person would.
	env = append(env, "VISUAL=", "EDITOR=sed -i s/model/user/")
	scr, send, wait := runTerminal(t, bin, env, "--workspace", ws)
	scr.expect(t, "> ")
	send("Print a word.\r")
	scr.expect(t, "Approve? [Y/n/a/s/e]")
	send("e\r")
	scr.expect(t, "the cell as you edited it")
	scr.expect(t, "word = 'user'")
	scr.expect(t, "Approve?")
	send("y\r")
	scr.expect(t, "\nuser")
	scr.expect(t, "You changed it.")
	scr.expect(t, "> ")
	send("q\r")
	wait()

	sessions, err := os.ReadDir(filepath.Join(ws, ".freeact", "sessions"))
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions: %v %v", sessions, err)
	}
	scr, send, wait = runTerminal(t, bin, env, "--workspace", ws, "--session-id", sessions[0].Name())
	scr.expect(t, "Replay this session's 1 successful code cell to restore its variables? [y/N]")
	send("y\r")
	scr.expect(t, "replaying cell 1 of 1")
	scr.expect(t, "cells run: 1 of 1, failed: 0")
	scr.expect(t, "> ")
	send("And now?\r")
	scr.expect(t, "Approve?")
	send("y\r")
	scr.expect(t, "USER")
	scr.expect(t, "USER.")
	scr.expect(t, "> ")
	send("q\r")
	wait()
	if strings.Contains(scr.String(), "NameError") {
		t.Error("the replayed variable was missing")
	}
}
