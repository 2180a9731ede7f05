package acp_test

import (
	"context"
	"errors"
	"github.com/freeact/desktop/app/internal/fronttest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

const codeTurn = `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
  - reply: [{text: "It is 42."}]
`

func TestACPInitializeAdvertisesWhatFreeactTakes(t *testing.T) {
	bin := freeactBinary(t)
	_, environ, _ := env(t, "turns: []")
	p := startACP(t, bin, environ)
	resp := p.initialize(t)
	caps := resp.AgentCapabilities
	if resp.ProtocolVersion != 1 || !caps.LoadSession || !caps.PromptCapabilities.Image || !caps.PromptCapabilities.EmbeddedContext || !caps.McpCapabilities.Http {
		t.Errorf("initialize: %+v", resp)
	}
	if caps.SessionCapabilities.List == nil || caps.SessionCapabilities.Resume == nil || caps.SessionCapabilities.Close == nil {
		t.Errorf("session capabilities: %+v", caps.SessionCapabilities)
	}
	var ids []string
	for _, m := range resp.AuthMethods {
		if m.Agent != nil {
			ids = append(ids, m.Agent.Id)
		}
	}
	if strings.Join(ids, ",") != "env,dotenv,keystore" {
		t.Errorf("auth methods %v", ids)
	}
	if _, err := p.conn.Authenticate(context.Background(), sdk.AuthenticateRequest{MethodId: "env"}); err != nil {
		t.Errorf("authenticate env: %v", err)
	}
	if _, err := p.conn.Authenticate(context.Background(), sdk.AuthenticateRequest{MethodId: "password"}); err == nil {
		t.Error("an unknown auth method was taken")
	}
}

// TestACPApprovals: a code action approved once runs and streams its
// output; one rejected does not run; "always" writes the rule the desktop
// writes, and the protocol shows the exact code that runs.
func TestACPApprovals(t *testing.T) {
	bin := freeactBinary(t)
	tests := []struct {
		name     string
		option   string
		scenario string
		ran      bool
		stop     sdk.StopReason
	}{
		{"once", "allow_once", codeTurn, true, sdk.StopReasonEndTurn},
		{"reject", "reject_once", `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
`, false, sdk.StopReasonEndTurn},
		{"always", "allow_always", codeTurn, true, sdk.StopReasonEndTurn},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, environ, _ := env(t, tt.scenario)
			p := startACP(t, bin, environ)
			p.initialize(t)
			p.c.answer = pick(tt.option)
			id := p.newSession(t, ws)
			resp, err := p.prompt(t, id, "What is 6*7?")
			if err != nil {
				t.Fatalf("prompt: %v; stderr:\n%s", err, p.stderr.String())
			}
			if resp.StopReason != tt.stop {
				t.Errorf("stop reason %q, want %q", resp.StopReason, tt.stop)
			}
			updates, asked := p.c.snapshot()
			if len(asked) != 1 {
				t.Fatalf("%d permission requests, want 1", len(asked))
			}
			req := asked[0]
			var code string
			for _, c := range req.ToolCall.Content {
				if c.Content != nil && c.Content.Content.Text != nil {
					code += c.Content.Content.Text.Text
				}
			}
			if code != "```python\nprint(6*7)\n```" {
				t.Errorf("the request shows %q, not the code that runs", code)
			}
			var kinds []string
			for _, o := range req.Options {
				kinds = append(kinds, string(o.Kind))
			}
			if !strings.Contains(strings.Join(kinds, ","), "allow_once,allow_always,reject_once") {
				t.Errorf("options %v", kinds)
			}
			text, callKinds, status := toolText(updates, string(req.ToolCall.ToolCallId))
			if len(callKinds) != 1 || callKinds[0] != sdk.ToolKindExecute {
				t.Errorf("tool call kinds %v, want one execute", callKinds)
			}
			if got := strings.Contains(text, "42\n"); got != tt.ran {
				t.Errorf("output 42 shown: %v, want %v; tool text:\n%s", got, tt.ran, text)
			}
			want := sdk.ToolCallStatusCompleted
			if !tt.ran {
				want = sdk.ToolCallStatusFailed
			}
			if status != want {
				t.Errorf("last status %q, want %q", status, want)
			}
			if tt.ran && !strings.Contains(agentText(updates), "It is 42.") {
				t.Errorf("answer not streamed: %q", agentText(updates))
			}
			rules, _ := os.ReadFile(filepath.Join(ws, ".freeact", "permissions.json"))
			if got := strings.Contains(string(rules), "ipybox_execute_ipython_cell"); got != (tt.name == "always") {
				t.Errorf("rule saved: %v; permissions.json:\n%s", got, rules)
			}
		})
	}
}

