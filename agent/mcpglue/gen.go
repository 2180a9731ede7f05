package mcpglue

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/freeact/desktop/agent/apigen"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
)

// CopyOnce copies the folder src to dst unless dst exists.
func CopyOnce(src, dst string) error {
	if _, err := os.Stat(dst); err == nil {
		return nil
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if d.Name() == "__pycache__" {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// Generate writes the Python API of one ptc server.
func Generate(ctx context.Context, m *mcp.Manager, workspace, server string) error {
	tools, err := m.ServerTools(ctx, server)
	if err != nil {
		return fmt.Errorf("Generate Python API of MCP server %q: %w", server, err)
	}
	return WriteAPI(workspace, server, tools)
}

// WriteAPI writes (or rewrites, when they changed) the modules of server's
// tools in the workspace.
func WriteAPI(workspace, server string, tools []mcp.Tool) error {
	list := make([]apigen.Tool, len(tools))
	for i, t := range tools {
		list[i] = apigen.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema}
	}
	root, err := ToolsRoot(workspace)
	if err != nil {
		return fmt.Errorf("Generate Python API of MCP server %q: %w", server, err)
	}
	_, err = apigen.Generate(root, server, list)
	return err
}

// ToolsRoot returns the workspace's .freeact/generated/mcptools after
// checking that no symbolic link on the way leads elsewhere. Code writes
// .freeact/generated, in the sandbox too; generating replaces a server's
// folder (and removes the old one), so a planted link would make the agent,
// outside the sandbox, replace a folder wherever it points.
func ToolsRoot(workspace string) (string, error) {
	root := filepath.Join(workspace, config.MCPToolsDir(""))
	for p := root; p != workspace && p != filepath.Dir(p); p = filepath.Dir(p) {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%s is a symbolic link: the Python APIs of MCP servers are generated only into a folder of the workspace; remove the link", p)
		}
	}
	return root, nil
}

// GenerateTools (re)generates .freeact/generated/mcptools/<server>/ for
// the named ptc_servers (all of them when none is named), replacing what
// was there. It connects each server for its tool list and closes it again.
// Each failure names its server; the others are still generated.
func GenerateTools(ctx context.Context, cfg *config.Config, servers ...string) error {
	if len(servers) == 0 {
		for name := range cfg.Options.PTCServers {
			servers = append(servers, name)
		}
		slices.Sort(servers)
	}
	var errs []error
	for _, name := range servers {
		if _, ok := cfg.Options.PTCServers[name]; !ok {
			errs = append(errs, fmt.Errorf("Generate Python API of MCP server %q: it is not in ptc_servers of %s", name, cfg.SettingsFile()))
		}
	}
	m := mcp.NewManager(cfg.Options.PTCServers, mcp.Options{})
	defer m.Close()
	for _, name := range servers {
		if _, ok := cfg.Options.PTCServers[name]; ok {
			errs = append(errs, Generate(ctx, m, cfg.Dir, name))
		}
	}
	return errors.Join(errs...)
}
