package app

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const neverScenario = `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
  - reply: [{text: "Refused, as you said."}]
`

// denyRules returns what the workspace's permissions.json says under deny.
func denyRules(t *testing.T, ws string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws, ".freeact", "permissions.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, deny, ok := strings.Cut(string(b), `"deny": [`)
	if !ok {
		return ""
	}
	return deny
}

// The terminal's approval prompt offers d (never): a no that saves the
// suggested rule as a deny rule; the same call is then refused without a
// question.
func TestTerminalNeverSavesADenyRule(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, _ := terminalEnv(t, neverScenario)
	scr, send, exited := startTerminal(t, exec.Command(bin, "run", "--workspace", ws), env, 160)
	scr.expect(t, "> ")
	send("What is 6*7?\r")
	scr.expect(t, "d: never: deny it always")
	send("d\r")
	scr.expect(t, "> ")
	if !strings.Contains(denyRules(t, ws), "ipybox_execute_ipython_cell") {
		t.Fatalf("no deny rule saved")
	}
	send("Again.\r")
	scr.expect(t, "Refused without asking by the deny rule ipybox_execute_ipython_cell")
	scr.expect(t, "Refused, as you said.")
	scr.expect(t, "> ")
	quit(t, send, exited)
	if n := strings.Count(scr.String(), "Approve? ["); n != 1 {
		t.Errorf("%d approval prompts, want 1", n)
	}
}

// In --json mode the answer is a decline with scope never (bare d).
func TestRunJSONNeverSavesADenyRule(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, _ := terminalEnv(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
`)
	r := startJSON(t, bin, env, "--workspace", ws, "--prompt", "What is 6*7?")
	q := r.next("ApprovalRequest")
	r.send(fmt.Sprintf(`{"id":%q,"action":"accept","scope":"never"}`, q["id"]))
	if e := r.next("AnswerError"); !strings.Contains(fmt.Sprint(e["error"]), `scope "never" belongs only to a declined approval`) {
		t.Errorf("never with accept: %v", e)
	}
	r.send(fmt.Sprintf(`{"id":%q,"action":"decline","scope":"never"}`, q["id"]))
	if out := r.next("ToolOutput"); out["is_error"] != true {
		t.Errorf("the declined call: %v", out)
	}
	r.wait(3) // a call was rejected
	if !strings.Contains(denyRules(t, ws), "ipybox_execute_ipython_cell") {
		t.Fatalf("no deny rule saved:\n%s", r.transcript())
	}
}
