package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/freeact/desktop/agent/apigen"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/toolsearch"
)

// Names of the tool-search tools.
const (
	ListCategoriesTool = "pytools_list_categories"
	ListToolsTool      = "pytools_list_tools"
	SearchToolsTool    = "pytools_search_tools"
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
			if err := writeAPI(a.cfg.GeneratedDir(), server, tools); err != nil {
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
				if _, err := os.Stat(filepath.Join(a.cfg.GeneratedDir(), "mcptools", apigen.ModuleName(name))); err == nil {
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
	var tools []model.Tool
	if a.cfg.Options.ToolSearch == "hybrid" {
		tools = append(tools, model.Tool{
			Name: SearchToolsTool,
			Description: "Search the Python tools under .freeact/generated (mcptools and gentools) for a task described in plain words. " +
				"Returns module paths and one-line descriptions; read a module before using it.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"query":{"type":"string","description":"What the tool should do."},` +
				`"mode":{"type":"string","enum":["bm25","vector","hybrid"],"default":"hybrid","description":"bm25 for exact words and names, vector for meaning, hybrid for both."},` +
				`"limit":{"type":"integer","minimum":1,"maximum":50,"default":5}},"required":["query"]}`),
		})
	} else {
		tools = append(tools,
			model.Tool{
				Name:        ListCategoriesTool,
				Description: "List the categories of Python tools under .freeact/generated: mcptools (generated from MCP servers) and gentools (saved tools), with their tool counts.",
				Parameters:  json.RawMessage(`{"type":"object","properties":{}}`),
			},
			model.Tool{
				Name:        ListToolsTool,
				Description: "List the Python tools of one or more categories with their module paths and one-line descriptions; read a module before using it.",
				Parameters: json.RawMessage(`{"type":"object","properties":{"categories":{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}],` +
					`"description":"Category names, e.g. \"github\" or [\"github\", \"mcptools/weather\"]."}},"required":["categories"]}`),
			})
	}
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

// generate writes the Python API of one ptc server.
func generate(ctx context.Context, m *mcp.Manager, generatedDir, server string) error {
	tools, err := m.ServerTools(ctx, server)
	if err != nil {
		return fmt.Errorf("generate Python API of MCP server %q: %w", server, err)
	}
	return writeAPI(generatedDir, server, tools)
}

// writeAPI writes (or rewrites, when they changed) the modules of server's
// tools.
func writeAPI(generatedDir, server string, tools []mcp.Tool) error {
	list := make([]apigen.Tool, len(tools))
	for i, t := range tools {
		list[i] = apigen.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema}
	}
	_, err := apigen.Generate(filepath.Join(generatedDir, "mcptools"), server, list)
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
			errs = append(errs, generate(ctx, m, cfg.GeneratedDir(), name))
		}
	}
	return errors.Join(errs...)
}

// toolSearch runs the pytools_* tools: basic listing, and the hybrid index
// when tool_search is "hybrid" (opened at start; retried on use when that
// failed, e.g. without an API key for embeddings).
type toolSearch struct {
	cfg   *config.Config
	basic toolsearch.Basic

	mu    sync.Mutex
	index *toolsearch.Index
}

func openToolSearch(ctx context.Context, cfg *config.Config, warn func(string, ...any)) *toolSearch {
	s := &toolSearch{cfg: cfg, basic: toolsearch.Basic{Dir: cfg.GeneratedDir(), DisplayDir: filepath.ToSlash(filepath.Join(config.FreeactDir, "generated"))}}
	if cfg.Options.ToolSearch == "hybrid" {
		if _, err := s.hybrid(ctx); err != nil {
			warn("hybrid tool search not available", "err", err)
		}
	}
	return s
}

