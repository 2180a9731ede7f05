package app

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/app/adapter"
)

// The terminal's long-session commands on the real binary with a real
// kernel: the token line shows cost and context, /diff shows what the turn
// changed (file tool, !rm and Python alike), /undo reverts it after asking,
// /compact shows the summary, and `freeact checkpoints` lists, diffs and
// reverts from the command line.
func TestTerminalCheckpointsAndCompaction(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, marker := terminalEnv(t, `
turns:
  - reply: [{call: {id: w1, name: filesystem_write_text_file, args: {path: notes.txt, content: "new notes\n"}}}]
    usage: {input: 20000, output: 100}
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "!rm gone.txt\nwith open('data.csv', 'a') as f:\n    f.write('3,4\\n')"}}}]
    usage: {input: 21000, output: 100}
  - reply: [{text: "Changed them."}]
    usage: {input: 22000, output: 60}
  - expect: {system_contains: "You summarise a working session"}
    reply: [{text: "SUMMARY-T: three files were changed and reverted."}]
    usage: {input: 1000, output: 40}
`)
	original := map[string]string{"notes.txt": "old notes\n", "gone.txt": "to delete\n", "data.csv": "a,b\n1,2\n"}
	for name, content := range original {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "run", "--workspace", ws, "--skip-permissions")
	cmd.Env = env
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 160})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	scr := &screen{}
	go func() { _, _ = io.Copy(scr, f) }()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
		if t.Failed() || testing.Verbose() {
			t.Logf("terminal:\n%s", scr.String())
		}
	}()
	send := func(s string) {
		if _, err := f.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	scr.expect(t, "> ")
	send("Change the files.\r")
	scr.expect(t, "files changed: M notes.txt (+1 −1)")
	scr.expect(t, "files changed: M data.csv (+1), D gone.txt (−1)")
	scr.expect(t, "Changed them.")
	// gemini-3-flash-preview: (63,000 × $0.50 + 260 × $3) / 1M = $0.03228.
	scr.expect(t, "tokens: 63000 in · 260 out · 0 thinking · $0.0323 · session $0.0323 · context 22,060 of 1,048,576 (2%) · 3 file changes")
	scr.expect(t, "> ")

	send("/diff\r")
	scr.expect(t, "Turn 1: Change the files.")
	scr.expect(t, "modified data.csv")
	scr.expect(t, "+3,4")
	scr.expect(t, "deleted gone.txt")
	scr.expect(t, "-to delete")
	scr.expect(t, "modified notes.txt")
	scr.expect(t, "-old notes")
	scr.expect(t, "+new notes")
	scr.expect(t, "> ")

	send("/undo\r")
	scr.expect(t, "restore gone.txt (deleted since)")
	scr.expect(t, "Python kernel keep their current values")
	scr.expect(t, "Revert 3 files? [y/N]")
	send("y\r")
	scr.expect(t, "Reverted 3 files (checkpoint ")
	scr.expect(t, "> ")
	for name, want := range original {
		if data, _ := os.ReadFile(filepath.Join(ws, name)); string(data) != want {
			t.Errorf("after /undo %s = %q, want %q", name, data, want)
		}
	}

	send("/compact\r")
	scr.expect(t, "Compacting the conversation: summarising 6 earlier messages (asked for)")
	scr.expect(t, "The model now sees this summary:")
	scr.expect(t, "SUMMARY-T: three files were changed and reverted.")
	scr.expect(t, "> ")
	quit(t, send, exited)
	if pids := processesWith(marker); len(pids) > 0 {
		t.Errorf("processes left running: %v", pids)
	}

	cli := func(args ...string) string {
		t.Helper()
		c := exec.Command(bin, append([]string{"checkpoints"}, args...)...)
		c.Env = env
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("freeact checkpoints %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	list := cli("list", "--workspace", ws)
	for _, want := range []string{"turn 1: Change the files. (reverted)", "write notes.txt (reverted)", "!rm gone.txt … (reverted)", "Revert turn 1: Change the files."} {
		if !strings.Contains(list, want) {
			t.Errorf("list lacks %q:\n%s", want, list)
		}
	}
	revertID := regexp.MustCompile(`(?m)^([0-9a-f]{8}) .*Revert turn 1`).FindStringSubmatch(list)
	if revertID == nil {
		t.Fatalf("no revert row in:\n%s", list)
	}
	// Reverting the revert puts the turn's changes back, without asking.
	out := cli("revert", "--workspace", ws, "--yes", revertID[1])
	if !strings.Contains(out, "Reverted 3 files") {
		t.Errorf("revert of the revert:\n%s", out)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(data) != "new notes\n" {
		t.Errorf("notes.txt = %q after undoing the revert", data)
	}
	// Without an id, diff and revert take the last turn.
	if out := cli("diff", "--workspace", ws); !strings.Contains(out, "+new notes") {
		t.Errorf("diff of the last turn:\n%s", out)
	}
	c := exec.Command(bin, "checkpoints", "revert", "--workspace", ws)
	c.Env = env
	c.Stdin = strings.NewReader("n\n")
	outb, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(outb), "Revert 3 files? [y/N]") || !strings.Contains(string(outb), "Nothing was reverted.") {
		t.Errorf("revert answered no: %v\n%s", err, outb)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(data) != "new notes\n" {
		t.Errorf("a revert answered no changed notes.txt to %q", data)
	}
}

// A budget pauses the terminal's turn and asks.
func TestTerminalBudget(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, _ := terminalEnv(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(1)"}}}]
    usage: {input: 20000, output: 100}
`)
	data, _ := os.ReadFile(filepath.Join(ws, ".freeact", "agent.json"))
	data = []byte(strings.Replace(string(data), "{", `{"max_cost_per_session": 0.015, `, 1))
	if err := os.WriteFile(filepath.Join(ws, ".freeact", "agent.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--workspace", ws, "--skip-permissions", "--prompt", "Spend.")
	cmd.Env = env
	cmd.Stdin = strings.NewReader("n\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		"Budget: this session has cost $0.0103 of $0.015 (max_cost_per_session)",
		"Continue and raise the budget? [y/N]",
		"Stopped before the next model call: this session has cost $0.0103 of its $0.015 budget",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

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

// The export dialog proposes a file named after the conversation.
func TestExportName(t *testing.T) {
	for _, tt := range []struct{ title, want string }{
		{"Plot the sales of 2024!", "plot-the-sales-of-2024"},
		{"../../etc/passwd", "etc-passwd"},
		{"Größe prüfen", "größe-prüfen"},
		{"???", "session-ab12"},
		{strings.Repeat("word ", 30), strings.TrimSuffix(strings.Repeat("word-", 12), "-")},
	} {
		if got := adapter.ExportName(tt.title, "session-ab12"); got != tt.want {
			t.Errorf("adapter.ExportName(%q) = %q, want %q", tt.title, got, tt.want)
		}
	}
}
