package mcpglue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/toolsearch"
)

// Names of the tool-search tools.
const (
	ListCategoriesTool = "pytools_list_categories"
	ListToolsTool      = "pytools_list_tools"
	SearchToolsTool    = "pytools_search_tools"
)

// SearchDeclarations are the tool-search tools tool_search (mode) asks for (none
// for "off").
func SearchDeclarations(mode string) []model.Tool {
	var tools []model.Tool
	switch mode {
	case "off":
	case "hybrid":
		tools = append(tools, model.Tool{
			Name: SearchToolsTool,
			Description: "Search the Python tools under .freeact/generated (mcptools and gentools) for a task described in plain words. " +
				"Returns module paths and one-line descriptions; read a module before using it.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"query":{"type":"string","description":"What the tool should do."},` +
				`"mode":{"type":"string","enum":["bm25","vector","hybrid"],"default":"hybrid","description":"bm25 for exact words and names, vector for meaning, hybrid for both."},` +
				`"limit":{"type":"integer","minimum":1,"maximum":50,"default":5}},"required":["query"]}`),
		})
	default:
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
	return tools
}

// ToolSearch runs the pytools_* tools: basic listing, and the hybrid index
// when tool_search is "hybrid" (opened at start; retried on use when that
// failed, e.g. without an API key for embeddings).
type ToolSearch struct {
	cfg   *config.Config
	basic toolsearch.Basic

	mu    sync.Mutex
	index *toolsearch.Index
}

func OpenToolSearch(ctx context.Context, cfg *config.Config, warn func(string, ...any)) *ToolSearch {
	s := &ToolSearch{cfg: cfg, basic: toolsearch.Basic{Dir: cfg.GeneratedDir(), DisplayDir: filepath.ToSlash(config.GeneratedPath())}}
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
func (s *ToolSearch) hybrid(ctx context.Context) (*toolsearch.Index, error) {
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

func (s *ToolSearch) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.index == nil {
		return nil
	}
	return s.index.Close()
}

// Run answers one pytools_* call with JSON text.
func (s *ToolSearch) Run(ctx context.Context, name string, args json.RawMessage) (string, error) {
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
