package app

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

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
	scr, send, exited := startTerminal(t, exec.Command(bin, "run", "--workspace", ws), env, 120)
	scr.expect(t, "> ")
	send("Print a word.\r")
	scr.expect(t, "Approve? [Y/n/a/s/d/e]")
	send("e\r")
	scr.expect(t, "the cell as you edited it")
	scr.expect(t, "word = 'user'")
	scr.expect(t, "Approve?")
	send("y\r")
	scr.expect(t, "\nuser")
	scr.expect(t, "You changed it.")
	scr.expect(t, "> ")
	quit(t, send, exited)

	// The session's folder; its writer's lock file lies beside it.
	sessions, err := filepath.Glob(filepath.Join(ws, ".freeact", "sessions", "*", "main.jsonl"))
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions: %v %v", sessions, err)
	}
	id := filepath.Base(filepath.Dir(sessions[0]))
	scr, send, exited = startTerminal(t, exec.Command(bin, "run", "--workspace", ws, "--session-id", id), env, 120)
	scr.expect(t, "This session's 1 successful code cell would run again:")
	scr.expect(t, "Cell 1:")
	scr.expect(t, "word = 'user'") // the code that ran, as the user edited it
	scr.expect(t, "Replay them to restore its variables? [y/N, v shows all their code]")
	send("v\r")
	scr.expect(t, "print(word)")
	scr.expect(t, "Replay them")
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
	quit(t, send, exited)
	if strings.Contains(scr.String(), "NameError") {
		t.Error("the replayed variable was missing")
	}
}
