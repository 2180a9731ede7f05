package desktop

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/app/internal/fronttest"
	"github.com/freeact/desktop/internal/notify/notifytest"
	"github.com/freeact/desktop/internal/testenv"
)

// openForms lists the ids of the forms of ws waiting for the user.
func openForms(d *Desktop, ws *workspace) []string {
	u := d.mcpUser()
	u.mu.Lock()
	defer u.mu.Unlock()
	var ids []string
	for id, p := range u.pending {
		if p.ws == ws && p.req.Kind == "form" {
			ids = append(ids, id)
		}
	}
	return ids
}

// Issue 39: an MCP form belongs to the conversation whose call asked it.
// The first conversation's call asks a form while the second is in view:
// the form does not reach the window, is not answerable there, counts as
// waiting (the session list, the desktop notification), and the second's
// turn ending does not cancel it. Brought back, the first shows the form
// (the window drops it when the first is left again), and the user's
// answer completes its call.
func TestFormsBelongToTheirConversation(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: a1, name: ipybox_execute_ipython_cell, args: {code: "import os, time\nwhile not os.path.exists('go'):\n    time.sleep(0.02)\nprint('went')"}}}]
  - expect:
      last: [{response: ipybox_execute_ipython_cell, output: "went"}]
    reply: [{call: {id: c1, name: plain_ask, args: {}}}]
  - reply: [{text: "Second conversation answered."}]
  - expect:
      last: [{response: plain_ask, output: '"name":"Ada"'}]
    reply: [{text: "First conversation done."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	addr := notifytest.Bus(t)
	srv := notifytest.Serve(t, addr)
	d.notify = newNotifier(d, addr)
	cfg, _ := json.Marshal(map[string]any{"python": testenv.Python(t), "enable_subagents": false,
		"mcp_servers": map[string]any{"plain": mcptest.HTTP(t)}})
	fronttest.WriteScript(t, filepath.Join(ws, ".freeact", "agent.json"), string(cfg))
	// The form's call runs without an approval: it comes out of view.
	fronttest.WriteScript(t, filepath.Join(ws, ".freeact", "permissions.json"),
		`{"allow": [{"type": "GenericCall", "tool_name": "plain_ask"}], "ask": []}`)
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	first := h.waitState(t, KernelReady).SessionID
	if err := d.Send("Wait for the go file, then ask me", nil); err != nil {
		t.Fatal(err)
	}
	appr, i := h.waitEvent(t, "ApprovalRequest", 0)
	if err := d.Approve(appr["request_id"].(string), "yes", ""); err != nil {
		t.Fatal(err)
	}
	waitLive(t, d, first, ConvRunning, 0)
	if err := d.NewSession(); err != nil {
		t.Fatal(err)
	}
	second := h.waitStateAfter(t, KernelReady, first).SessionID
	h.mu.Lock()
	cards := len(h.mcp)
	h.mu.Unlock()
	if err := os.WriteFile(filepath.Join(ws, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}

	// The first's call asks a form, out of view.
	waitLive(t, d, first, ConvWaiting, 1)
	firstWS := d.liveFind(first)
	ids := openForms(d, firstWS)
	if len(ids) != 1 {
		t.Fatalf("the first conversation has forms %v open, want one", ids)
	}
	form := ids[0]
	if err := d.AnswerForm(form, "accept", map[string]any{"name": "Eve", "email": "eve@example.org"}); err == nil {
		t.Fatal("the first conversation's form was answered from the second")
	}
	testenv.Eventually(t, 30*time.Second, func() error {
		for _, n := range srv.Got() {
			if strings.Contains(n.Summary, "waits") {
				return nil
			}
		}
		return fmt.Errorf("no notification that the first waits on its form: %+v", srv.Got())
	})

	// The second's turn ends; the first's form still waits.
	if err := d.Send("Answer in the second", nil); err != nil {
		t.Fatal(err)
	}
	h.waitEvent(t, "TurnEnded", i)
	waitLive(t, d, second, ConvFinished, 0)
	if c, _ := live(d, first); c.State != ConvWaiting || c.Waiting != 1 {
		t.Errorf("the first after the second's turn ended: %+v, want waiting on its form", c)
	}
	if got := openForms(d, firstWS); len(got) != 1 || got[0] != form {
		t.Errorf("the first's open forms after the second's turn ended: %v, want [%s]", got, form)
	}
	h.mu.Lock()
	for _, r := range h.mcp[cards:] {
		if r.ID == form {
			t.Errorf("the first's form reached the window showing the second: %+v", r)
		}
	}
	h.mu.Unlock()

	// Back to the first: its form shows, and the answer completes its call.
	if err := d.ResumeSession(first); err != nil {
		t.Fatal(err)
	}
	card, _ := h.waitMCP(t, cards, "showing the first's form", func(r MCPRequest) bool { return r.ID == form })
	if card.State != MCPWaiting || card.Server != "plain" || len(card.Fields) == 0 {
		t.Fatalf("the form came back as %+v, want it waiting with its fields", card)
	}
	// Left again, the window drops it; back, it shows again.
	h.mu.Lock()
	shown := len(h.mcp)
	h.mu.Unlock()
	if err := d.ResumeSession(second); err != nil {
		t.Fatal(err)
	}
	h.waitMCP(t, shown, "taking the form away", func(r MCPRequest) bool { return r.ID == form && r.State == MCPHidden })
	if err := d.ResumeSession(first); err != nil {
		t.Fatal(err)
	}
	h.waitMCP(t, shown, "showing the form again", func(r MCPRequest) bool { return r.ID == form && r.State == MCPWaiting })
	if err := d.AnswerForm(form, "accept", map[string]any{"name": "Ada", "email": "ada@example.org"}); err != nil {
		t.Fatalf("answering the first's form in view: %v", err)
	}
	waitLive(t, d, first, ConvFinished, 0)
	var said []string
	h.mu.Lock()
	for _, e := range h.events {
		var m map[string]any
		_ = json.Unmarshal(e, &m)
		if m["type"] == "ToolOutput" || m["type"] == "ResponseChunk" || m["type"] == "Response" {
			said = append(said, fmt.Sprint(m))
		}
	}
	h.mu.Unlock()
	all := strings.Join(said, "\n")
	if !strings.Contains(all, "Ada") || !strings.Contains(all, "First conversation done.") {
		t.Errorf("the first's call did not complete with the user's answer: %s", all)
	}
}

// Stop while a call waits on a form ends the turn: the server's request
// outlives the call's context, so the form is cancelled with it (it
// hung until the form was answered). Closing the window then does not
// wait on it either.
func TestStopCancelsTheTurnsForms(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: c1, name: plain_ask, args: {}}}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	cfg, _ := json.Marshal(map[string]any{"python": testenv.Python(t), "enable_subagents": false,
		"mcp_servers": map[string]any{"plain": mcptest.HTTP(t)}})
	fronttest.WriteScript(t, filepath.Join(ws, ".freeact", "agent.json"), string(cfg))
	fronttest.WriteScript(t, filepath.Join(ws, ".freeact", "permissions.json"),
		`{"allow": [{"type": "GenericCall", "tool_name": "plain_ask"}], "ask": []}`)
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	h.waitState(t, KernelReady)
	if err := d.Send("Ask me", nil); err != nil {
		t.Fatal(err)
	}
	form, i := h.waitMCP(t, 0, "with a form", func(r MCPRequest) bool { return r.Kind == "form" && r.State == MCPWaiting })
	d.Cancel()
	end, _ := h.waitMCP(t, i+1, "ending the form", func(r MCPRequest) bool { return r.ID == form.ID })
	if end.State != MCPCancelled {
		t.Errorf("the form ended %+v, want cancelled", end)
	}
	h.waitEvent(t, "TurnEnded", 0)
}
