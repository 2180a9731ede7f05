package desktop

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/freeact/desktop/agent/config"
)

// The picker expands ~, tells a missing folder from a file, and creates a
// missing one on request.
func TestInspectAndCreateFolder(t *testing.T) {
	d, _, _ := testDesktop(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	c, err := d.InspectFolder("~/new/project")
	if err != nil || c.Path != filepath.Join(home, "new/project") || c.Exists {
		t.Fatalf("InspectFolder = %+v, %v", c, err)
	}
	p, err := d.CreateFolder("~/new/project")
	if err != nil || p != c.Path {
		t.Fatalf("CreateFolder = %q, %v", p, err)
	}
	if c, err := d.InspectFolder(p); err != nil || !c.Exists || !c.IsDir {
		t.Errorf("after CreateFolder: %+v, %v", c, err)
	}
	file := filepath.Join(home, "f.txt")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if c, _ := d.InspectFolder(file); !c.Exists || c.IsDir {
		t.Errorf("a file: %+v", c)
	}
	if _, err := d.CreateFolder(file); err == nil {
		t.Error("CreateFolder over a file succeeded")
	}
	if _, err := d.InspectFolder(""); err == nil {
		t.Error("an empty path was accepted")
	}
}

// The last workspace and its conversation reopen at launch; freeact PATH
// opens that workspace with the conversation last open in it.
func TestLaunchReopensTheLastConversation(t *testing.T) {
	d, _, ws := testDesktop(t)
	if got, err := d.Launch(); err != nil || got.Path != "" {
		t.Fatalf("first launch = %+v, %v; want nothing to open", got, err)
	}
	other := t.TempDir()
	if err := d.store.Update(func(s *config.AppSettings) { s.AddRecent(other); s.AddRecent(ws) }); err != nil {
		t.Fatal(err)
	}
	d.rememberSession(ws, "20250101-abc")
	d2 := &Desktop{host: &fakeHost{}, store: d.store, log: d.log}
	got, err := d2.Launch()
	if err != nil || got.Path != ws || got.SessionID != "20250101-abc" || got.FromCommandLine {
		t.Errorf("launch = %+v, %v; want %s with its last session", got, err, ws)
	}
	if again, _ := d2.Launch(); again.Path != "" {
		t.Errorf("a second Launch = %+v, want nothing", again)
	}
	d3 := &Desktop{host: &fakeHost{}, store: d.store, log: d.log, launch: other}
	if got, _ := d3.Launch(); got.Path != other || got.SessionID != "" || !got.FromCommandLine {
		t.Errorf("launch with PATH = %+v, want %s", got, other)
	}
	// A workspace that is gone is skipped.
	if err := os.RemoveAll(ws); err != nil {
		t.Fatal(err)
	}
	d4 := &Desktop{host: &fakeHost{}, store: d.store, log: d.log}
	if got, _ := d4.Launch(); got.Path != other {
		t.Errorf("launch after the last workspace was removed = %+v, want %s", got, other)
	}
}

// Two pages start on one backend: the window and a browser on the dev
// server (as in the e2e suite), or a page reloaded while the launch
// workspace opens. The first page is given the launch target; the second
// asks while the first is opening it, so it finds no open workspace and
// an empty target, and would stay on the picker. EventWorkspace tells it
// what opened, before any event or status of the workspace's agent.
func TestLaunchWorkspaceReachesEveryPage(t *testing.T) {
	d, h, ws := testDesktop(t)
	if err := d.store.Update(func(s *config.AppSettings) { s.AddRecent(ws) }); err != nil {
		t.Fatal(err)
	}
	first, err := d.Launch()
	if err != nil || first.Path != ws {
		t.Fatalf("first page's launch = %+v, %v; want %s", first, err, ws)
	}
	if w := d.Workspace(); w.Path != "" {
		t.Fatalf("workspace before it opened = %+v", w)
	}
	if second, err := d.Launch(); err != nil || second.Path != "" {
		t.Fatalf("second page's launch = %+v, %v; want nothing: only one page opens the launch workspace", second, err)
	}
	if _, err := d.OpenWorkspace(first.Path, first.SessionID); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	h.mu.Lock()
	sent, opened := slices.Clone(h.sent), slices.Clone(h.workspaces)
	h.mu.Unlock()
	if len(opened) != 1 || opened[0].Path != ws || opened[0].Name != filepath.Base(ws) {
		t.Fatalf("workspace events %+v; want one for %s", opened, ws)
	}
	if len(sent) == 0 || sent[0] != EventWorkspace {
		t.Errorf("events sent %v; want %s first", sent, EventWorkspace)
	}
}
