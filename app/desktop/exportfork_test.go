package desktop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Export right after a fork exports the fork: it reads the conversation
// the window shows from its session file, so it needs no agent, and the
// fork's agent is still starting then.
func TestDesktopExportRightAfterFork(t *testing.T) {
	d, h, _ := scenarioDesktop(t, `
turns:
  - reply: [{text: "First answer."}]
  - reply: [{text: "Second answer."}]
`)
	if err := d.Send("First question", nil); err != nil {
		t.Fatal(err)
	}
	i := waitTurnEnded(t, h, 0)
	h.waitState(t, KernelReady)
	if err := d.Send("Second question", nil); err != nil {
		t.Fatal(err)
	}
	waitTurnEnded(t, h, i+1)
	h.waitState(t, KernelReady)

	res, err := d.ForkSession(2, "")
	if err != nil {
		t.Fatal(err)
	}
	cur, err := d.current()
	if err != nil {
		t.Fatal(err)
	}
	cur.mu.Lock()
	starting := cur.agent == nil
	cur.mu.Unlock()
	if !starting {
		t.Log("the fork's agent was already up: the export ran with it")
	}
	h.mu.Lock()
	h.saveTo = filepath.Join(t.TempDir(), "fork.md")
	h.mu.Unlock()
	path, err := d.ExportSession("md", false)
	if err != nil {
		t.Fatalf("export right after the fork: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	md := string(data)
	if !strings.Contains(md, "First question") || !strings.Contains(md, "First answer.") || strings.Contains(md, "Second answer.") {
		t.Errorf("the export of fork %s is not the fork before prompt 2:\n%s", res.SessionID, md)
	}
	h.waitState(t, KernelReady)
}
