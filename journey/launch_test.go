//go:build journey

package journey

import (
	"os"
	"path/filepath"
	"testing"
)

// Issue 12, also expected: the picker expands ~ and offers to create a
// missing folder; the last workspace and conversation reopen at launch;
// freeact PATH opens that workspace; the picker lists recent workspaces.
func TestLaunchPickerAndRecentWorkspaces(t *testing.T) {
	app := Start(t, Options{Scenario: "testdata/launch.yaml"})
	app.WaitFor(Role("heading", "Open a workspace"))
	app.Shot("picker")
	app.Click(Field("or type its path"))
	app.Type("~/work/demo")
	app.Key("Return")
	demo := filepath.Join(app.Home, "work", "demo")
	app.WaitFor(Text("does not exist."))
	app.WaitFor(Text(demo))
	app.Shot("offer-to-create")
	if _, err := os.Stat(demo); err == nil {
		t.Fatal("the folder was created before the user asked")
	}
	app.Click(Button("Create it and open"))
	app.WaitTitle("demo — freeact")
	if _, err := os.Stat(filepath.Join(demo, ".freeact", "agent.json")); err != nil {
		t.Errorf("the new workspace was not set up: %v", err)
	}
	app.WaitFor(Text("Kernel ready"))
	app.Send("Hello")
	app.WaitFor(Text("Hi from the demo workspace."))
	app.Shot("first-conversation")
	app.Stop()

	// Launched again without a path: the last workspace, with its
	// conversation.
	app = Start(t, Options{Home: app.Home})
	// The title names the resumed conversation, then the workspace.
	app.WaitTitle("Hello — demo — freeact")
	app.WaitFor(Text("Hi from the demo workspace."))
	app.WaitFor(Text("Kernel ready"))
	app.Shot("reopened")
	app.Stop()

	// freeact PATH opens that workspace instead.
	other := Workspace(t, nil)
	app = Start(t, Options{Home: app.Home, Workspace: other})
	app.WaitTitle("project — freeact")
	app.WaitFor(Text("What should we work on?"))
	if _, ok := app.Find(Text("Hi from the demo workspace.")); ok {
		t.Error("freeact PATH showed the other workspace's conversation")
	}
	app.Click(Button("project"))
	app.WaitFor(Role("heading", "Open a workspace"))
	app.WaitFor(Query{Role: "push button", Name: demo})
	app.WaitFor(Query{Role: "push button", Name: other})
	app.Shot("recent-workspaces")
}
