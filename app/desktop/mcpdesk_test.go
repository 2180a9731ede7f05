package desktop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/app/internal/fronttest"
	"github.com/freeact/desktop/internal/testenv"
)

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// waitMCP waits for a card payload after index from that match says yes
// to, and returns it and its index.
func (h *fakeHost) waitMCP(t *testing.T, from int, what string, match func(MCPRequest) bool) (MCPRequest, int) {
	t.Helper()
	var found MCPRequest
	at := from
	testenv.Eventually(t, 90*time.Second, func() error {
		h.mu.Lock()
		defer h.mu.Unlock()
		for ; at < len(h.mcp); at++ {
			if match(h.mcp[at]) {
				found = h.mcp[at]
				return nil
			}
		}
		return fmt.Errorf("no card %s; got %+v", what, h.mcp)
	})
	return found, at
}

// approveAll answers every approval request with yes until the test ends.
func approveAll(t *testing.T, d *Desktop, h *fakeHost) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		seen := 0
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			h.mu.Lock()
			evs := h.events[seen:]
			seen = len(h.events)
			h.mu.Unlock()
			for _, e := range evs {
				var m map[string]any
				_ = json.Unmarshal(e, &m)
				if m["type"] == "ApprovalRequest" {
					_ = d.Approve(m["request_id"].(string), "yes", "")
				}
			}
		}
	})
	t.Cleanup(func() { close(done); wg.Wait() })
}