// TestACPCancelDuringSleep: session/cancel stops the turn and interrupts
// the cell; the session goes on with the same kernel.
func TestACPCancelDuringSleep(t *testing.T) {
	bin := freeactBinary(t)
	ws, environ, _ := env(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "import time\nx = 7\nprint('sleeping', flush=True)\ntime.sleep(600)"}}}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "print(x * 6)"}}}]
  - reply: [{text: "42"}]
`)
	p := startACP(t, bin, environ, "--log-level", "debug")
	p.initialize(t)
	p.c.answer = pick("allow_once")
	id := p.newSession(t, ws)
	type result struct {
		resp sdk.PromptResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		r, err := p.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("sleep")}})
		done <- result{r, err}
	}()
	p.c.waitFor(t, "output before the sleep", func(u []sdk.SessionNotification, _ []sdk.RequestPermissionRequest) bool {
		text, _, _ := toolText(u, "c1")
		return strings.Contains(text, "```\nsleeping")
	})
	// A second prompt while one runs is refused, and the first goes on.
	if _, err := p.prompt(t, id, "again"); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("second prompt while one runs: %v", err)
	}
	if err := p.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err != nil || r.resp.StopReason != sdk.StopReasonCancelled {
			t.Fatalf("cancelled prompt: %+v %v", r.resp, r.err)
		}
	case <-time.After(20 * time.Second):
		p.cmd.Process.Signal(syscall.SIGQUIT)
		err := <-p.exited
		p.exited <- err
		t.Fatalf("the turn did not stop on session/cancel; stderr:\n%s", p.stderr.String())
	}
	// A cancel for a finished turn does nothing.
	if err := p.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	p.c.mu.Lock()
	p.c.toolCallAt = time.Time{}
	p.c.mu.Unlock()
	sent := time.Now()
	resp, err := p.prompt(t, id, "what is x*6?")
	p.c.mu.Lock()
	t.Logf("session/prompt to the first tool_call, warm kernel: %v", p.c.toolCallAt.Sub(sent))
	p.c.mu.Unlock()
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("the prompt after a cancel: %+v %v", resp, err)
	}
	updates, _ := p.c.snapshot()
	if text, _, _ := toolText(updates, "c1"); !strings.Contains(text, "KeyboardInterrupt") {
		t.Errorf("the cancelled cell says %q", text)
	}
	if text, _, _ := toolText(updates, "c2"); !strings.Contains(text, "42") {
		t.Errorf("the kernel lost its state after the cancel: %q; stderr:\n%s", text, p.stderr.String())
	}
}

// TestACPListAndLoad: a session is listed, loaded again in another
// process with its history streamed back, and refused while open
// elsewhere.
func TestACPListAndLoad(t *testing.T) {
	bin := freeactBinary(t)
	ws, environ, _ := env(t, codeTurn)
	p := startACP(t, bin, environ)
	p.initialize(t)
	p.c.answer = pick("allow_once")
	id := p.newSession(t, ws)
	if _, err := p.prompt(t, id, "What is 6*7?"); err != nil {
		t.Fatal(err)
	}
	list, err := p.conn.ListSessions(context.Background(), sdk.ListSessionsRequest{Cwd: &ws})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionId != id || list.Sessions[0].Title == nil || *list.Sessions[0].Title != "What is 6*7?" {
		t.Fatalf("session/list: %+v", list)
	}

	// Open in this process: another refuses it with the reason.
	q := startACP(t, bin, environ)
	q.initialize(t)
	_, err = q.conn.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: id, Cwd: ws, McpServers: []sdk.McpServer{}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "open in another") {
		t.Fatalf("load of a session open elsewhere: %v", err)
	}

	if _, err := p.conn.CloseSession(context.Background(), sdk.CloseSessionRequest{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.conn.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: id, Cwd: ws, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v; stderr:\n%s", err, q.stderr.String())
	}
	updates, _ := q.c.snapshot()
	var user string
	for _, n := range updates {
		if c := n.Update.UserMessageChunk; c != nil && c.Content.Text != nil {
			user += c.Content.Text.Text
		}
	}
	if user != "What is 6*7?" {
		t.Errorf("loaded prompt %q", user)
	}
	if text, kinds, status := toolText(updates, "c1"); !strings.Contains(text, "print(6*7)") || !strings.Contains(text, "42") || len(kinds) != 1 || status != sdk.ToolCallStatusCompleted {
		t.Errorf("loaded code action: %q %v %q", text, kinds, status)
	}
	if !strings.Contains(agentText(updates), "It is 42.") {
		t.Errorf("loaded answer %q", agentText(updates))
	}
}

