package acp_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// TestACPModes: a session opens asking for everything, so a rule saved
// by an Always answer allows nothing; session/set_mode "rules" says so
// with current_mode_update and lets the rule allow the next call without
// asking; an unknown mode is refused with the ones there are.
func TestACPModes(t *testing.T) {
	bin := freeactBinary(t)
	ws, environ, _ := env(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
  - reply: [{text: "It is 42."}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
  - reply: [{text: "Still 42."}]
  - reply: [{call: {id: c3, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
  - reply: [{text: "Always 42."}]
`)
	p := startACP(t, bin, environ)
	p.initialize(t)
	resp, err := p.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v; stderr:\n%s", err, p.stderr.String())
	}
	id := resp.SessionId
	if resp.Modes == nil || resp.Modes.CurrentModeId != "ask" {
		t.Fatalf("session/new modes %+v, want current ask", resp.Modes)
	}
	var ids []string
	for _, m := range resp.Modes.AvailableModes {
		ids = append(ids, string(m.Id))
	}
	if strings.Join(ids, ",") != "ask,rules,auto" {
		t.Errorf("available modes %v", ids)
	}

	asked := func() int { _, a := p.c.snapshot(); return len(a) }
	p.c.answer = pick("allow_always")
	if _, err := p.prompt(t, id, "What is 6*7?"); err != nil {
		t.Fatalf("prompt 1: %v", err)
	}
	if asked() != 1 {
		t.Fatalf("%d permission requests after the first turn, want 1", asked())
	}
	// The rule is saved, but the session asks for everything.
	p.c.answer = pick("allow_once")
	if _, err := p.prompt(t, id, "Again?"); err != nil {
		t.Fatalf("prompt 2: %v", err)
	}
	if asked() != 2 {
		t.Fatalf("%d permission requests after the second turn, want 2: the saved rule allowed a call in ask mode", asked())
	}

	if _, err := p.conn.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: id, ModeId: "rules"}); err != nil {
		t.Fatalf("set_mode rules: %v", err)
	}
	p.c.waitFor(t, "current_mode_update rules", func(updates []sdk.SessionNotification, _ []sdk.RequestPermissionRequest) bool {
		for _, u := range updates {
			if m := u.Update.CurrentModeUpdate; m != nil && m.CurrentModeId == "rules" {
				return true
			}
		}
		return false
	})
	p.c.answer = pick("reject_once")
	if _, err := p.prompt(t, id, "And now?"); err != nil {
		t.Fatalf("prompt 3: %v", err)
	}
	if asked() != 2 {
		t.Errorf("%d permission requests after the third turn, want still 2: the saved rule did not allow the call", asked())
	}
	updates, _ := p.c.snapshot()
	if !strings.Contains(agentText(updates), "Always 42.") {
		t.Errorf("third turn's answer not streamed: %q", agentText(updates))
	}

	_, err = p.conn.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: id, ModeId: "yolo"})
	if err == nil || !strings.Contains(err.Error(), "ask") || !strings.Contains(err.Error(), "rules") {
		t.Errorf("set_mode yolo: %v, want an error naming the modes", err)
	}
}
