package desktop

import "github.com/freeact/desktop/agent"

// SkipMCPWait answers an MCPWaiting: the model call goes on without the
// MCP servers still connecting; their tools join once they connect.
func (d *Desktop) SkipMCPWait(id string) error {
	w, err := takeRequest[*agent.MCPWaiting](d, id, "wait for MCP servers")
	if err != nil {
		return err
	}
	w.Skip()
	return nil
}
