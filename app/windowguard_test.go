package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/app/internal/webview"
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
