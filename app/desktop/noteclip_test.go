package desktop

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/agent/model/modeltest"
)

// The window gets the same clipped events: what reaches it of the
// server's twelve 1 MB warnings is at most 4 KiB a message, each line
// saying how much was clipped.
func TestDesktopClipsServerNotifications(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: c1, name: test_flood, args: {count: 12, size: 1048576, level: warning}}}]
  - reply: [{text: "Done."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	servers, _ := json.Marshal(map[string]any{"test": mcptest.HTTP(t)})
	if errs, err := config.SaveValues(ws, map[string]json.RawMessage{"mcp_servers": servers}, config.LoadOptions{}); err != nil || len(errs) > 0 {
		t.Fatal(errs, err)
	}
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	h.waitState(t, KernelReady)
	if err := d.Send("Flood.", nil); err != nil {
		t.Fatal(err)
	}
	appr, i := h.waitEvent(t, "ApprovalRequest", 0)
	if err := d.Approve(appr["request_id"].(string), "yes", ""); err != nil {
		t.Fatal(err)
	}
	waitTurnEnded(t, h, i)
	h.mu.Lock()
	events := h.events
	h.mu.Unlock()
	size, lines, n := 0, 0, 0
	for _, raw := range events {
		var ev struct {
			Type string `json:"type"`
			agent.ToolProgress
		}
		if json.Unmarshal(raw, &ev) != nil || ev.Type != "ToolProgress" {
			continue
		}
		n++
		size += len(raw)
		for _, l := range ev.Logs {
			lines++
			if l.Clipped == 0 || !strings.HasSuffix(l.Message, " bytes clipped]") {
				t.Errorf("a line of %d bytes, %d said clipped", len(l.Message), l.Clipped)
			}
		}
	}
	// Each event carries the latest progress message and its lines.
	if lines == 0 || size > (n+lines)*(mcp.MaxNoteBytes+300) {
		t.Errorf("the window got %d bytes in %d ToolProgress events with %d lines, want at most %d bytes a message", size, n, lines, mcp.MaxNoteBytes)
	}
}