// hybrid opens the index on first use. Its settings are the environment
// variables of the Python freeact (PYTOOLS_*), looked up in the process
// environment and the workspace .env.
func (s *toolSearch) hybrid(ctx context.Context) (*toolsearch.Index, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.index != nil {
		return s.index, nil
	}
	env := s.cfg.Env.Getenv
	get := func(name, def string) string {
		if v := strings.TrimSpace(env(name)); v != "" {
			return v
		}
		return def
	}
	num := func(name string, def float64) (float64, error) {
		v := get(name, "")
		if v == "" {
			return def, nil
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 {
			return 0, fmt.Errorf("%s=%q is not a number", name, v)
		}
		return f, nil
	}
	flag := func(name string) bool {
		v := strings.ToLower(get(name, "true"))
		return v != "false" && v != "0" && v != "no"
	}
	dimF, err := num("PYTOOLS_EMBEDDING_DIM", 3072)
	if err != nil {
		return nil, err
	}
	bw, err := num("PYTOOLS_BM25_WEIGHT", 1)
	if err != nil {
		return nil, err
	}
	vw, err := num("PYTOOLS_VEC_WEIGHT", 1)
	if err != nil {
		return nil, err
	}
	dim := int(dimF)
	if dim < 1 {
		return nil, fmt.Errorf("PYTOOLS_EMBEDDING_DIM must be at least 1")
	}
	var emb toolsearch.Embedder
	name := get("PYTOOLS_EMBEDDING_MODEL", "gemini-embedding-001")
	if name == "test" {
		emb = toolsearch.TestEmbedder{D: dim}
	} else {
		for _, p := range []string{"google-gla:", "google:", "gemini:"} {
			name = strings.TrimPrefix(name, p)
		}
		key := get("GEMINI_API_KEY", env("GOOGLE_API_KEY"))
		g, err := toolsearch.NewGeminiEmbedder(ctx, key, env("GOOGLE_GEMINI_BASE_URL"), name, dim)
		if err != nil {
			return nil, err
		}
		emb = g
	}
	db := get("PYTOOLS_DB_PATH", filepath.Join(s.cfg.FreeactDir, "search.db"))
	if !filepath.IsAbs(db) {
		db = filepath.Join(s.cfg.Dir, db)
	}
	ix, err := toolsearch.Open(ctx, toolsearch.IndexOptions{
		Dir: s.cfg.GeneratedDir(), DBPath: db, Embedder: emb, BM25Weight: bw, VecWeight: vw, NoSync: !flag("PYTOOLS_SYNC"),
	})
	if err != nil {
		return nil, err
	}
	if flag("PYTOOLS_WATCH") {
		if err := ix.Watch(); err != nil {
			_ = ix.Close()
			return nil, err
		}
	}
	s.index = ix
	return ix, nil
}

func (s *toolSearch) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.index == nil {
		return nil
	}
	return s.index.Close()
}

// run answers one pytools_* call with JSON text.
func (s *toolSearch) run(ctx context.Context, name string, args json.RawMessage) (string, error) {
	if s == nil {
		return "", errors.New("tool search is not available")
	}
	out := func(v any) (string, error) {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return "", fmt.Errorf("encode the result: %w", err)
		}
		return string(b), nil
	}
	switch name {
	case ListCategoriesTool:
		cats, err := s.basic.Categories()
		if err != nil {
			return "", err
		}
		res := map[string]map[string]int{toolsearch.MCPTools: {}, toolsearch.GenTools: {}}
		for _, c := range cats {
			res[c.Source][c.Name] = c.Tools
		}
		return out(res)
	case ListToolsTool:
		var a struct {
			Categories json.RawMessage `json:"categories"`
		}
		if err := json.Unmarshal(args, &a); err != nil || len(a.Categories) == 0 {
			return "", fmt.Errorf(`invalid arguments: %s takes {"categories": "<name>" or ["<name>", ...]}`, ListToolsTool)
		}
		cats, err := toolsearch.ParseCategories(a.Categories)
		if err != nil {
			return "", fmt.Errorf("invalid arguments: %w", err)
		}
		tools, err := s.basic.Tools(cats)
		if err != nil {
			return "", err
		}
		return out(tools)
	case SearchToolsTool:
		var a struct {
			Query string `json:"query"`
			Mode  string `json:"mode"`
			Limit *int   `json:"limit"`
		}
		if err := json.Unmarshal(args, &a); err != nil || strings.TrimSpace(a.Query) == "" {
			return "", fmt.Errorf(`invalid arguments: %s takes {"query": "<text>", "mode": "bm25" | "vector" | "hybrid", "limit": 1-50}`, SearchToolsTool)
		}
		limit := 5
		if a.Limit != nil {
			if *a.Limit < 1 || *a.Limit > 50 {
				return "", fmt.Errorf("invalid arguments: limit must be between 1 and 50")
			}
			limit = *a.Limit
		}
		ix, err := s.hybrid(ctx)
		if err != nil {
			return "", fmt.Errorf("tool search is not available: %w", err)
		}
		hits, err := ix.Search(ctx, a.Query, a.Mode, limit)
		if err != nil {
			return "", err
		}
		type found struct {
			toolsearch.Listed
			Score float64 `json:"score"`
		}
		res := make([]found, len(hits))
		for i, h := range hits {
			res[i] = found{Listed: toolsearch.Listed{Entry: h.Entry, Path: filepath.ToSlash(filepath.Join(s.basic.DisplayDir, h.File)), Description: h.Summary()}, Score: h.Score}
		}
		return out(res)
	}
	return "", fmt.Errorf("unknown tool search tool %s", name)
}
