package tooldefs_test

import (
	"encoding/json"
	"testing"

	"github.com/freeact/desktop/agent/files"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/tooldefs"
)

// Every declared tool has a description and an object schema, and is one
// of the names IsBuiltin keeps MCP tools off.
func TestBuiltinToolsAreDeclaredAndReserved(t *testing.T) {
	tools := append(tooldefs.Builtin(), tooldefs.Subagent(7))
	want := 3 + len(files.Tools())
	if len(tools) != want {
		t.Fatalf("%d tools declared, want %d", len(tools), want)
	}
	for _, tl := range tools {
		var s struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(tl.Parameters, &s); err != nil || s.Type != "object" || tl.Description == "" {
			t.Errorf("tool %s: schema %s (%v), description %q", tl.Name, tl.Parameters, err, tl.Description)
		}
		if !tooldefs.IsBuiltin(tl.Name) {
			t.Errorf("tool %s is not reserved", tl.Name)
		}
	}
	var sub struct {
		Properties struct {
			MaxTurns struct {
				Default int `json:"default"`
			} `json:"max_turns"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tooldefs.Subagent(7).Parameters, &sub); err != nil || sub.Properties.MaxTurns.Default != 7 {
		t.Errorf("subagent max_turns default %d (%v), want 7", sub.Properties.MaxTurns.Default, err)
	}
}

func TestIsBuiltin(t *testing.T) {
	for name, want := range map[string]bool{
		history.ExecuteTool:        true,
		"pytools_list_categories":  true,
		"filesystem_anything":      true,
		"github_search_issues":     false,
		"execute_ipython_cell_not": false,
	} {
		if got := tooldefs.IsBuiltin(name); got != want {
			t.Errorf("IsBuiltin(%q) = %v, want %v", name, got, want)
		}
	}
}
