package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/mcpglue"
)

// The MCP glue that does not need the agent (the catalog, progress of
// calls) lives in agent/mcpglue; these aliases keep its SDK types
// reachable as agent.MCPCatalog, ... .
type (
	MCPCatalog     = mcpglue.MCPCatalog
	MCPResource    = mcpglue.MCPResource
	MCPPrompt      = mcpglue.MCPPrompt
	MCPArgument    = mcpglue.MCPArgument
	MCPServerState = mcpglue.MCPServerState
	MCPFailure     = mcpglue.MCPFailure
)

// Names of the tool-search tools.
const (
	ListCategoriesTool = mcpglue.ListCategoriesTool
	ListToolsTool      = mcpglue.ListToolsTool
	SearchToolsTool    = mcpglue.SearchToolsTool
)

// mcpManagers are the agent's managers: JSON tools and code mode (nil
// when not configured).
func (a *Agent) mcpManagers() []*mcp.Manager {
	if a.mcp == nil {
		return nil
	}
	return []*mcp.Manager{a.mcp.json, a.mcp.ptc}
}

// mcpManager is the manager of the agent's that runs server.
func (a *Agent) mcpManager(server string) (*mcp.Manager, error) {
	return mcpglue.ManagerFor(server, a.mcpManagers()...)
}

// MCPCatalog lists the resources, resource templates and prompts of every
// MCP server (mcpglue.Catalog).
func (a *Agent) MCPCatalog(ctx context.Context) MCPCatalog {
	return mcpglue.Catalog(ctx, a.mcpManagers()...)
}

// CompleteMCP asks a server for values of an argument that begin like
// value: kind "prompt" (name a prompt) or "resource" (name a resource
// template). resolved holds the arguments already filled in, which the
// server may narrow the values by.
func (a *Agent) CompleteMCP(ctx context.Context, kind, server, name, arg, value string, resolved map[string]string) ([]string, error) {
	m, err := a.mcpManager(server)
	if err != nil {
		return nil, err
	}
	return mcpglue.Complete(ctx, m, kind, server, name, arg, value, resolved)
}

// MCPServers lists the agent's MCP servers with their state; skip names
// servers whose sign-in is not read (one under way holds it).
func (a *Agent) MCPServers(skip func(server string) bool) []MCPServerState {
	return mcpglue.States(a.mcpGroups(), &a.cfg.Options, a.MCPFailures(), skip)
}

// mcpGroups are the agent's managers.
func (a *Agent) mcpGroups() []mcpglue.Group {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []mcpglue.Group
	if a.mcp == nil {
		return out
	}
	if a.mcp.json != nil {
		out = append(out, mcpglue.Group{Group: "mcp_servers", M: a.mcp.json})
	}
	if a.mcp.ptc != nil {
		out = append(out, mcpglue.Group{Group: "ptc_servers", M: a.mcp.ptc})
	}
	return out
}

// MCPLogin signs in to server (the browser step included) and connects
// it, so that its tools are there without a restart.
func (a *Agent) MCPLogin(ctx context.Context, server string) error {
	m, err := a.mcpManagerOf(server)
	if err != nil {
		return err
	}
	if err := m.Login(ctx, server); err != nil {
		return err
	}
	if _, err := m.ServerTools(ctx, server); err != nil {
		return fmt.Errorf("signed in, but: %w", err)
	}
	return nil
}

// MCPConnect connects server now, as the window's Try again does for a
// server that did not start: a JSON server's tools are offered from the
// next model call, and it leaves MCPFailures. When it fails again, its
// failure says the new reason.
func (a *Agent) MCPConnect(ctx context.Context, server string) error {
	m, err := a.mcpManagerOf(server)
	if err != nil {
		return err
	}
	_, err = m.ServerTools(ctx, server)
	if err != nil {
		why := err.Error()
		if me := (*mcp.Error)(nil); errors.As(err, &me) {
			why = me.Err.Error()
		}
		a.mu.Lock()
		a.mcp.noteFailure(m, server, why)
		a.mu.Unlock()
	}
	return err
}

// MCPLogout forgets the tokens of server (the registration is kept).
func (a *Agent) MCPLogout(server string) error {
	m, err := a.mcpManagerOf(server)
	if err != nil {
		return err
	}
	return m.Logout(server)
}

func (a *Agent) mcpManagerOf(server string) (*mcp.Manager, error) {
	for _, g := range a.mcpGroups() {
		for _, n := range g.M.Servers() {
			if n == server {
				return g.M, nil
			}
		}
	}
	return nil, &mcp.Error{Server: server, Err: mcp.ErrUnknownServer}
}
