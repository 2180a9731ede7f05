//go:build journey

package journey

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 12, item 4: rejecting one shell command of a cell shows "You
// rejected `touch …`" (no KeyboardInterrupt traceback, no "error"), the
// command does not run, and the model gets one line naming the command and
// "Tool call rejected".
func TestRejectedShellCommand(t *testing.T) {
	ws := Workspace(t, nil)
	app := Start(t, Options{Workspace: ws, Scenario: "testdata/reject.yaml"})
	app.WaitFor(Text("Kernel ready"))
	app.Send("Make a file with the shell")
	app.WaitFor(Role("landmark", "Approval request"))
	app.Key("Return") // the code action: yes
	app.WaitFor(Text("Run this shell command?"))
	app.WaitFor(Text("touch made-by-shell.txt"))
	app.Shot("shell-command-asked")
	app.Key("n")
	app.WaitFor(Text("You rejected"))
	app.WaitFor(Text("You rejected a call, so the turn ended."))
	app.Shot("rejected")

	if _, ok := app.Find(Text("touch made-by-shell.txt; the cell stopped there")); !ok {
		t.Error("the card does not name the rejected command")
	}
	for _, noise := range []string{"KeyboardInterrupt", "Traceback", "threading.py", "rejected, not run"} {
		if _, ok := app.Find(Text(noise)); ok {
			t.Errorf("the window shows %q after the rejection", noise)
		}
	}
	var output string
	for _, n := range app.FindAll(Query{Role: "section", Text: "before the command"}) {
		if strings.HasPrefix(n.Text, "before the command") {
			output = n.Text
		}
	}
	if output == "" {
		t.Error("the output from before the rejected command is not shown")
	} else if strings.Contains(output, "after the command") {
		t.Errorf("the cell went on after the rejection: %q", output)
	}
	if _, ok := app.Find(Text("error")); ok {
		t.Error("the rejected cell is marked as an error")
	}
	if _, err := os.Stat(filepath.Join(ws, "made-by-shell.txt")); err == nil {
		t.Error("the rejected command ran")
	}
	if n := len(app.Model.Requests()); n != 1 {
		t.Errorf("the model was called %d times before the next prompt, want once (a rejection ends the turn)", n)
	}

	app.Send("Why did you stop?")
	app.WaitFor(Text("You rejected the command, so I stopped."))
	req := app.Model.WaitRequests(2)[1]
	const want = "The user rejected the shell command: touch made-by-shell.txt\nTool call rejected"
	if got := responseOutput(req, "c1"); got != want {
		t.Errorf("the model got %q for the cell, want %q", got, want)
	}
	for _, m := range req.Messages {
		for _, fr := range m.FunctionResponses() {
			if strings.Contains(fr.Output, "KeyboardInterrupt") {
				t.Errorf("the model got the interrupt's traceback: %q", fr.Output)
			}
		}
	}
	app.Shot("next-turn")
}
