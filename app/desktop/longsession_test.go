package desktop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/model/modeltest"
)

// The window's long-session bindings on a real agent and kernel: the
// files a turn changed, its diff and revert, compacting now, and forking
// with an edited prompt.
func TestDesktopCheckpointsCompactAndFork(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: w1, name: filesystem_write_text_file, args: {path: notes.txt, content: "new notes\n"}}}]
    usage: {input: 1000, output: 10}
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "!rm gone.txt\nopen('data.csv', 'a').write('3,4\\n')"}}}]
  - reply: [{text: "Changed."}]
  - expect: {system_contains: "You summarise"}
    reply: [{text: "SUMMARY-D"}]
  - expect: {messages: 1, last: [{role: user, text: "Change them differently."}]}
    reply: [{text: "Other change."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	original := map[string]string{"notes.txt": "old notes\n", "gone.txt": "to delete\n", "data.csv": "a,b\n1,2\n"}
	for name, content := range original {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	h.waitState(t, KernelReady)
	if err := d.Send("Change the files.", nil); err != nil {
		t.Fatal(err)
	}
	i := 0
	for {
		ev, j := h.waitEvent(t, "", i)
		i = j + 1
		if ev["type"] == "ApprovalRequest" {
			if err := d.Approve(ev["request_id"].(string), "yes", ""); err != nil {
				t.Fatal(err)
			}
		}
		if ev["type"] == "TurnEnded" {
			break
		}
	}
	h.waitState(t, KernelReady)
	fc, _ := h.waitEvent(t, "FilesChanged", 0)
	turnID := fc["turn_id"].(string)
	diffs, err := d.CheckpointDiff(turnID)
	if err != nil || len(diffs) != 3 {
		t.Fatalf("diff of the turn: %+v, %v", diffs, err)
	}
	plan, err := d.PlanRevert(turnID)
	if err != nil || len(plan.Restore) != 3 || len(plan.Conflicts) != 0 {
		t.Fatalf("plan %+v, %v", plan, err)
	}
	if err := d.Revert(turnID, false, nil); err != nil {
		t.Fatal(err)
	}
	rev, _ := h.waitEvent(t, "Reverted", 0)
	if files := rev["files"].([]any); len(files) != 3 {
		t.Errorf("Reverted %v", rev)
	}
	for name, want := range original {
		if data, _ := os.ReadFile(filepath.Join(ws, name)); string(data) != want {
			t.Errorf("%s = %q after revert", name, data)
		}
	}

	_, before := h.waitEvent(t, "Reverted", 0)
	if err := d.CompactNow(); err != nil {
		t.Fatal(err)
	}
	if c, _ := h.waitEvent(t, "Compacted", before); c["summary"] != "SUMMARY-D" {
		t.Errorf("Compacted %v", c)
	}
	h.waitEvent(t, "TurnEnded", before)
	h.waitState(t, KernelReady)

	// Fork at the first prompt with a new text: a new session without the
	// turn, the prompt sent there; the original keeps its turn.
	h.mu.Lock()
	src := h.status[len(h.status)-1].SessionID
	h.mu.Unlock()
	_, before = h.waitEvent(t, "TurnEnded", before)
	res, err := d.ForkSession(1, "Change them differently.")
	if err != nil {
		t.Fatal(err)
	}
	if res.Prompt != "Change the files." || res.SessionID == src {
		t.Errorf("fork %+v", res)
	}
	h.waitEvent(t, "Reset", before)
	u, at := h.waitEvent(t, "UserMessage", before)
	if u["text"] != "Change them differently." || u["turn"] != float64(1) {
		t.Errorf("the fork's first prompt %v", u)
	}
	if r, _ := h.waitEvent(t, "Response", at); r["text"] != "Other change." {
		t.Errorf("the fork's answer %v", r)
	}
	list, err := d.Sessions()
	if err != nil || len(list) != 2 {
		t.Fatalf("sessions %+v, %v", list, err)
	}
	for _, s := range list {
		if s.ID == src && s.Messages != 6 {
			t.Errorf("the original session has %d messages, want 6", s.Messages)
		}
	}
}

// A fork is titled after its source, once however often it is forked.
func TestForkTitle(t *testing.T) {
	long := strings.Repeat("x", 300)
	for _, tt := range []struct{ in, want string }{
		{"Plot the data", "Fork of Plot the data"},
		{"Fork of Plot the data", "Fork of Plot the data"},
		{long, "Fork of " + strings.Repeat("x", 191) + "…"},
	} {
		if got := forkTitle(tt.in); got != tt.want {
			t.Errorf("forkTitle(%.20q) = %.40q, want %.40q", tt.in, got, tt.want)
		}
	}
}
