package desktop

import (
	"github.com/freeact/desktop/agent/mcpglue"
)

// SkipMCPWait answers an MCPWaiting: the model call goes on without the
// MCP servers still connecting; their tools join once they connect.
func (d *Desktop) SkipMCPWait(id string) error {
	w, err := takeRequest[*mcpglue.MCPWaiting](d, id, "wait for MCP servers")
	if err != nil {
		return err
	}
	w.Skip()
	return nil
}
