//go:build journey

package journey

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/internal/testenv"
)

// Issue 38: auto mode in the window. The header's switch turns auto
// mode on; with the sandbox and checkpoints on, the model's code action
// runs without a click and its card says "sandbox"; the header's list
// shows it as new, and its Revert puts the file back.
func TestAutoModeRunsASandboxedActionAndRevertsIt(t *testing.T) {
	srt := filepath.Join(testenv.RepoRoot(t), "scripts", "srt", "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(srt, "srt")); err != nil {
		t.Fatalf("srt is missing (npm install in scripts/srt): %v", err)
	}
	atSizes(t, func(t *testing.T, w, h int) {
		ws := Workspace(t, map[string]any{"sandbox": true})
		writeFile(t, filepath.Join(ws, "notes.txt"), "old notes\n")
		app := Start(t, Options{Workspace: ws, Scenario: "testdata/auto-mode.yaml", Width: w, Height: h,
			Env: map[string]string{"PATH": srt + string(os.PathListSeparator) + os.Getenv("PATH")}})
		app.WaitFor(Text("Kernel ready"))
		app.Click(Button("Approval mode: Rules"))
		app.WaitFor(Role("dialog", "Approval mode"))
		app.Shot("approval-modes")
		app.Click(Query{Role: "radio button", Name: "Auto"})
		mode := app.WaitFor(Button("Approval mode: Auto"))
		if strings.Contains(mode.Name, "sandbox") || strings.Contains(mode.Name, "paused") {
			t.Errorf("the header says %q with the sandbox on", mode.Name)
		}
		app.Shot("auto-on")

		app.Send("Rewrite the notes")
		app.WaitFor(Text("The notes are rewritten."))
		if _, ok := app.Find(Role("landmark", "Approval request")); ok {
			t.Error("auto mode asked for the sandboxed code action")
		}
		app.WaitFor(Text("auto-approved · sandbox"))
		if got := readFile(t, filepath.Join(ws, "notes.txt")); got != "new notes\n" {
			t.Fatalf("notes.txt is %q after the action, want it rewritten", got)
		}
		app.Shot("ran-with-sandbox-badge")

		app.Click(Button("Approval mode: Auto, 1 new in auto"))
		app.WaitFor(Role("heading", "Ran in auto mode · 1 since you last looked"))
		app.Shot("ran-in-auto-list")
		app.Click(Query{Role: "push button", Name: "Revert open('notes.txt', 'w').write('new notes\\n')"})
		app.WaitFor(Button("Revert 1 file"))
		app.Shot("revert-dialog")
		app.Click(Button("Revert 1 file"))
		app.Wait("notes.txt reverted", func() bool {
			b, err := os.ReadFile(filepath.Join(ws, "notes.txt"))
			return err == nil && string(b) == "old notes\n"
		})
		app.WaitFor(Button("Undo"))
		app.Shot("reverted")
		if n, ok := app.Find(Button("Approval mode: Auto")); !ok || strings.Contains(n.Name, "new") {
			t.Errorf("after the list was seen the header's mode is %q, want no new ones", n.Name)
		}
	})
}
