package desktop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/internal/testenv"
)

// The session list's rename, search and delete, on sessions written by
// real turns; deleting the open conversation starts a new one.
func TestSessionBindings(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{text: "The quarterly revenue grew."}]
  - reply: [{text: "Plotted."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	first := h.waitState(t, KernelReady).SessionID
	if err := d.Send("How did revenue do?", nil); err != nil {
		t.Fatal(err)
	}
	_, i := h.waitEvent(t, "TurnEnded", 0)
	from := h.statusCount()
	if err := d.NewSession(); err != nil {
		t.Fatal(err)
	}
	h.waitStateAfter(t, KernelReady, first)
	// Until the new conversation is ready, no status names the one left:
	// the window would keep what is typed meanwhile for that one.
	h.mu.Lock()
	for _, st := range h.status[from:] {
		if st.State == KernelReady {
			break
		}
		if st.SessionID == first {
			t.Errorf("the new conversation's start is announced as %s's: %+v", first, st)
		}
	}
	h.mu.Unlock()
	if err := d.Send("Plot it", nil); err != nil {
		t.Fatal(err)
	}
	h.waitEvent(t, "TurnEnded", i+1)
	second := d.Workspace().Kernel.SessionID

	if err := d.RenameSession(first, "Revenue review"); err != nil {
		t.Fatal(err)
	}
	list, err := d.Sessions()
	if err != nil || len(list) != 2 || list[0].ID != second || list[1].Title != "Revenue review" {
		t.Fatalf("sessions %+v, %v (newest first, the renamed one titled)", list, err)
	}
	found, err := d.SearchSessions("QUARTERLY")
	if err != nil || len(found) != 1 || found[0].ID != first || !strings.Contains(found[0].Snippet, "quarterly revenue") {
		t.Fatalf("search %+v, %v", found, err)
	}
	data, _ := json.Marshal(found)
	if !strings.Contains(string(data), `"snippet"`) {
		t.Errorf("match JSON %s", data)
	}

	// Deleting the open conversation moves the window to a new one.
	if err := d.DeleteSession(second); err != nil {
		t.Fatal(err)
	}
	if st := h.waitStateAfter(t, KernelReady, second); st.SessionID == second {
		t.Errorf("still on the deleted session %s", second)
	}
	if _, err := os.Stat(filepath.Join(ws, ".freeact", "sessions", second)); !os.IsNotExist(err) {
		t.Errorf("the deleted session's folder: %v", err)
	}
	if list, _ := d.Sessions(); len(list) != 1 || list[0].ID != first {
		t.Errorf("sessions after delete %+v", list)
	}
}

// An MCP server that does not start is in the kernel status the window
// shows, with its name and why.
func TestKernelStatusNamesFailedMCPServers(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte("name: none\nallow_unplayed: true\nturns: []\n"))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	missing := filepath.Join(t.TempDir(), "no-such-server")
	servers, _ := json.Marshal(map[string]any{"files": map[string]any{"command": missing}})
	if errs, err := config.SaveValues(ws, map[string]json.RawMessage{"mcp_servers": servers}, config.LoadOptions{}); err != nil || len(errs) > 0 {
		t.Fatal(errs, err)
	}
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	st := h.waitState(t, KernelReady)
	if len(st.MCPFailures) != 1 || st.MCPFailures[0].Server != "files" || st.MCPFailures[0].Group != "mcp_servers" || !strings.Contains(st.MCPFailures[0].Error, "no-such-server") {
		t.Fatalf("failures %+v", st.MCPFailures)
	}
}

// Try again on a server that did not start connects it once it can: the
// status the window shows loses its failure (the banner goes), and a try
// that fails again says the reason in it.
func TestTryAgainConnectsAFailedMCPServer(t *testing.T) {
	js := testenv.MCPServer(t, "server-everything")
	sc, err := modeltest.ParseScenario([]byte("name: none\nallow_unplayed: true\nturns: []\n"))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	script := filepath.Join(t.TempDir(), "everything")
	servers, _ := json.Marshal(map[string]any{"everything": map[string]any{"command": script, "connect_timeout": 60}})
	if errs, err := config.SaveValues(ws, map[string]json.RawMessage{"mcp_servers": servers}, config.LoadOptions{}); err != nil || len(errs) > 0 {
		t.Fatal(errs, err)
	}
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	if st := h.waitState(t, KernelReady); len(st.MCPFailures) != 1 {
		t.Fatalf("failures at start %+v", st.MCPFailures)
	}
	n := h.statusCount()
	if err := d.MCPConnect("everything"); err == nil || !strings.Contains(err.Error(), script) {
		t.Fatalf("try again while the command is missing: %v", err)
	}
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexec node "+js+" stdio\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := d.MCPConnect("everything"); err != nil {
		t.Fatalf("try again once the server is there: %v", err)
	}
	h.mu.Lock()
	sent := slices.Clone(h.status[n:])
	h.mu.Unlock()
	if len(sent) != 2 || len(sent[0].MCPFailures) != 1 || len(sent[1].MCPFailures) != 0 || sent[1].State != KernelReady {
		t.Fatalf("statuses after the two tries: %+v", sent)
	}
}

// waitStateAfter waits for a status of state on another session than old.
func (h *fakeHost) waitStateAfter(t *testing.T, state, old string) KernelStatus {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		h.mu.Lock()
		var last KernelStatus
		if len(h.status) > 0 {
			last = h.status[len(h.status)-1]
		}
		h.mu.Unlock()
		if last.State == state && last.SessionID != old {
			return last
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("kernel never %s on a session other than %s: %+v", state, old, h.status)
	return KernelStatus{}
}