// TestACPSessionWithoutAKeyNeedsAuth: a workspace whose model has no key
// is refused with auth_required naming the variable, before any kernel
// starts.
func TestACPSessionWithoutAKeyNeedsAuth(t *testing.T) {
	bin := freeactBinary(t)
	ws, environ, marker := env(t, "turns: []")
	var keyless []string
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "GEMINI_API_KEY=") {
			keyless = append(keyless, kv)
		}
	}
	p := startACP(t, bin, keyless)
	p.initialize(t)
	_, err := p.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: ws, McpServers: []sdk.McpServer{}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32000 || !strings.Contains(err.Error(), "GEMINI_API_KEY") {
		t.Fatalf("session/new without a key: %v", err)
	}
	for _, pid := range fronttest.ProcessesWith(marker) {
		if pid != p.cmd.Process.Pid {
			t.Errorf("a process started for a session that was refused: %d", pid)
		}
	}
}

// TestACPRejectAlways: "reject always" refuses the call and saves the
// request's pattern as a deny rule; the same action in the next turn is
// refused without a question, the model is told why, and the client
// reads it.
func TestACPRejectAlways(t *testing.T) {
	bin := freeactBinary(t)
	ws, environ, _ := env(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
  - reply: [{text: "The deny rule refused it."}]
`)
	p := startACP(t, bin, environ)
	p.initialize(t)
	p.c.answer = pick("reject_always")
	id := p.newSession(t, ws)
	if _, err := p.prompt(t, id, "What is 6*7?"); err != nil {
		t.Fatalf("prompt: %v; stderr:\n%s", err, p.stderr.String())
	}
	_, asked := p.c.snapshot()
	if len(asked) != 1 {
		t.Fatalf("%d permission requests, want 1", len(asked))
	}
	var offered []string
	for _, o := range asked[0].Options {
		offered = append(offered, string(o.Kind)+"="+o.Name)
	}
	if !strings.Contains(strings.Join(offered, ","), "reject_always=Always reject ipybox_execute_ipython_cell") {
		t.Errorf("options %v: no reject always naming the rule", offered)
	}
	rules, err := os.ReadFile(filepath.Join(ws, ".freeact", "permissions.json"))
	if err != nil || !strings.Contains(string(rules), `"deny": [`) || !strings.Contains(string(rules), `"tool_name": "ipybox_execute_ipython_cell"`) {
		t.Fatalf("no deny rule saved (%v):\n%s", err, rules)
	}
	resp, err := p.prompt(t, id, "Again: what is 6*7?")
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("second prompt: %+v %v", resp, err)
	}
	updates, asked := p.c.snapshot()
	if len(asked) != 1 {
		t.Errorf("%d permission requests after the deny rule, want still 1", len(asked))
	}
	if text, _, _ := toolText(updates, "c2"); strings.Contains(text, "42") {
		t.Errorf("the denied call ran: %q", text)
	}
	answer := agentText(updates)
	// Notices reach the client as markdown-escaped text, shown as written.
	if !strings.Contains(answer, `Refused without asking by the deny rule ipybox\_execute\_ipython\_cell`) || !strings.Contains(answer, "The deny rule refused it.") {
		t.Errorf("the client was not told of the refusal: %q", answer)
	}
}
