package desktop

import (
	"encoding/json"
	"errors"
	"github.com/freeact/desktop/agent/mcpglue"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/app/internal/fronttest"
	"github.com/freeact/desktop/app/internal/webview"
	"github.com/freeact/desktop/internal/testenv"
)

func TestCapabilityPageHoldsTheCapabilityOnlyInIndexHTML(t *testing.T) {
	assets := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/", "/index.html":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Length", "54")
			_, _ = io.WriteString(w, "<html><head><title>freeact</title></head><body></body>")
		case "/app.js":
			_, _ = io.WriteString(w, "console.log('<head>')")
		default:
			http.NotFound(w, r)
		}
	})
	h := capabilityPage("s3cret")(assets)
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code, rec.Body.String()
	}
	for _, p := range []string{"/", "/index.html"} {
		code, body := get(p)
		if code != http.StatusOK || !strings.Contains(body, `<head><meta name="freeact-capability" content="s3cret">`) {
			t.Errorf("GET %s: %d %q, want the page with the capability", p, code, body)
		}
	}
	for _, p := range []string{"/app.js", "/missing"} {
		if _, body := get(p); strings.Contains(body, "s3cret") {
			t.Errorf("GET %s holds the capability: %q", p, body)
		}
	}
}

// fakeView stands in for the wrapped web view.
type fakeView struct {
	mu      sync.Mutex
	reloads int
	said    []string
}

func (v *fakeView) Reload() { v.mu.Lock(); v.reloads++; v.mu.Unlock() }
func (v *fakeView) Say(_, message string) {
	v.mu.Lock()
	v.said = append(v.said, message)
	v.mu.Unlock()
}

// lockFree reports whether the test can take the session's lock: no
// agent holds it.
func lockFree(t *testing.T, path string) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return false
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return true
}

