package permission

import (
	"slices"
	"strings"
	"testing"
)

// The preview of an Always answer says what the rule covers, and its
// examples are what the manager's own matching decides.
// A code action's preview names no tools that do not exist (variants of
// the code tool's name, or "other_tool").
func TestPreviewOfCodeActionInventsNoTools(t *testing.T) {
	m, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := m.PreviewPattern("ipybox_execute_ipython_cell", Call{Type: TypeCodeAction, ToolName: "ipybox_execute_ipython_cell"})
	if len(p.Matches)+len(p.Misses) != 0 || !p.CoversCall {
		t.Errorf("the preview of every code action lists %q and %q, want no invented tools", p.Matches, p.Misses)
	}
}

func TestPreviewPattern(t *testing.T) {
	m, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	shellCall := Call{Type: TypeShellAction, ToolName: ShellTool, Command: "git add main.go"}
	readCall := Call{Type: TypeFileRead, ToolName: "filesystem_read_text_file", Path: "src/app/main.py"}
	tests := []struct {
		name       string
		pattern    string
		call       Call
		covers     bool
		summary    string
		matches    []string
		misses     []string
		problemHas string
	}{
		{"suggested shell rule", "git add *", shellCall, true, `Shell commands matching "git add *"`,
			[]string{"git add README.md", "git add -v"}, []string{"git add", "git status", "git add > out.txt"}, ""},
		{"narrowed by hand", "git add src/*", shellCall, false, `matching "git add src/*"`,
			[]string{"git add src/README.md"}, []string{"git status", "git add src/ > out.txt"}, ""},
		{"exact command", "git add main.go", shellCall, true, `matching "git add main.go"`,
			nil, []string{"git add main.go notes.txt"}, ""},
		{"folder of files", "filesystem_read_text_file src/**", readCall, true, "Reading files with the tool filesystem_read_text_file at paths matching src/**",
			[]string{"filesystem_read_text_file src/notes.txt"}, []string{"filesystem_read_text_file src/.env", "filesystem_read_text_file README.md"}, ""},
		{"every code action", "ipybox_execute_ipython_cell", Call{Type: TypeCodeAction, ToolName: "ipybox_execute_ipython_cell"}, true,
			"Every code action", nil, nil, ""},
		{"a tool", "github_*", Call{Type: TypeGenericCall, ToolName: "github_create_issue"}, true, "Calls of tools matching github_*",
			[]string{"github_x", "github_delete_all"}, []string{"other_tool"}, ""},
		{"broken path pattern", "filesystem_read_text_file src/[ab", readCall, false, "", nil, nil, "not a valid pattern"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := m.PreviewPattern(tt.pattern, tt.call)
			if tt.problemHas != "" {
				if !strings.Contains(p.Problem, tt.problemHas) || p.CoversCall {
					t.Fatalf("preview %+v, want the problem %q", p, tt.problemHas)
				}
				return
			}
			if p.Problem != "" || p.CoversCall != tt.covers || !strings.Contains(p.Summary, tt.summary) {
				t.Errorf("preview %+v; want covers=%v and a summary with %q", p, tt.covers, tt.summary)
			}
			for _, w := range tt.matches {
				if !slices.Contains(p.Matches, w) {
					t.Errorf("matches %q lack %q", p.Matches, w)
				}
			}
			for _, w := range tt.misses {
				if !slices.Contains(p.Misses, w) {
					t.Errorf("misses %q lack %q", p.Misses, w)
				}
			}
			// Every example is the manager's own answer once the rule is
			// saved (the workspace's ask rules still ask for .env).
			saved, err := Open(m.workspace)
			if err != nil {
				t.Fatal(err)
			}
			if err := saved.SetAlways(Rules{Ask: DefaultRules().Ask, Allow: []Rule{p.Rule}}); err != nil {
				t.Fatal(err)
			}
			for _, s := range p.Matches {
				if saved.Check(exampleCall(p.Rule, s)) != Allow {
					t.Errorf("example %q is listed as allowed but is asked", s)
				}
			}
			for _, s := range p.Misses {
				if saved.Check(exampleCall(p.Rule, s)) == Allow {
					t.Errorf("example %q is listed as asked but is allowed", s)
				}
			}
		})
	}
}

func exampleCall(r Rule, text string) Call {
	switch {
	case r.Type == TypeShellAction:
		return Call{Type: r.Type, ToolName: r.ToolName, Command: text}
	case isFileType(r.Type):
		tool, p, _ := strings.Cut(text, " ")
		return Call{Type: r.Type, ToolName: tool, Path: p}
	}
	return Call{Type: r.Type, ToolName: text}
}
