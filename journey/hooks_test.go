//go:build journey

package journey

import (
	"os"
	"path/filepath"
	"testing"
)

// Issue 37: a workspace whose .freeact/hooks.json was never trusted asks
// when it opens, showing the commands in full; trusted, its PreToolUse
// hook runs, blocks the model's write, and the conversation shows the
// blocked call's card with what the hook said; Settings → Hooks lists it
// as trusted with that run. At 1280×900 and 800×600.
func TestWorkspaceHooksTrustedThenBlockACall(t *testing.T) {
	atSizes(t, func(t *testing.T, w, h int) {
		ws := Workspace(t, nil)
		hooksJSON := `{"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "echo \"Writes are blocked in this project by its hook.\" >&2; exit 2"}]}]}}`
		if err := os.WriteFile(filepath.Join(ws, ".freeact", "hooks.json"), []byte(hooksJSON), 0o644); err != nil {
			t.Fatal(err)
		}
		app := Start(t, Options{Workspace: ws, Scenario: "testdata/hooks.yaml", Width: w, Height: h})
		app.WaitFor(Role("alert", "This workspace has hooks: trust them?"))
		app.WaitFor(Text(hooksJSON))
		app.Shot("trust-question")
		app.Click(Button("Trust"))
		app.WaitGone(Role("alert", "This workspace has hooks: trust them?"))
		app.WaitFor(Text("Kernel ready"))

		app.Send("Write the notes")
		card := app.WaitFor(Text("Writes are blocked in this project by its hook."))
		app.WaitFor(Text("The project's hook blocked the write, so I left it."))
		app.Shot("blocked-card")
		if card.W == 0 || card.H == 0 {
			t.Errorf("the hook's words are not on screen: %+v", card)
		}
		if _, ok := app.Find(Text("blocked")); !ok {
			t.Error("the card does not say the hook blocked the call")
		}
		if _, err := os.Stat(filepath.Join(ws, "notes.txt")); err == nil {
			t.Error("the blocked write happened")
		}

		// Settings → Hooks lists the hook as trusted, with its last run.
		app.Click(Button("Settings"))
		app.Click(Role("page tab", "Hooks"))
		app.WaitFor(Text("This workspace's hooks"))
		app.WaitFor(Text("trusted"))
		app.WaitFor(Text("PreToolUse Write · "))
		app.Shot("settings-hooks")
	})
}
