//go:build journey

package journey

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 12, items 1 and 2: a cell a session grant approves shows its
// code, its live output and its image, and says who approved it; the
// grant is counted in the header, revocable there, and belongs to one
// conversation. Also: copy buttons, and the image menu's copy and save.
func TestAutoApprovedCellsAndSessionGrants(t *testing.T) {
	ws := Workspace(t, nil)
	app := Start(t, Options{Workspace: ws, Scenario: "testdata/auto-approved.yaml"})
	app.WaitTitle("project — freeact")
	app.WaitFor(Text("Kernel ready"))
	app.Shot("ready")

	app.Send("Plot a line")
	app.WaitFor(Role("landmark", "Approval request"))
	app.Shot("first-cell-asked")
	app.Key("s") // Session: allow code actions in this conversation
	app.WaitFor(Text("Both cells ran."))
	app.WaitFor(Button("Enlarge image"))
	app.Shot("second-cell-auto-approved")

	// The auto-approved card shows its code, output, image and approver.
	if _, ok := app.Find(Text("print('second cell')")); !ok {
		t.Error("the auto-approved cell's code is not shown")
	}
	if _, ok := app.Find(Text("Auto-approved by this session's grant: ipybox_execute_ipython_cell")); !ok {
		t.Error("the auto-approved cell does not say which grant approved it")
	}
	if outs := app.FindAll(Text("second cell\n")); len(outs) == 0 {
		t.Error("the auto-approved cell's output is not shown")
	}
	if _, ok := app.Find(Text("![image](")); ok {
		t.Error("a raw ![image](…) line is shown")
	}
	if _, ok := app.Find(Role("landmark", "Approval request")); ok {
		t.Error("the second cell was asked although the session granted code actions")
	}
	reqs := app.Model.WaitRequests(3)
	if out := responseOutput(reqs[2], "c2"); !strings.Contains(out, "second cell") || !strings.Contains(out, "![image](") {
		t.Errorf("the model got %q for the auto-approved cell, want its output and image", out)
	}

	// Copy buttons: the second cell's code goes to the clipboard.
	copies := app.FindAll(Button("Copy code"))
	if len(copies) < 2 {
		t.Fatalf("%d Copy code buttons, want one per cell", len(copies))
	}
	// The second cell's code is above the fold (its card ends with the
	// run again and changed-files rows): scroll up to its button first.
	app.ClickAt(app.ScrollUpToSee(Text("Both cells ran."), Button("Copy code"), 1))
	const code = "import matplotlib.pyplot as plt\nprint('second cell')\nplt.plot([1, 2, 1])\nplt.show()"
	app.Wait("the cell's code on the clipboard", func() bool { return app.Clipboard().Text == code })

	// The image's menu copies it as an image, and saves it.
	app.RightClick(Button("Enlarge image"))
	app.Shot("image-menu")
	app.Click(Role("menu item", "Copy image"))
	app.Wait("an image on the clipboard", func() bool { c := app.Clipboard(); return c.Image != nil && c.Image.W > 100 })
	app.RightClick(Button("Enlarge image"))
	app.Click(Role("menu item", "Save image as"))
	app.WaitFor(Role("file chooser", "Save the image"))
	// The dialog opens in the workspace; the user names the copy.
	saved := filepath.Join(ws, "saved-plot.png")
	app.Key("ctrl+a")
	app.Type("saved-plot.png")
	app.Shot("save-dialog")
	app.Key("Return")
	app.Wait("the saved image on disk", func() bool { st, err := os.Stat(saved); return err == nil && st.Size() > 1000 })
	app.WaitFor(Text("Saved to " + saved))

	// The grant is counted in the header and revoked there.
	app.Click(Button("1 session grant"))
	app.WaitFor(Role("dialog", "Session grants"))
	app.Shot("grants")
	app.Click(Button("Revoke ipybox_execute_ipython_cell"))
	app.WaitGone(Button("session grant"))
	app.Send("Once more")
	app.WaitFor(Role("landmark", "Approval request"))
	app.Shot("asked-again-after-revoke")
	app.Key("Return")
	app.WaitFor(Text("Asked again."))

	// A new conversation has no grants: its first cell is asked.
	app.Click(Button("Sessions"))
	app.Click(Button("+ New conversation"))
	app.WaitFor(Text("What should we work on?"))
	app.WaitFor(Text("Kernel ready"))
	app.Send("A new conversation")
	app.WaitFor(Role("landmark", "Approval request"))
	if _, ok := app.Find(Button("session grant")); ok {
		t.Error("the new conversation shows grants")
	}
	app.Shot("new-conversation-asks")
	app.Key("Return")
	app.WaitFor(Text("The new conversation asked."))
	// A session is a folder; its writer's lock file lies beside it.
	sessions, _ := filepath.Glob(filepath.Join(ws, ".freeact", "sessions", "*", "main.jsonl"))
	if len(sessions) != 2 {
		t.Errorf("%d sessions on disk, want 2", len(sessions))
	}
}
