package app

import (
	"bytes"
	"encoding/json"
	"github.com/freeact/desktop/agent/approval"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/mcp/mcptest"
)

// An MCP tool its server marks destructive (mcptest's crash) is asked in
// the terminal with its hints and the note why no lasting rule is
// offered: the prompt takes y, n or s, "a" is refused with a plain
// answer, and s grants the tool for the session only (the second call
// runs on the grant, nothing is saved to permissions.json).
func TestTerminalDestructiveToolOffersNoRule(t *testing.T) {
	bin := freeactBinary(t)
	ws, env := destructiveEnv(t)
	scr, send, exited := startTerminal(t, exec.Command(bin, "run", "--workspace", ws), env, 160)
	scr.expect(t, "> ")
	send("Crash it twice.\r")
	scr.expect(t, "server's hints (not checked, never allow a call): changes things, destructive")
	scr.expect(t, approval.NoAlwaysDestructive)
	scr.expect(t, `Approve? [Y/n/s/d] (s: allow "test_crash" for this session, d: never: deny it always)`)
	send("a\r")
	scr.expect(t, "No lasting rule is offered for this call: answer y (once), s (this session) or n (no).")
	send("s\r")
	scr.expect(t, `allowed by this session's grant "test_crash"`)
	scr.expect(t, "Done.")
	scr.expect(t, "> ")
	quit(t, send, exited)
	if b, _ := os.ReadFile(filepath.Join(ws, ".freeact", "permissions.json")); strings.Contains(string(b), "test_crash") {
		t.Errorf("a rule for the destructive tool was saved:\n%s", b)
	}
}

// With --json, the request carries no_always and "a" counts as "s": the
// tool is granted for the session, nothing is saved.
func TestRunJSONDestructiveTool(t *testing.T) {
	bin := freeactBinary(t)
	ws, env := destructiveEnv(t)
	cmd := exec.Command(bin, "run", "--workspace", ws, "--json", "--prompt", "Crash it twice.")
	cmd.Env = env
	cmd.Stdin = strings.NewReader("a\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v; stderr:\n%s", err, stderr.String())
	}
	want, _ := json.Marshal(approval.NoAlwaysDestructive)
	if !strings.Contains(string(out), `"no_always":`+string(want)) {
		t.Errorf("the approval event lacks no_always:\n%s", out)
	}
	if !strings.Contains(string(out), `"by":"session","rule":"test_crash"`) {
		t.Errorf("the second call did not run on a session grant:\n%s", out)
	}
	if !strings.Contains(stderr.String(), `approval answer "a": no lasting rule is offered for this call; taken as s`) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".freeact", "permissions.json")); strings.Contains(string(b), "test_crash") {
		t.Errorf("a rule for the destructive tool was saved:\n%s", b)
	}
}

// destructiveEnv is a terminal workspace with mcptest's tools over HTTP as
// server "test", whose model calls test_crash twice, then answers "Done.".
func destructiveEnv(t *testing.T) (ws string, env []string) {
	t.Helper()
	return mcpTerminalEnv(t, `
turns:
  - reply: [{call: {id: c1, name: test_crash, args: {}}}]
  - expect:
      last: [{role: user, response: test_crash, output: "crash only works over stdio", is_error: true}]
    reply: [{call: {id: c2, name: test_crash, args: {}}}]
  - reply: [{text: "Done."}]
`)
}

// mcpTerminalEnv is terminalEnv with mcptest's tools over HTTP as server
// "test".
func mcpTerminalEnv(t *testing.T, scenario string) (ws string, env []string) {
	t.Helper()
	ws, env, _ = terminalEnv(t, scenario)
	file := filepath.Join(ws, ".freeact", "agent.json")
	var cfg map[string]any
	if b, err := os.ReadFile(file); err != nil || json.Unmarshal(b, &cfg) != nil {
		t.Fatalf("read agent.json: %v", err)
	}
	cfg["mcp_servers"] = map[string]any{"test": mcptest.HTTP(t)}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return ws, env
}

// A form the server asks for that freeact cannot show is declined without
// asking, and the terminal says why, naming the server; the turn goes on.
func TestTerminalDeclinedForm(t *testing.T) {
	bin := freeactBinary(t)
	ws, env := mcpTerminalEnv(t, `
turns:
  - reply: [{call: {id: c1, name: test_ask, args: {nested: true}}}]
  - expect:
      last: [{role: user, response: test_ask, output: '"action":"decline"'}]
    reply: [{text: "Done."}]
`)
	scr, send, exited := startTerminal(t, exec.Command(bin, "run", "--workspace", ws), env, 160)
	scr.expect(t, "> ")
	send("Ask me.\r")
	scr.expect(t, "Approve? [Y/n/a/s/d]")
	send("y\r")
	scr.expect(t, `[test] MCP server "test" asked for a form freeact cannot show, so it was declined without asking you (the server was told why): field "address" is of type "object"`)
	scr.expect(t, "Done.")
	scr.expect(t, "> ")
	quit(t, send, exited)
}
