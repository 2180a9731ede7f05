package app

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/app/internal/fronttest"
	"github.com/freeact/desktop/app/terminal"
	"github.com/freeact/desktop/internal/testenv"
)

// raceBinary is freeact built with the race detector: a data race in the
// program makes it print "DATA RACE" and exit with status 66.
func raceBinary(t *testing.T) string { return fronttest.Binary(t, "-race") }

// A server's form and an approval opened at once by two threads of one
// cell are asked one after the other in the interactive terminal: the
// second waits (saying so) until the first is answered, then says it is
// next, and each answer reaches the question it was typed for. The
// program runs under the race detector: no two readers share stdin.
func TestTerminalAsksAFormAndAnApprovalOneAtATime(t *testing.T) {
	bin := raceBinary(t)
	cell := `import threading
from freeact_runtime import call_tool
out = {}
def run(k, tool, args):
    try:
        out[k] = call_tool("everything", tool, args)
    except Exception as e:
        out[k] = "refused: %s" % e
ts = [threading.Thread(target=run, args=("form", "trigger-elicitation-request", {})),
      threading.Thread(target=run, args=("echo", "echo", {"message": "hello there"}))]
for th in ts: th.start()
for th in ts: th.join()
print("FORM:", out["form"])
print("ECHO:", out["echo"])`
	code, _ := json.Marshal(cell)
	ws, env, _ := terminalEnv(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: `+string(code)+`}}}]
  - reply: [{text: "Both answered."}]
`)
	everythingWorkspace(t, ws, "ptc_servers")
	// The form's call needs no approval: it opens while the echo's
	// approval is asked, or the other way round.
	perms := `{"allow":[{"type":"GenericCall","tool_name":"everything_trigger-elicitation-request"}],"ask":[]}`
	if err := os.WriteFile(filepath.Join(ws, ".freeact", "permissions.json"), []byte(perms), 0o644); err != nil {
		t.Fatal(err)
	}
	scr, send, exited := startTerminal(t, exec.Command(bin, "run", "--workspace", ws), env, 200)
	scr.expect(t, "> ")
	send("Ask me twice.\r")
	scr.expect(t, "Approve?") // the cell
	send("y\r")

	formFirst := `(an approval waits until a form of MCP server "everything" is answered)`
	approvalFirst := `(a form of MCP server "everything" waits until an approval is answered)`
	var first string
	testenv.Eventually(t, 2*time.Minute, func() error {
		s := scr.String()
		switch {
		case strings.Contains(s, formFirst):
			first = "form"
		case strings.Contains(s, approvalFirst):
			first = "approval"
		default:
			return errors.New("the two questions are not both open, one waiting")
		}
		return nil
	})
	if first == "form" {
		scr.expect(t, "Answer it? [y/N/c(ancel)]")
		send("n\r") // declines the form; taken by the approval it would reject the echo
		scr.expect(t, "── next: an approval ──")
		scr.expect(t, "Approve?")
		send("y\r")
	} else {
		scr.expect(t, "Approve?")
		send("y\r")
		scr.expect(t, `── next: a form of MCP server "everything" ──`)
		scr.expect(t, "Answer it? [y/N/c(ancel)]")
		send("n\r")
	}
	scr.expect(t, "Both answered.")
	scr.expect(t, "> ")
	quit(t, send, exited)
	s := scr.String()
	if !strings.Contains(s, "ECHO: ") || !strings.Contains(s, "hello there") || strings.Contains(s, "ECHO: refused") {
		t.Errorf("the approved echo did not run:\n%s", s)
	}
	if !strings.Contains(s, "FORM: ") || !strings.Contains(strings.ToLower(s[strings.Index(s, "FORM: "):]), "declined") {
		t.Errorf("the form was not declined:\n%s", s)
	}
	if strings.Contains(s, "DATA RACE") {
		t.Errorf("a data race:\n%s", s)
	}
}

// A server whose form comes while freeact starts (it asks before it
// answers the handshake) and the offer to replay a resumed session's
// cells are asked one after the other in the interactive terminal: the
// second waits, saying so, until the first is answered, and each answer
// reaches its own question. The program runs under the race detector.
func TestTerminalAsksAStartupFormAndTheReplayOfferOneAtATime(t *testing.T) {
	bin := raceBinary(t)
	ws, env, _ := terminalEnv(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "word = 'kept'"}}}]
  - reply: [{text: "Set."}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "print(word.upper())"}}}]
  - reply: [{text: "Said."}]
`)
	first := exec.Command(bin, "run", "--workspace", ws, "--skip-permissions", "--prompt", "Set a word.")
	first.Env = env
	if out, err := first.CombinedOutput(); err != nil || !strings.Contains(string(out), "Set.") {
		t.Fatalf("the first run: %v\n%s", err, out)
	}
	sessions, err := filepath.Glob(filepath.Join(ws, ".freeact", "sessions", "*", "main.jsonl"))
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions: %v %v", sessions, err)
	}
	id := filepath.Base(filepath.Dir(sessions[0]))

	// The resumed session's start connects a server that asks a form.
	srv, answer := mcptest.FormsOnInitialize(t)
	file := filepath.Join(ws, ".freeact", "agent.json")
	var cfg map[string]any
	if b, err := os.ReadFile(file); err != nil || json.Unmarshal(b, &cfg) != nil {
		t.Fatalf("read agent.json: %v", err)
	}
	cfg["mcp_servers"] = map[string]any{"asks": srv}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	scr, send, exited := startTerminal(t, exec.Command(bin, "run", "--workspace", ws, "--session-id", id, "--skip-permissions"), env, 200)

	const form, offer = `a form of MCP server "asks"`, terminal.HoldReplay
	formFirst := "(" + offer + " waits until " + form + " is answered)"
	offerFirst := "(" + form + " waits until " + offer + " is answered)"
	var order string
	testenv.Eventually(t, 2*time.Minute, func() error {
		s := scr.String()
		switch {
		case strings.Contains(s, formFirst):
			order = "form"
		case strings.Contains(s, offerFirst):
			order = "offer"
		default:
			return errors.New("the form and the offer are not both open, one waiting")
		}
		return nil
	})
	answerForm := func() {
		scr.expect(t, "Answer it? [y/N/c(ancel)]")
		send("y\r")
		scr.expect(t, "[optional]: ")
		send("Ada\r") // taken by the offer, it would say no to the replay
	}
	answerOffer := func() {
		scr.expect(t, "Replay them to restore its variables? [y/N, v shows all their code]")
		send("y\r") // taken by the form, it would be the name
	}
	if order == "form" {
		answerForm()
		scr.expect(t, "── next: "+offer+" ──")
		answerOffer()
	} else {
		answerOffer()
		scr.expect(t, "── next: "+form+" ──")
		answerForm()
	}
	scr.expect(t, "replaying cell 1 of 1")
	scr.expect(t, "cells run: 1 of 1, failed: 0")
	scr.expect(t, "> ")
	send("Say it.\r")
	scr.expect(t, "KEPT")
	scr.expect(t, "Said.")
	scr.expect(t, "> ")
	quit(t, send, exited)
	got, err := os.ReadFile(answer)
	if err != nil {
		t.Fatalf("the server got no answer: %v", err)
	}
	if !strings.Contains(string(got), `"accept"`) || !strings.Contains(string(got), `"name":"Ada"`) {
		t.Errorf("the form's answer %s; want it accepted with name Ada", got)
	}
	if s := scr.String(); strings.Contains(s, "DATA RACE") || strings.Contains(s, "NameError") {
		t.Errorf("a data race or a lost variable:\n%s", s)
	}
}
