//go:build journey

package journey

import "testing"

// Issue 34, item 1: with the accessibility bus on (journeys read the
// window through it), renaming a session with the pencil and Enter, or
// with F2 and Esc, ended WebKitWebProcess, 3 times of 3. The web process
// now lives on and the title is saved.
func TestRenameKeepsTheWebProcess(t *testing.T) {
	atSizesOn(t, "testdata/two-turns.yaml", func(t *testing.T, app *App, ws string) {
		app.Send("First question")
		app.WaitFor(Text("First answer."))
		pid := app.webProcess()

		app.Click(Button("Sessions"))
		app.Click(Button("Rename “First question”"))
		app.WaitFor(Field("New title"))
		app.Key("ctrl+a")
		app.Type("Renamed by pencil")
		app.Key("Return")
		app.WaitFor(Query{Role: "push button", Name: "Renamed by pencil"})
		app.Shot("renamed")
		if !alive(pid) {
			t.Fatalf("the web process %d ended on rename with the pencil and Enter", pid)
		}

		// F2 on the session (focus came back to it), then Esc: no change.
		app.WaitFocus(Query{Role: "push button", Name: "Renamed by pencil"})
		app.Key("F2")
		app.WaitFor(Field("New title"))
		app.Type(" not kept")
		app.Key("Escape")
		app.WaitGone(Field("New title"))
		app.Shot("rename-cancelled")
		if !alive(pid) {
			t.Fatalf("the web process %d ended on rename with F2 and Esc", pid)
		}
		if ps := app.webProcesses(); len(ps) != 1 || ps[0] != pid {
			t.Errorf("web processes %v after the renames, want the first one, %d", ps, pid)
		}
		if _, ok := app.Find(Text("not kept")); ok {
			t.Error("Esc kept the typed title")
		}
		// The title is saved: the app opened again lists it.
		home := app.Home
		app.Stop()
		again := Start(t, Options{Workspace: ws, Scenario: "testdata/two-turns.yaml", Home: home})
		again.WaitFor(Text("Kernel ready"))
		again.Click(Button("Sessions"))
		again.WaitFor(Query{Role: "push button", Name: "Renamed by pencil"})
	})
}
