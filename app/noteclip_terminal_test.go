package app

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/mcp"
)

// floodEnv is a terminal workspace whose model calls mcptest's flood: twelve
// progress notifications and twelve warnings of 1 MB each, then "Done.".
func floodEnv(t *testing.T) (ws string, env []string) {
	t.Helper()
	return mcpTerminalEnv(t, `
turns:
  - reply: [{call: {id: c1, name: test_flood, args: {count: 12, size: 1048576, level: warning}}}]
  - expect:
      last: [{role: user, response: test_flood, output: "sent 12"}]
    reply: [{text: "Done."}]
`)
}

// A server's twelve 1 MB log lines reach the terminal clipped, with the
// clip said: what the terminal prints of the server is at most 4 KiB a
// line, not 12 MB. (How the budget of a second cuts further depends on
// the machine's speed; TestNoteClipper proves it with a clock of its own.)
func TestTerminalClipsServerNotifications(t *testing.T) {
	bin := freeactBinary(t)
	ws, env := floodEnv(t)
	scr, send, exited := startTerminal(t, exec.Command(bin, "run", "--workspace", ws), env, 160)
	scr.expect(t, "> ")
	send("Flood.\r")
	scr.expect(t, "Approve? [Y/n/a/s/d]")
	send("y\r")
	scr.expect(t, "bytes clipped]")
	scr.expect(t, "Done.")
	scr.expect(t, "> ")
	quit(t, send, exited)
	out := scr.String()
	if n := strings.Count(out, "x"); n > 12*mcp.MaxNoteBytes+1000 {
		t.Errorf("the terminal printed %d bytes of the server's messages, want at most %d a line", n, mcp.MaxNoteBytes)
	}
}

// With --json the ToolProgress events are clipped the same way, and say
// how much: each line's clipped counts the bytes left out.
func TestRunJSONClipsServerNotifications(t *testing.T) {
	bin := freeactBinary(t)
	ws, env := floodEnv(t)
	cmd := exec.Command(bin, "run", "--workspace", ws, "--json", "--prompt", "Flood.")
	cmd.Env = env
	cmd.Stdin = strings.NewReader("y\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v; stderr:\n%s", err, clipForLog(stderr.String()))
	}
	text, clipped, lines, events := 0, 0, 0, 0
	for _, l := range bytes.Split(out, []byte("\n")) {
		var ev struct {
			Type string `json:"type"`
			agent.ToolProgress
		}
		if json.Unmarshal(l, &ev) != nil || ev.Type != "ToolProgress" {
			continue
		}
		events++
		text += len(ev.Message)
		clipped += ev.Clipped
		for _, g := range ev.Logs {
			lines++
			text += len(g.Message)
			clipped += g.Clipped
			if len(g.Message) > mcp.MaxNoteBytes+100 || g.Clipped == 0 || !strings.Contains(g.Message, "bytes") {
				t.Errorf("a log line of %d bytes, %d clipped, ending %q", len(g.Message), g.Clipped, g.Message[max(0, len(g.Message)-80):])
			}
		}
	}
	// A line may come after the call's answer, and be left out. Each
	// event carries the latest progress message and its lines.
	if lines == 0 || clipped < lines*(1<<20-mcp.MaxNoteBytes) || text > (events+lines)*(mcp.MaxNoteBytes+100) {
		t.Errorf("%d events, %d log lines, %d bytes of text, %d said clipped; want the 1 MB messages clipped to %d bytes", events, lines, text, clipped, mcp.MaxNoteBytes)
	}
	if len(out) > 1<<20 {
		t.Errorf("--json wrote %d bytes", len(out))
	}
}

// clipForLog keeps a failure's log short.
func clipForLog(s string) string {
	if len(s) > 4000 {
		return s[:4000] + "…"
	}
	return s
}
