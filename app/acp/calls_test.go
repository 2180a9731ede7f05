package acp_test

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/freeact/desktop/internal/testenv"
)

// A 1x1 PNG.
const tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// TestACPCallsAsTheClientSeesThem: a prompt with an image and a resource
// link reaches the model; a protected write offers no Always (and an
// allow_always answer saves no rule); a shell command inside a cell is a
// call of its own, asked with the exact command; an MCP server the client
// passes is used, its calls named by server and tool.
func TestACPCallsAsTheClientSeesThem(t *testing.T) {
	bin := freeactBinary(t)
	everything := testenv.MCPServer(t, "server-everything")
	ws, environ, _ := env(t, `
turns:
  - expect:
      has: [{role: user, image: true}, {role: user, text: "@/tmp/notes.txt"}]
    reply: [{call: {id: w1, name: filesystem_write_text_file, args: {path: ".freeact/permissions.json", content: "{}"}}}]
  - reply: [{text: "Not written."}]
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "!echo hi-from-shell"}}}]
  - reply: [{text: "Done."}]
  - reply: [{call: {id: m1, name: everything_echo, args: {message: "hello"}}}]
  - reply: [{text: "Echoed."}]
`)
	p := startACP(t, bin, environ)
	p.initialize(t)
	p.c.answer = pick("allow_always")
	resp, err := p.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: ws, McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "everything", Command: "node", Args: []string{everything}, Env: []sdk.EnvVariable{}}},
	}})
	if err != nil {
		t.Fatalf("session/new with an MCP server: %v; stderr:\n%s", err, p.stderr.String())
	}
	id := resp.SessionId
	if _, err := base64.StdEncoding.DecodeString(tinyPNG); err != nil {
		t.Fatal(err)
	}
	r, err := p.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("Save the rules."), sdk.ImageBlock(tinyPNG, "image/png"), sdk.ResourceLinkBlock("notes", "file:///tmp/notes.txt"),
	}})
	if err != nil {
		t.Fatalf("prompt with an image: %v; stderr:\n%s", err, p.stderr.String())
	}
	p.c.waitFor(t, "the MCP server's prompts as commands", func(u []sdk.SessionNotification, _ []sdk.RequestPermissionRequest) bool {
		for _, n := range u {
			if c := n.Update.AvailableCommandsUpdate; c != nil {
				for _, cmd := range c.AvailableCommands {
					if strings.HasPrefix(cmd.Name, "everything:") {
						return true
					}
				}
			}
		}
		return false
	})
	_, asked := p.c.snapshot()
	if len(asked) != 1 {
		t.Fatalf("%d permission requests, want 1", len(asked))
	}
	for _, o := range asked[0].Options {
		if o.Kind == sdk.PermissionOptionKindAllowAlways {
			t.Errorf("a protected write offers %+v", o)
		}
	}
	// An allow_always answer anyway counts as a one-time yes: it ran.
	if after, _ := os.ReadFile(filepath.Join(ws, ".freeact", "permissions.json")); string(after) != "{}" {
		t.Errorf("the approved protected write did not run: %q", after)
	}
	if r.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stop reason %q", r.StopReason)
	}

	p.c.mu.Lock()
	p.c.asked, p.c.answer = nil, pick("allow_once")
	p.c.mu.Unlock()
	if _, err := p.prompt(t, id, "Run a shell command."); err != nil {
		t.Fatal(err)
	}
	updates, asked := p.c.snapshot()
	if len(asked) != 2 {
		t.Fatalf("%d permission requests, want the cell's and the command's", len(asked))
	}
	shellID := string(asked[1].ToolCall.ToolCallId)
	if shellID == "c1" || shellID == "" {
		t.Errorf("the shell command shares the cell's call id %q", shellID)
	}
	text, kinds, _ := toolText(updates, shellID)
	if !strings.Contains(text, "echo hi-from-shell") || len(kinds) != 1 || kinds[0] != sdk.ToolKindExecute {
		t.Errorf("shell call: %q %v", text, kinds)
	}
	if text, _, status := toolText(updates, "c1"); !strings.Contains(text, "hi-from-shell\n") || status != sdk.ToolCallStatusCompleted {
		t.Errorf("the cell's output: %q %q", text, status)
	}

	if _, err := p.prompt(t, id, "Echo hello."); err != nil {
		t.Fatal(err)
	}
	updates, _ = p.c.snapshot()
	var title string
	for _, n := range updates {
		if c := n.Update.ToolCall; c != nil && c.ToolCallId == "m1" {
			title = c.Title
		}
	}
	if title != "MCP everything: echo" {
		t.Errorf("MCP call title %q", title)
	}
	if text, _, status := toolText(updates, "m1"); !strings.Contains(text, "hello") || status != sdk.ToolCallStatusCompleted {
		t.Errorf("MCP call: %q %q", text, status)
	}
}
