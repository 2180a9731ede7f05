package agent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/freeact/desktop/agent/apigen"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
)

// generate writes the Python API of one ptc server.
func generate(ctx context.Context, m *mcp.Manager, workspace, server string) error {
	tools, err := m.ServerTools(ctx, server)
	if err != nil {
		return fmt.Errorf("generate Python API of MCP server %q: %w", server, err)
	}
	return writeAPI(workspace, server, tools)
}

// writeAPI writes (or rewrites, when they changed) the modules of server's
// tools in the workspace.
func writeAPI(workspace, server string, tools []mcp.Tool) error {
	list := make([]apigen.Tool, len(tools))
	for i, t := range tools {
		list[i] = apigen.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema}
	}
	_, err := apigen.Generate(filepath.Join(workspace, config.MCPToolsDir("")), server, list)
	return err
}

// GenerateMCPTools (re)generates .freeact/generated/mcptools/<server>/ for
// the named ptc_servers (all of them when none is named), replacing what
// was there. It connects each server for its tool list and closes it again.
// Each failure names its server; the others are still generated.
func GenerateMCPTools(ctx context.Context, cfg *config.Config, servers ...string) error {
	if len(servers) == 0 {
		for name := range cfg.Options.PTCServers {
			servers = append(servers, name)
		}
		slices.Sort(servers)
	}
	var errs []error
	for _, name := range servers {
		if _, ok := cfg.Options.PTCServers[name]; !ok {
			errs = append(errs, fmt.Errorf("generate Python API of MCP server %q: it is not in ptc_servers of %s", name, filepath.Join(cfg.FreeactDir, config.AgentFile)))
		}
	}
	m := mcp.NewManager(cfg.Options.PTCServers, mcp.Options{})
	defer m.Close()
	for _, name := range servers {
		if _, ok := cfg.Options.PTCServers[name]; ok {
			errs = append(errs, generate(ctx, m, cfg.Dir, name))
		}
	}
	return errors.Join(errs...)
}
