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
	py := testenv.PythonMCP(t, "1.30")
	script, err := filepath.Abs(filepath.Join("..", "agent", "testdata", "mcp", "gated.py"))
	if err != nil {
		t.Fatal(err)
	}
	// The gate never opens: the server never serves.
	gate := filepath.Join(t.TempDir(), "gate")
	file := filepath.Join(ws, ".freeact", "agent.json")
	var cfg map[string]any
	if b, err := os.ReadFile(file); err != nil || json.Unmarshal(b, &cfg) != nil {
		t.Fatalf("read agent.json: %v", err)
	}
	cfg["mcp_servers"] = map[string]any{"slow": map[string]any{"command": py, "args": []string{script, gate}, "connect_timeout": 600}}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
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
