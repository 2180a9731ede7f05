//go:build journey

package journey

import (
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
		app.Type("Alice")
		app.Key("Return")
		app.WaitGone(Text("prompt arguments"))
		app.Shot("prompt-command-inserted")
		app.Key("Return")
		app.WaitFor(Text("Alice is promoted."))
	})
}
