package mcp_test

import (
	"testing"

	"github.com/freeact/desktop/agent/mcp"
)

// Only an explicit destructiveHint true, with readOnlyHint not true, marks
// a tool destructive; the spec's default (true when unsaid) does not.
func TestHintsIsDestructive(t *testing.T) {
	yes, no := true, false
	for _, tt := range []struct {
		name  string
		hints *mcp.Hints
		want  bool
	}{
		{"no annotations", nil, false},
		{"a title only", &mcp.Hints{Title: "Delete"}, false},
		{"destructive", &mcp.Hints{Destructive: &yes}, true},
		{"destructive, not read-only", &mcp.Hints{Destructive: &yes, ReadOnly: &no}, true},
		{"destructive but read-only", &mcp.Hints{Destructive: &yes, ReadOnly: &yes}, false},
		{"not destructive", &mcp.Hints{Destructive: &no, ReadOnly: &no}, false},
		{"read-only", &mcp.Hints{ReadOnly: &yes}, false},
	} {
		if got := tt.hints.IsDestructive(); got != tt.want {
			t.Errorf("%s: IsDestructive() = %v, want %v", tt.name, got, tt.want)
		}
	}
}
