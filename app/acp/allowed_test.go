package acp_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// TestACPShowsWhoAllowedACall: a call that runs without asking says who
// let it, as the window's badge and the terminal's line do, both live and
// when the session is loaded again in another process (the record keeps
// it); a call the user approved says nothing of the kind.
func TestACPShowsWhoAllowedACall(t *testing.T) {
	bin := freeactBinary(t)
	ws, environ, _ := env(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
  - reply: [{text: "It is 42."}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "print(7*6)"}}}]
  - reply: [{text: "Still 42."}]
`)
	const allowed = "Allowed without asking, by the saved rule ipybox\\_execute\\_ipython\\_cell"
	p := startACP(t, bin, environ)
	p.initialize(t)
	p.c.answer = pick("allow_always")
	id := p.newSession(t, ws)
	if _, err := p.prompt(t, id, "What is 6*7?"); err != nil {
		t.Fatalf("prompt 1: %v; stderr:\n%s", err, p.stderr.String())
	}
	if _, err := p.conn.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: id, ModeId: "rules"}); err != nil {
		t.Fatalf("set_mode rules: %v", err)
	}
	if _, err := p.prompt(t, id, "Again?"); err != nil {
		t.Fatalf("prompt 2: %v", err)
	}
	updates, asked := p.c.snapshot()
	if len(asked) != 1 {
		t.Fatalf("%d permission requests, want 1: the saved rule should allow the second call", len(asked))
	}
	if text, _, _ := toolText(updates, "c1"); strings.Contains(text, "Allowed without asking") {
		t.Errorf("the call the user approved says it was allowed without asking:\n%s", text)
	}
	if text, _, _ := toolText(updates, "c2"); !strings.Contains(text, allowed) || !strings.Contains(text, "42") {
		t.Errorf("the call the rule allowed shows:\n%s\nwant %q and its output", text, allowed)
	}
	if _, err := p.conn.CloseSession(context.Background(), sdk.CloseSessionRequest{SessionId: id}); err != nil {
		t.Fatal(err)
	}

	q := startACP(t, bin, environ)
	q.initialize(t)
	if _, err := q.conn.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: id, Cwd: ws, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v; stderr:\n%s", err, q.stderr.String())
	}
	loaded, _ := q.c.snapshot()
	if text, _, _ := toolText(loaded, "c2"); !strings.Contains(text, allowed) {
		t.Errorf("the loaded session's c2 shows:\n%s\nwant %q", text, allowed)
	}
	if text, _, _ := toolText(loaded, "c1"); strings.Contains(text, "Allowed without asking") {
		t.Errorf("the loaded session's c1 says it was allowed without asking:\n%s", text)
	}
}
