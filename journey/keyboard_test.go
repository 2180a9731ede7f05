//go:build journey

package journey

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Issue 14, Keyboard: a whole session without the mouse. The workspace
// is opened by typing its path, a turn runs and its code action is
// approved with y, the code action time limit is changed in Settings
// (Ctrl+,) and saved (Ctrl+S), a new conversation starts (Ctrl+N) and
// the shortcut sheet opens (F1) and closes (Esc). Only keys are pressed.
func TestKeyboardOnly(t *testing.T) {
	ws := Workspace(t, map[string]any{"execution_timeout": 300})
	app := Start(t, Options{Scenario: "testdata/keyboard.yaml"})
	app.WaitFor(Role("heading", "Open a workspace"))
	app.FocusWindow()
	app.Shot("picker")

	// Open the workspace: Tab to the path field, type, Enter.
	app.TabTo(Field("or type its path"))
	app.Type(ws)
	app.WaitFor(Query{Role: "entry", Name: "or type its path", Text: ws})
	app.Shot("path-typed")
	app.Key("Return")
	app.WaitTitle("project — freeact")
	app.WaitFor(Text("Kernel ready"))
	app.Shot("workspace-open")

	// A turn; its code action approved with y.
	sendByKeys(app, "What is six times seven?")
	app.WaitFor(Role("landmark", "Approval request"))
	app.WaitFor(Text("print(6 * 7)"))
	app.Shot("approval")
	app.Key("y")
	app.WaitFor(Text("Six times seven is 42."))
	app.Shot("answered")
	reqs := app.Model.WaitRequests(2)
	if out := responseOutput(reqs[1], "c1"); out != "42\n" && out != "42" {
		t.Errorf("the model got %q for the approved cell, want its output 42", out)
	}

	// Settings: Ctrl+, opens it on a tab, ↓ goes to Agent, Tab to the time
	// limit, type the new value, Ctrl+S saves it, Esc closes the panel.
	app.Key("ctrl+comma")
	app.WaitFor(Role("dialog", "Settings"))
	app.WaitFocus(Query{Role: "page tab", Name: "Model"})
	app.Key("Down")
	app.WaitFocus(Query{Role: "page tab", Name: "Agent"})
	app.TabTo(Field("Code action time limit"))
	app.Key("ctrl+a")
	app.Type("45")
	app.WaitFor(Query{Role: "entry", Name: "Code action time limit", Text: "45"})
	app.Shot("settings-timeout-typed")
	app.Key("ctrl+s")
	app.Wait("execution_timeout 45 in agent.json", func() bool { return timeoutOnDisk(ws) == 45.0 })
	app.WaitFor(Text("Agent saved"))
	app.Shot("settings-saved")
	closeByEsc(app, Role("dialog", "Settings"))

	// Ctrl+N: a new conversation, whose first request carries nothing of
	// the first one.
	app.Key("ctrl+n")
	app.WaitFor(Text("What should we work on?"))
	app.WaitGone(Text("Six times seven is 42."))
	app.Shot("new-conversation")
	sendByKeys(app, "A fresh start")
	app.WaitFor(Text("A new conversation, as asked."))
	reqs = app.Model.WaitRequests(3)
	if n := len(reqs[2].Messages); n != 1 {
		t.Errorf("the new conversation's first request holds %d messages, want 1 (only its prompt)", n)
	}
	if got := reqs[2].Last().Text(); got != "A fresh start" {
		t.Errorf("the new conversation's prompt reached the model as %q", got)
	}
	// A session is a folder; its writer's lock file lies beside it.
	sessions, _ := filepath.Glob(filepath.Join(ws, ".freeact", "sessions", "*", "main.jsonl"))
	if len(sessions) != 2 {
		t.Errorf("%d sessions on disk, want 2", len(sessions))
	}

	// F1: the shortcut sheet; Esc closes it and the prompt has the focus.
	app.Key("F1")
	app.WaitFor(Role("dialog", "Keyboard shortcuts"))
	app.WaitFor(Text("New conversation"))
	app.WaitFocus(Button("Close"))
	app.Shot("shortcut-sheet")
	closeByEsc(app, Role("dialog", "Keyboard shortcuts"))
	app.Shot("sheet-closed")

	if got := timeoutOnDisk(ws); got != 45.0 {
		t.Errorf("agent.json has execution_timeout %v at the end, want 45", got)
	}
}

// sendByKeys goes to the message box with Ctrl+L, types the prompt and
// sends it with Enter, once Send can be pressed (a new conversation's
// kernel may still be starting, and Enter does nothing until then).
func sendByKeys(app *App, prompt string) {
	app.t.Helper()
	app.Key("ctrl+l")
	app.WaitFocus(Field("Message to the agent"))
	app.Type(prompt)
	app.WaitEnabled(Query{Role: "push button", Name: "Send", Exact: true})
	app.Key("Return")
}

// closeByEsc closes the dialog with Esc; the message box has the focus
// after.
func closeByEsc(app *App, dialog Query) {
	app.t.Helper()
	app.Key("Escape")
	app.WaitGone(dialog)
	app.WaitFocus(Field("Message to the agent"))
}

// timeoutOnDisk is execution_timeout in the workspace's agent.json (nil
// while it cannot be read).
func timeoutOnDisk(ws string) any {
	b, err := os.ReadFile(filepath.Join(ws, ".freeact", "agent.json"))
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m["execution_timeout"]
}
