package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/config"
)

func TestExpandHomeAndWorkspaceArg(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if got := expandHome("~/projects/x"); got != filepath.Join(home, "projects/x") {
		t.Errorf("expandHome(~/projects/x) = %q", got)
	}
	for _, p := range []string{"~user/x", "a/~/b", "/abs"} {
		if got := expandHome(p); got != p {
			t.Errorf("expandHome(%q) = %q, want it unchanged", p, got)
		}
	}
	if err := os.Mkdir(filepath.Join(home, "ws"), 0o755); err != nil {
		t.Fatal(err)
	}
	if dir, err := workspaceArg("~/ws"); err != nil || dir != filepath.Join(home, "ws") {
		t.Errorf("workspaceArg(~/ws) = %q, %v", dir, err)
	}
	if _, err := workspaceArg("~/missing"); err == nil || !strings.Contains(err.Error(), filepath.Join(home, "missing")) {
		t.Errorf("workspaceArg of a missing folder = %v", err)
	}
}

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
