//go:build journey

package journey

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/freeact/desktop/internal/testenv"
)

// mcpWorkspace is a workspace whose JSON MCP server is the npm reference
// server-everything over stdio.
func mcpWorkspace(t *testing.T) string {
	js := testenv.MCPServer(t, "server-everything")
	return Workspace(t, map[string]any{"mcp_servers": map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{js, "stdio"}, "connect_timeout": 60},
	}})
}

// Issue 26: the approval of an MCP tool shows its annotations as badges
// (and is asked all the same), and while it runs the server's progress
// shows on its card.
func TestMCPAnnotationsAndProgress(t *testing.T) {
	atSizes(t, func(t *testing.T, w, h int) {
		app := Start(t, Options{Workspace: mcpWorkspace(t), Scenario: "testdata/mcp-progress.yaml", Width: w, Height: h})
		app.WaitFor(Text("Kernel ready"))
		app.Send("Run the long operation")
		app.WaitFor(Role("landmark", "Approval request"))
		for _, badge := range []string{"read-only", "not destructive", "idempotent", "closed world"} {
			app.WaitFor(Text(badge))
		}
		app.WaitFor(Text("they are not checked and never allow a call"))
		app.Shot("annotation-badges")
		app.Key("y")
		// The bar is named after the server and the percentage.
		app.WaitFor(Query{Role: "progress bar", Name: "everything: "})
		app.Shot("live-progress")
		app.WaitFor(Text("The operation is done."))
		app.WaitFor(Query{Role: "progress bar", Name: "everything: 100%"})
		app.Shot("progress-done")
	})
}

// Issue 26: @ offers the servers' resources and / their prompts; a prompt's
// arguments are asked in a form that completes from the server; all by
// keyboard. The model gets the resource and the prompt's text.
func TestMCPMentionAndPromptByKeyboard(t *testing.T) {
	atSizes(t, func(t *testing.T, w, h int) {
		app := Start(t, Options{Workspace: mcpWorkspace(t), Scenario: "testdata/mcp-complete.yaml", Width: w, Height: h})
		app.WaitFor(Text("Kernel ready"))
		app.Click(Field("Message to the agent"))
		app.Type("summarise @everything:")
		app.WaitFor(Role("list box", "Completions"))
		app.Shot("resource-completion")
		app.Key("Tab")
		app.Type("please")
		app.Key("Return")
		app.WaitFor(Text("I read the resource."))

		app.Click(Field("Message to the agent"))
		app.Type("/everything:compl")
		app.WaitFor(Role("list box", "Completions"))
		app.Key("Return")
		app.WaitFor(Text("prompt arguments"))
		app.Type("Eng")
		app.WaitFor(Role("list box", "Values for department"))
		app.Shot("argument-completion")
		app.Key("Tab", "Tab")
		// The leader's names come with the department chosen (the
		// completion's context): the server offers Engineering's.
		app.WaitFor(Role("list box", "Values for name"))
		app.WaitFor(Role("list item", "Charlie"))
		app.Shot("dependent-completion")
		app.Type("Alice")
		app.Key("Return")
		app.WaitGone(Text("prompt arguments"))
		app.Shot("prompt-command-inserted")
		app.Key("Return")
		app.WaitFor(Text("Alice is promoted."))
	})
}

// An MCP server that did not start shows a banner with its reason and Try
// again; once the server can start, Try again connects it without a
// restart: the banner goes and the next message offers its tools.
func TestMCPTryAgainFromTheBanner(t *testing.T) {
	js := testenv.MCPServer(t, "server-everything")
	atSizes(t, func(t *testing.T, w, h int) {
		script := filepath.Join(t.TempDir(), "late-server")
		ws := Workspace(t, map[string]any{"mcp_servers": map[string]any{
			"late": map[string]any{"command": script, "connect_timeout": 60},
		}})
		app := Start(t, Options{Workspace: ws, Scenario: "testdata/mcp-try-again.yaml", Width: w, Height: h})
		app.WaitFor(Text("Kernel ready"))
		banner := Text("MCP server “late” did not start")
		app.WaitFor(banner)
		app.Shot("banner")
		// Still missing: the banner stays and says it tried.
		app.Click(Button("Try again to start late"))
		app.WaitFor(Text("it still does not start"))
		app.Shot("still-failing")
		if err := os.WriteFile(script, []byte("#!/bin/sh\nexec node "+js+" stdio\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		app.Click(Button("Try again to start late"))
		app.WaitGone(banner)
		app.Shot("connected")
		app.Send("What can the late server do?")
		app.WaitFor(Text("The late server's tools are here."))
	})
}