// Issue 26: a server that answers 401 at the agent's start opens no
// browser: Settings → MCP says it needs a sign-in. Sign in (the user's
// click) shows the "Sign in to NAME" card, which goes once the browser (a
// $BROWSER script) came back, and the server is connected; the code-mode
// server on the same URL connects with the same token (Try again); its
// forms, from a JSON call and
// from code mode while the cell waits, are answered through AnswerForm,
// which refuses values that do not fit; Settings → MCP shows the state
// and signs out. No token reaches an event, a log or the session.
func TestDesktopMCPSignInAndForms(t *testing.T) {
	auth := mcptest.NewOAuth(t)
	t.Setenv("BROWSER", fronttest.FollowBrowser(t))
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent") // no keyring: tokens in 0600 files
	cell := "from mcptools.coded import ask\nprint('got', ask.run(ask.Params()))"
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: c1, name: secured_ask, args: {}}}]
  - expect:
      last: [{response: secured_ask, output: '"name":"Ada"'}]
    reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: ` + jsonString(cell) + `}}}]
  - expect:
      last: [{response: ipybox_execute_ipython_cell, output: 'got {"action":"decline"'}]
    reply: [{text: "Done."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	var logs bytes.Buffer
	d.log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg, _ := json.Marshal(map[string]any{"python": testenv.Python(t), "enable_subagents": false,
		"mcp_servers": map[string]any{"secured": auth.Server()}, "ptc_servers": map[string]any{"coded": auth.Server()}})
	fronttest.WriteScript(t, filepath.Join(ws, ".freeact", "agent.json"), string(cfg))
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	h.waitState(t, KernelReady)
	h.mu.Lock()
	atStart := len(h.mcp)
	h.mu.Unlock()
	if _, authz := auth.Counts(); atStart != 0 || authz != 0 {
		t.Fatalf("the start showed %d cards and signed in %d times, want none: the user signs in", atStart, authz)
	}
	servers, err := d.MCPServers()
	if err != nil || len(servers) != 2 {
		t.Fatalf("MCPServers = %+v, %v", servers, err)
	}
	for _, s := range servers {
		if !s.SignIn || s.SignedIn || s.Connected || !strings.Contains(s.Failure, "sign-in needed") {
			t.Errorf("server %+v at the start: want not connected, saying it needs a sign-in", s)
		}
	}
	signedIn := make(chan error, 1)
	go func() { signedIn <- d.MCPSignIn("secured") }()
	card, i := h.waitMCP(t, 0, "asking to sign in", func(r MCPRequest) bool { return r.Kind == "signin" })
	if card.Server != "secured" || card.State != MCPWaiting || !strings.Contains(card.URL, "code_challenge=") {
		t.Errorf("sign-in card %+v", card)
	}
	end, _ := h.waitMCP(t, i+1, "ending the sign-in", func(r MCPRequest) bool { return r.ID == card.ID })
	if end.State != MCPDone {
		t.Fatalf("sign-in ended %+v, want done", end)
	}
	if err := <-signedIn; err != nil {
		t.Fatalf("MCPSignIn: %v", err)
	}
	if err := d.MCPConnect("coded"); err != nil {
		t.Fatalf("Try again for the code-mode server on the same URL: %v", err)
	}
	if reg, authz := auth.Counts(); reg != 1 || authz != 1 {
		t.Errorf("registered %d and authorized %d times for one server in both groups, want once each", reg, authz)
	}
	servers, err = d.MCPServers()
	if err != nil || len(servers) != 2 {
		t.Fatalf("MCPServers = %+v, %v", servers, err)
	}
	for _, s := range servers {
		if !s.SignIn || !s.SignedIn || !s.Refreshable || s.Expiry.IsZero() || s.Failure != "" {
			t.Errorf("server %+v: want signed in with an expiry and a refresh token", s)
		}
	}
	if !servers[0].Connected {
		t.Errorf("the JSON server is not connected after the sign-in: %+v", servers[0])
	}

	// A JSON call's form: bad values are refused field by field; the
	// accepted answer carries the defaults.
	approveAll(t, d, h)
	if err := d.Send("Ask me", nil); err != nil {
		t.Fatal(err)
	}
	form, i := h.waitMCP(t, i, "with a form", func(r MCPRequest) bool { return r.Kind == "form" })
	if form.Server != "secured" || form.Mode != "form" || len(form.Fields) != 6 {
		t.Fatalf("form card %+v", form)
	}
	err = d.AnswerForm(form.ID, "accept", map[string]any{"name": "A", "email": "not-an-email", "age": 200.0})
	for _, want := range []string{"name: want at least 2 characters", "email: want an email address", "age: want at most 150"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("bad answer: %v, want %q", err, want)
		}
	}
	if err := d.AnswerForm(form.ID, "accept", map[string]any{"name": "Ada", "email": "ada@example.org", "tags": []any{"a", "b"}}); err != nil {
		t.Fatalf("good answer refused: %v", err)
	}
	if err := d.AnswerForm(form.ID, "accept", nil); err == nil {
		t.Error("a second answer was taken")
	}
	_, j := h.waitEvent(t, "ToolOutput", 0)
	// Code mode: the cell waits for the form; declined.
	form2, _ := h.waitMCP(t, i+1, "from code mode", func(r MCPRequest) bool { return r.Kind == "form" && r.ID != form.ID })
	if form2.Server != "coded" {
		t.Errorf("code-mode form from %q, want coded", form2.Server)
	}
	if err := d.AnswerForm(form2.ID, "decline", nil); err != nil {
		t.Fatal(err)
	}
	h.waitEvent(t, "TurnEnded", j)
	h.waitState(t, KernelReady)

	// The tokens are kept where the scan below leaves out: 0600 files
	// in the state folder (no keyring here).
	kept, _ := filepath.Glob(filepath.Join(d.build.Dirs.State, "mcp-oauth", "tokens", "*"))
	if len(kept) == 0 {
		t.Fatal("no token file in the state folder")
	}
	for _, p := range kept {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("token file %s: %v %v, want mode 0600", p, fi.Mode(), err)
		}
	}

	// Sign out, then the state says so.
	if err := d.MCPSignOut("secured"); err != nil {
		t.Fatal(err)
	}
	servers, _ = d.MCPServers()
	if servers[0].SignedIn {
		t.Errorf("still signed in after MCPSignOut: %+v", servers[0])
	}

	// No token in what went to the window, the log, the session or the
	// workspace; the token file is 0600 in the state folder.
	d.shutdown()
	tokens := auth.Tokens()
	if len(tokens) < 2 {
		t.Fatalf("tokens issued: %v", tokens)
	}
	h.mu.Lock()
	wire := strings.Join(h.wire, "\n")
	h.mu.Unlock()
	places := map[string]string{"the window's events": wire, "the log": logs.String()}
	for _, root := range []string{ws, d.build.Dirs.State, d.build.Dirs.Config, d.build.Dirs.Data} {
		filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || strings.Contains(p, filepath.Join("mcp-oauth", "tokens")) {
				return nil
			}
			b, _ := os.ReadFile(p)
			places[p] = string(b)
			return nil
		})
	}
	for where, text := range places {
		for _, tok := range tokens {
			if strings.Contains(text, tok) {
				t.Errorf("token %s is in %s", tok, where)
			}
		}
	}
}

