package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/model"
)

// mcpTools is what an agent has of MCP servers and tool search: the
// connections to mcp_servers (JSON tool calls) and ptc_servers (code mode),
// the names the model calls JSON tools by, and the tool search shared with
// its subagents.
type mcpTools struct {
	json   *mcp.Manager
	ptc    *mcp.Manager
	byName map[string]mcp.Tool
	search *toolSearch
	// ownSearch is set on the agent that opened the search (not on
	// subagents sharing it).
	ownSearch bool
	// caller is set when the agent made its own ToolCaller over ptc.
	caller bool
}

// startMCP connects the JSON servers (in parallel), generates the Python
// modules of code-mode servers whose folder is missing, opens tool search
// and, unless the caller set a ToolCaller, serves programmatic calls from
// ptc_servers. Servers that fail are logged and do not stop the agent: their
// calls report the failure.
func (a *Agent) startMCP(ctx context.Context, search *toolSearch) {
	o := a.cfg.Options
	m := &mcpTools{search: search}
	mopts := mcp.Options{Log: a.opts.log}
	if len(o.MCPServers) > 0 {
		m.json = mcp.NewManager(o.MCPServers, mopts)
		if err := m.json.Connect(ctx); err != nil {
			a.opts.log.Warn("MCP servers not connected; their tools are not offered", "err", err)
		}
		m.byName = mcp.ModelNames(m.json.Tools(), func(name string) bool { return a.builtinTool(name) })
	}
	if len(o.PTCServers) > 0 {
		popts := mopts
		// A server whose tools changed since its modules were generated
		// gets them generated again when it connects.
		popts.OnConnect = func(_ context.Context, server string, tools []mcp.Tool) {
			if err := writeAPI(a.cfg.Dir, server, tools); err != nil {
				a.opts.log.Warn("Python API not regenerated", "err", err)
			}
		}
		m.ptc = mcp.NewManager(o.PTCServers, popts)
		if a.opts.toolCaller == nil {
			a.opts.toolCaller = ptcCaller{m.ptc}
			m.caller = true
		}
	}
	if m.search == nil && !a.opts.subagentOnly {
		if a.id == MainAgent && m.ptc != nil {
			// Connecting a server generates its modules (OnConnect).
			for _, name := range m.ptc.Servers() {
				if _, err := os.Stat(filepath.Join(a.cfg.Dir, config.MCPToolsDir(name))); err == nil {
					continue
				}
				if _, err := m.ptc.ServerTools(ctx, name); err != nil {
					a.opts.log.Warn("Python API not generated", "err", err)
				}
			}
		}
		m.search, m.ownSearch = openToolSearch(ctx, a.cfg, a.opts.log.Warn), true
	}
	a.mcp = m
}

// stopMCP closes the agent's connections (and the search it opened).
func (a *Agent) stopMCP() error {
	m := a.mcp
	if m == nil {
		return nil
	}
	var errs []error
	for _, mgr := range []*mcp.Manager{m.json, m.ptc} {
		if mgr != nil {
			errs = append(errs, mgr.Close())
		}
	}
	if m.ownSearch && m.search != nil {
		errs = append(errs, m.search.close())
	}
	return errors.Join(errs...)
}

// builtinTool tells whether name is one of the agent's own tools.
func (a *Agent) builtinTool(name string) bool {
	switch name {
	case ExecuteTool, ResetTool, SubagentTool, ListCategoriesTool, ListToolsTool, SearchToolsTool:
		return true
	}
	return strings.HasPrefix(name, "filesystem_")
}

// mcpDeclarations are the tool-search tools and the JSON MCP tools.
func (a *Agent) mcpDeclarations() []model.Tool {
	tools := a.searchDeclarations()
	if a.mcp == nil {
		return tools
	}
	names := make([]string, 0, len(a.mcp.byName))
	for n := range a.mcp.byName {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		t := a.mcp.byName[n]
		desc := t.Description
		if desc == "" {
			desc = "Tool " + t.Name + " of the MCP server " + t.Server + "."
		}
		tools = append(tools, model.Tool{Name: n, Description: desc, Parameters: withoutMetaSchema(t.InputSchema)})
	}
	return tools
}

// withoutMetaSchema drops the top-level "$schema" key, which some model APIs
// refuse in function parameters.
func withoutMetaSchema(schema json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(schema, &m) != nil {
		return schema
	}
	if _, ok := m["$schema"]; !ok {
		return schema
	}
	delete(m, "$schema")
	b, err := json.Marshal(m)
	if err != nil {
		return schema
	}
	return b
}

// runMCPTool runs a tool-search or JSON MCP tool; ok is false when name is
// none of them.
func (a *Agent) runMCPTool(ctx context.Context, call model.FunctionCall, emit func(Event)) (resp model.FunctionResponse, rejected, ok bool) {
	switch call.Name {
	case ListCategoriesTool, ListToolsTool:
		if a.cfg.Options.ToolSearch == "hybrid" {
			return resp, false, false
		}
	case SearchToolsTool:
		if a.cfg.Options.ToolSearch != "hybrid" {
			return resp, false, false
		}
	default:
		if a.mcp == nil {
			return resp, false, false
		}
		t, found := a.mcp.byName[call.Name]
		if !found {
			return resp, false, false
		}
		resp, rejected = a.approveThen(ctx, call, emit, GenericCall{ToolName: call.Name, Args: call.Args}, func() (string, bool, []model.Image) {
			res, err := a.mcp.json.Call(ctx, t.Server, t.Name, call.Args)
			if err != nil {
				if ctx.Err() != nil {
					return stopText(ctx), true, nil
				}
				return err.Error(), true, nil
			}
			var images []model.Image
			for _, im := range res.Images {
				images = append(images, model.Image{MIMEType: im.MIMEType, Data: im.Data})
			}
			text := res.ModelText()
			if res.IsError {
				text = fmt.Sprintf("MCP server %q: tool %q reported an error: %s", t.Server, t.Name, text)
			}
			return text, res.IsError, images
		})
		return resp, rejected, true
	}
	resp, rejected = a.approveThen(ctx, call, emit, GenericCall{ToolName: call.Name, Args: call.Args}, func() (string, bool, []model.Image) {
		var search *toolSearch
		if a.mcp != nil {
			search = a.mcp.search
		}
		text, err := search.run(ctx, call.Name, call.Args)
		if err != nil {
			return err.Error(), true, nil
		}
		return text, false, nil
	})
	return resp, rejected, true
}

// ptcCaller serves programmatic calls from code with ptc_servers: the
// structured content when there is some, else the text; a tool's error
// becomes an error with its message.
type ptcCaller struct{ m *mcp.Manager }

func (p ptcCaller) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
	res, err := p.m.Call(ctx, server, tool, args)
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, fmt.Errorf("MCP server %q: tool %q reported an error: %s", server, tool, res.Text)
	}
	if len(res.Structured) > 0 {
		return res.Structured, nil
	}
	b, err := json.Marshal(res.Text)
	if err != nil {
		return nil, fmt.Errorf("encode the result of %s.%s: %w", server, tool, err)
	}
	return b, nil
}
