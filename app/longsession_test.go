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

	"github.com/freeact/desktop/app/internal/fronttest"
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
	if pids := fronttest.ProcessesWith(marker); len(pids) > 0 {
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