// A sign-in from Try again outlasts the connect timeout (the user is in
// the browser, the server is not slow); Cancel on the card stops a
// sign-in from Settings →
// MCP, which then fails saying so; Sign in again connects the server
// without a restart.
func TestDesktopSignInSlowCancelAndAgain(t *testing.T) {
	auth := mcptest.NewOAuth(t)
	follow := fronttest.FollowBrowser(t)
	slow := filepath.Join(t.TempDir(), "slow")
	// The user takes longer than connect_timeout to sign in.
	fronttest.WriteScript(t, slow, "#!/bin/sh\nsleep 2\nexec "+follow+" \"$1\"\n")
	idle := filepath.Join(t.TempDir(), "idle")
	fronttest.WriteScript(t, idle, "#!/bin/sh\nexit 0\n")
	t.Setenv("BROWSER", slow)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent")
	d, h, ws := testDesktop(t)
	srv := auth.Server()
	one := 1.0
	srv.ConnectTimeout = &one
	cfg, _ := json.Marshal(map[string]any{"python": testenv.Python(t), "enable_subagents": false, "mcp_servers": map[string]any{"secured": srv}})
	fronttest.WriteScript(t, filepath.Join(ws, ".freeact", "agent.json"), string(cfg))
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	h.waitState(t, KernelReady)
	connected := make(chan error, 1)
	go func() { connected <- d.MCPConnect("secured") }()
	card, i := h.waitMCP(t, 0, "asking to sign in", func(r MCPRequest) bool { return r.Kind == "signin" })
	if end, _ := h.waitMCP(t, i+1, "ending it", func(r MCPRequest) bool { return r.ID == card.ID }); end.State != MCPDone {
		t.Fatalf("slow sign-in ended %+v, want done", end)
	}
	if err := <-connected; err != nil {
		t.Fatalf("Try again with a slow sign-in: %v", err)
	}
	if s, _ := d.MCPServers(); len(s) != 1 || !s[0].Connected {
		t.Fatalf("after a sign-in slower than connect_timeout: %+v", s)
	}

	if err := d.MCPSignOut("secured"); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", idle)
	result := make(chan error, 1)
	go func() { result <- d.MCPSignIn("secured") }()
	card, i = h.waitMCP(t, i+1, "for Sign in", func(r MCPRequest) bool { return r.Kind == "signin" && r.State == MCPWaiting && r.ID != card.ID })
	if s, err := d.MCPServers(); err != nil || !s[0].SignIn || s[0].SignedIn {
		t.Errorf("during the sign-in the state is %+v, %v (it must not wait for the sign-in)", s, err)
	}
	if err := d.CancelSignIn(card.ID); err != nil {
		t.Fatal(err)
	}
	if err := <-result; err == nil || !strings.Contains(err.Error(), "sign-in cancelled") {
		t.Errorf("MCPSignIn after Cancel = %v, want sign-in cancelled", err)
	}
	if end, _ := h.waitMCP(t, i+1, "cancelled", func(r MCPRequest) bool { return r.ID == card.ID }); end.State != MCPCancelled {
		t.Errorf("cancelled card ended %+v", end)
	}
	if err := d.CancelSignIn(card.ID); err == nil {
		t.Error("a second Cancel was taken")
	}

	t.Setenv("BROWSER", follow)
	if err := d.MCPSignIn("secured"); err != nil {
		t.Fatalf("sign in again: %v", err)
	}
	if s, _ := d.MCPServers(); !s[0].Connected || !s[0].SignedIn {
		t.Errorf("after signing in again: %+v", s)
	}
	if reg, _ := auth.Counts(); reg != 1 {
		t.Errorf("registered %d times, want once (the registration is kept)", reg)
	}
	d.shutdown()
}
