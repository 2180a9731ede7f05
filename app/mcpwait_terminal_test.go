package app

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/freeact/desktop/internal/testenv"
)

// A model call that waits for an MCP server still starting says so in the
// terminal, and Enter goes on without it.
func TestTerminalSkipsASlowMCPServer(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, _ := terminalEnv(t, `
turns:
  - reply: [{text: "Went on."}]
`)
	// The gate never opens: the server never serves.
	withGatedServer(t, ws, "slow", filepath.Join(t.TempDir(), "gate"))
	scr, send, exited := startTerminal(t, exec.Command(bin, "run", "--workspace", ws), env, 160)
	scr.expect(t, "> ")
	send("Go.\r")
	scr.expect(t, "Waiting for MCP server slow to start")
	scr.expect(t, "Enter or /skip goes on without it.")
	send("\r")
	scr.expect(t, "Going on without MCP server slow")
	scr.expect(t, "Went on.")
	scr.expect(t, "> ")
	quit(t, send, exited)
}

// withGatedServer adds agent/testdata/mcp/gated.py (on the Python MCP
// SDK) to the workspace's mcp_servers as name, serving once gate exists
// ("-": at once).
func withGatedServer(t *testing.T, ws, name, gate string) {
	t.Helper()
	py := testenv.PythonMCP(t, "1.30")
	script, err := filepath.Abs(filepath.Join("..", "agent", "testdata", "mcp", "gated.py"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(ws, ".freeact", "agent.json")
	var cfg map[string]any
	if b, err := os.ReadFile(file); err != nil || json.Unmarshal(b, &cfg) != nil {
		t.Fatalf("read agent.json: %v", err)
	}
	cfg["mcp_servers"] = map[string]any{name: map[string]any{"command": py, "args": []string{script, gate}, "connect_timeout": 600}}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A mention of a resource over the mention limit asks first, with its
// size: no sends nothing, yes attaches it.
func TestTerminalAsksBeforeALargeMention(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, _ := terminalEnv(t, `
turns:
  - expect:
      last: [{role: user, text: "resource server=\"gated\" uri=\"data://big\""}]
    reply: [{text: "Read it."}]
`)
	withGatedServer(t, ws, "gated", "-")
	scr, send, exited := startTerminal(t, exec.Command(bin, "run", "--workspace", ws), env, 200)
	scr.expect(t, "> ")
	send("Summarise @gated:data://big\r")
	scr.expect(t, "@gated:data://big is 300 KiB; mentions over 256 KiB go to the model whole only when you agree. Attach it? [y/N]")
	send("n\r")
	scr.expect(t, "it was not sent")
	scr.expect(t, "> ")
	send("Summarise @gated:data://big\r")
	scr.expect(t, "Attach it? [y/N]")
	send("y\r")
	scr.expect(t, "Read it.")
	scr.expect(t, "> ")
	quit(t, send, exited)
}