// Issue 34, item 2: the first death of the web process reloads the page,
// which is sent the conversation again with the approval still waiting;
// a second death within a minute shuts the agent down (the session's
// lock released), says so and quits.
func TestWebProcessDeathReloadsThenShutsTheAgentDown(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte(`
allow_unplayed: true
turns:
  - reply:
      - call: {name: ipybox_execute_ipython_cell, args: {code: "print(1)"}}
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	ready := h.waitState(t, KernelReady)
	lock := filepath.Join(ws, ".freeact", "sessions", ready.SessionID+".lock")
	if err := d.Send("Print one", nil); err != nil {
		t.Fatal(err)
	}
	appr, _ := h.waitEvent(t, "ApprovalRequest", 0)

	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	view := &fakeView{}
	quits := 0
	d.guard = windowGuard{view: view, watch: webview.NewWatcher(func() time.Time { return now }), quit: func() { quits++ }}

	d.webProcessDied("crashed")
	if view.reloads != 1 || quits != 0 {
		t.Fatalf("after the first death: %d reloads, %d quits; want a reload", view.reloads, quits)
	}
	h.mu.Lock()
	from := len(h.events)
	h.mu.Unlock()
	d.domReady() // the reloaded page
	_, i := h.waitEvent(t, "Reset", from)
	h.waitEvent(t, "UserMessage", i)
	again, _ := h.waitEvent(t, "ApprovalRequest", i)
	if again["request_id"] != appr["request_id"] {
		t.Errorf("the reloaded page got the approval as %v, want %v", again["request_id"], appr["request_id"])
	}
	if lockFree(t, lock) {
		t.Fatal("no agent holds the session's lock after a reload")
	}

	now = now.Add(30 * time.Second)
	d.webProcessDied("crashed")
	if len(view.said) != 1 || !strings.Contains(view.said[0], "twice within a minute") || quits != 1 {
		t.Fatalf("after a second death within a minute: said %q, %d quits", view.said, quits)
	}
	if view.reloads != 1 {
		t.Errorf("%d reloads, want none after the second death", view.reloads)
	}
	if _, err := d.current(); err == nil {
		t.Error("the workspace is still open")
	}
	if !lockFree(t, lock) {
		t.Error("the session's lock is still held after the window was given up")
	}
}

// A page reloaded after its web process died gets every question still
// open again: an MCP server's form and a sign-in card, with their ids,
// and the kernel status. Answered from the new page, the form's answer
// reaches the server's tool and the sign-in completes.
func TestReloadedPageGetsTheOpenMCPCardsAgain(t *testing.T) {
	auth := mcptest.NewOAuth(t)
	if _, err := os.Stat("/usr/bin/curl"); err != nil {
		testenv.Missing(t, "curl is not installed")
	}
	// A browser that opens nothing: the sign-in waits for the user.
	browser := filepath.Join(t.TempDir(), "browser")
	fronttest.WriteScript(t, browser, "#!/bin/sh\nexit 0\n")
	t.Setenv("BROWSER", browser)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent") // no keyring: tokens in 0600 files
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: c1, name: plain_ask, args: {}}}]
  - expect:
      last: [{response: plain_ask, output: '"name":"Ada"'}]
    reply: [{text: "Done."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	cfg, _ := json.Marshal(map[string]any{"python": testenv.Python(t), "enable_subagents": false,
		"mcp_servers": map[string]any{"plain": mcptest.HTTP(t), "secured": auth.Server()}})
	fronttest.WriteScript(t, filepath.Join(ws, ".freeact", "agent.json"), string(cfg))
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	h.waitState(t, KernelReady)
	approveAll(t, d, h)
	if err := d.Send("Ask me", nil); err != nil {
		t.Fatal(err)
	}
	form, _ := h.waitMCP(t, 0, "with a form", func(r MCPRequest) bool { return r.Kind == "form" })
	signedIn := make(chan error, 1)
	go func() { signedIn <- d.MCPSignIn("secured") }()
	signIn, _ := h.waitMCP(t, 0, "asking to sign in", func(r MCPRequest) bool { return r.Kind == "signin" })

	view := &fakeView{}
	d.guard = windowGuard{view: view, watch: webview.NewWatcher(nil), quit: func() {}}
	d.webProcessDied("crashed")
	if view.reloads != 1 {
		t.Fatalf("%d reloads after the first death, want 1", view.reloads)
	}
	h.mu.Lock()
	cards, statuses := len(h.mcp), len(h.status)
	before := h.status[statuses-1]
	h.mu.Unlock()
	d.domReady() // the reloaded page
	for _, want := range []MCPRequest{form, signIn} {
		got, _ := h.waitMCP(t, cards, "sent again to the reloaded page", func(r MCPRequest) bool { return r.ID == want.ID })
		if got.State != MCPWaiting || got.Kind != want.Kind || got.URL != want.URL || len(got.Fields) != len(want.Fields) {
			t.Errorf("the reloaded page got %+v, want the open card %+v", got, want)
		}
	}
	testenv.Eventually(t, 30*time.Second, func() error {
		h.mu.Lock()
		defer h.mu.Unlock()
		if len(h.status) == statuses {
			return errors.New("no kernel status sent to the reloaded page")
		}
		if got := h.status[statuses]; got.State != before.State || got.SessionID != before.SessionID || got.Message != before.Message {
			t.Errorf("the reloaded page got the status %+v, want %+v", got, before)
		}
		return nil
	})

	// Answered from the new page.
	if err := d.AnswerForm(form.ID, "accept", map[string]any{"name": "Ada", "email": "ada@example.org"}); err != nil {
		t.Fatalf("the form's answer after the reload: %v", err)
	}
	h.waitEvent(t, "TurnEnded", 0)
	if out, err := exec.Command("/usr/bin/curl", "-sfL", "-o", "/dev/null", signIn.URL).CombinedOutput(); err != nil {
		t.Fatalf("the browser step after the reload: %v: %s", err, out)
	}
	if err := <-signedIn; err != nil {
		t.Fatalf("the sign-in answered after the reload: %v", err)
	}
	if _, authz := auth.Counts(); authz != 1 {
		t.Errorf("the server authorized %d times, want once", authz)
	}
}

// A reloaded page gets the MCP wait bar while the model call waits for
// its servers, and not once the wait is over: a bar whose Skip no longer
// does anything is not an open question.
func TestReloadedPageGetsTheMCPWaitOnlyWhileItLasts(t *testing.T) {
	d, h, dir := testDesktop(t)
	if _, err := d.OpenWorkspace(dir, ""); err != nil {
		t.Fatal(err)
	}
	h.waitState(t, KernelReady)
	ws, err := d.current()
	if err != nil {
		t.Fatal(err)
	}
	meta := agent.Meta{AgentID: agent.MainAgent}
	step := make(chan struct{})
	events := func(yield func(agent.Event) bool) {
		if !yield(&mcpglue.MCPWaiting{Meta: meta, Servers: []string{"slow"}}) {
			return
		}
		<-step
		if !yield(&mcpglue.MCPWaiting{Meta: meta, Servers: []string{"slow"}, Done: true}) {
			return
		}
		<-step
	}
	tr := &turn{done: make(chan struct{})}
	go ws.run(tr, events)
	defer func() { close(step); <-tr.done }()
	wait, _ := h.waitEvent(t, "MCPWaiting", 0)

	// resent returns the MCPWaiting events a reload sends.
	resent := func(marker string) []map[string]any {
		t.Helper()
		h.mu.Lock()
		from := len(h.events)
		h.mu.Unlock()
		ws.resend()
		ws.push(queued{raw: adapter.MustJSON(map[string]string{"type": marker})})
		_, end := h.waitEvent(t, marker, from)
		var out []map[string]any
		for at := from; at < end; at++ {
			h.mu.Lock()
			raw := h.events[at]
			h.mu.Unlock()
			var m map[string]any
			_ = json.Unmarshal(raw, &m)
			if m["type"] == "MCPWaiting" {
				out = append(out, m)
			}
		}
		return out
	}
	if got := resent("Marker1"); len(got) != 1 || got[0]["request_id"] != wait["request_id"] || got[0]["done"] == true {
		t.Errorf("while the call waits, the reloaded page got %v, want the wait %v", got, wait["request_id"])
	}
	step <- struct{}{}
	h.waitEvent(t, "MCPWaiting", 0) // the first
	testenv.Eventually(t, 30*time.Second, func() error {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, raw := range h.events {
			var m map[string]any
			_ = json.Unmarshal(raw, &m)
			if m["type"] == "MCPWaiting" && m["done"] == true {
				return nil
			}
		}
		return errors.New("the wait did not end")
	})
	if got := resent("Marker2"); len(got) != 0 {
		t.Errorf("after the wait ended, the reloaded page got %v, want no wait", got)
	}
}
