package desktop

import (
	"context"
	"github.com/freeact/desktop/agent/mcpglue"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/mcp"
)

// mcpListWait bounds the prompt box's questions to MCP servers (listing
// resources and prompts, completing an argument): servers that start
// slowly are asked again at the next keystroke.
const mcpListWait = 10 * time.Second

// mcpAgent is the running agent, for the prompt box's MCP questions.
func (d *Desktop) mcpAgent() (*agent.Agent, context.Context, context.CancelFunc, error) {
	return d.running(mcpListWait, "the agent is not ready yet")
}

// MCPCatalog lists the MCP servers' resources, resource templates and
// prompts for @server:uri mentions and /server:prompt commands.
func (d *Desktop) MCPCatalog() (mcpglue.MCPCatalog, error) {
	a, ctx, cancel, err := d.mcpAgent()
	if err != nil {
		return mcpglue.MCPCatalog{}, err
	}
	defer cancel()
	return a.MCPCatalog(ctx), nil
}

// CompleteMCP asks a server for values of a prompt's argument (kind
// "prompt") or a resource template's variable (kind "resource") that
// begin like value, given the arguments already filled in (resolved).
func (d *Desktop) CompleteMCP(kind, server, name, arg, value string, resolved map[string]string) ([]string, error) {
	a, ctx, cancel, err := d.mcpAgent()
	if err != nil {
		return nil, err
	}
	defer cancel()
	return a.CompleteMCP(ctx, kind, server, name, arg, value, resolved)
}

// MCPResourceURI fills in a resource template with the values of its
// variables.
func (d *Desktop) MCPResourceURI(uriTemplate string, values map[string]string) (string, error) {
	return mcp.ExpandTemplate(uriTemplate, values)
}
