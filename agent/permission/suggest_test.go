package permission

import (
	"path/filepath"
	"testing"

	"github.com/freeact/desktop/agent/shell"
)

func TestSuggestPattern(t *testing.T) {
	tests := []struct {
		name string
		call Call
		want string
	}{
		{"subcommand tool", shellCall("git add src/main.py"), "git add *"},
		{"subcommand tool bare", shellCall("git status"), "git status"},
		{"subcommand after option", shellCall("git -C x status"), "git *"},
		{"pip", shellCall("pip install requests"), "pip install *"},
		{"uv", shellCall("uv pip install pandas"), "uv pip *"},
		{"npm", shellCall("npm run build"), "npm run *"},
		{"go", shellCall("go test ./..."), "go test *"},
		{"cargo", shellCall("cargo build --release"), "cargo build *"},
		{"docker", shellCall("docker ps -a"), "docker ps *"},
		{"kubectl", shellCall("kubectl get pods"), "kubectl get *"},
		{"apt", shellCall("apt install jq"), "apt install *"},
		{"make", shellCall("make test V=1"), "make test *"},
		{"plain tool", shellCall("grep -r ipybox tests/"), "grep *"},
		{"no arguments", shellCall("ls"), "ls"},
		{"redirect into a file is exact", shellCall("echo hi > out.txt"), "echo hi > out.txt"},
		{"redirect to devnull is not", shellCall("grep -r x . 2>/dev/null"), "grep *"},
		{"assignment first", shellCall("X=1 make"), "X=1 make"},
		{"wildcards escaped when exact", shellCall("X=1 ls *.py"), "X=1 ls [*].py"},
		{"shell magic whole script", Call{Type: TypeShellAction, ToolName: ShellMagicTool, Command: "cd /tmp\nls *"}, "cd /tmp\nls [*]"},
		{"opaque exact", Call{Type: TypeShellAction, ToolName: ShellTool, Command: "$CMD x", Opaque: true}, "$CMD x"},
		{"file read", readCall("src/a.py"), "filesystem_read_text_file src/a.py"},
		{"file write", Call{Type: TypeFileWrite, ToolName: "filesystem_write_text_file", Path: "a.txt"}, "filesystem_write_text_file a.txt"},
		{"file edit", Call{Type: TypeFileEdit, ToolName: "filesystem_edit_text_file", Path: "b.md"}, "filesystem_edit_text_file b.md"},
		{"code action", Call{Type: TypeCodeAction, ToolName: "ipybox_execute_ipython_cell"}, "ipybox_execute_ipython_cell"},
		{"generic", Call{Type: TypeGenericCall, ToolName: "github_search_repositories"}, "github_search_repositories"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SuggestPattern(tt.call); got != tt.want {
				t.Fatalf("SuggestPattern = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSuggestDisplay(t *testing.T) {
	tests := []struct {
		call Call
		want string
	}{
		{shellCall("git add src/main.py"), "git add src/main.py"},
		{Call{Type: TypeShellAction, ToolName: ShellMagicTool, Command: "\ncd /tmp\necho hi\nls -la\n"}, "\ncd /tmp\necho hi\nls -la\n"},
		{Call{Type: TypeShellAction, ToolName: ShellMagicTool, Command: "ls"}, "ls"},
		{readCall("a.py"), ""},
		{Call{Type: TypeGenericCall, ToolName: "x"}, ""},
	}
	for _, tt := range tests {
		if got := SuggestDisplay(tt.call); got != tt.want {
			t.Errorf("SuggestDisplay(%+v) = %q, want %q", tt.call, got, tt.want)
		}
	}
}

func TestParsePattern(t *testing.T) {
	tests := []struct {
		pattern string
		tmpl    Call
		want    Rule
	}{
		{"git *", shellCall("git push"), Rule{Type: TypeShellAction, ToolName: ShellTool, Command: "git *"}},
		{"filesystem_* src/**", readCall("src/a.py"), Rule{Type: TypeFileRead, ToolName: "filesystem_*", Path: "src/**"}},
		{"filesystem_*", readCall("src/a.py"), Rule{Type: TypeFileRead, ToolName: "filesystem_*", Path: "src/a.py"}},
		{"github_*", Call{Type: TypeGenericCall, ToolName: "github_x"}, Rule{Type: TypeGenericCall, ToolName: "github_*"}},
		{"", Call{Type: TypeCodeAction, ToolName: "ipybox_execute_ipython_cell"}, Rule{Type: TypeCodeAction, ToolName: "ipybox_execute_ipython_cell"}},
	}
	for _, tt := range tests {
		if got := ParsePattern(tt.pattern, tt.tmpl); got != tt.want {
			t.Errorf("ParsePattern(%q) = %+v, want %+v", tt.pattern, got, tt.want)
		}
	}
}

// The suggested rule, accepted unedited, allows the call it was made for.
func FuzzSuggestedRuleMatches(f *testing.F) {
	for _, s := range []string{"git add x", "ls", "X=1 ls *.py", "grep -r [a] .", "cd /tmp\nls *", "a?b c", "cat a > b", "echo $(ls >x)"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, cmd string, magic bool) {
		c := shellCall(cmd)
		if magic {
			c.ToolName = ShellMagicTool
		} else if shell.Split(cmd).Opaque {
			return // never auto-allowed, whatever the rule
		}
		r := ParsePattern(SuggestPattern(c), c)
		if r.Command == "" {
			return // an empty command yields no valid rule
		}
		// The rule matches, and a redirection does not stop it applying.
		if !r.matches(c, "/ws") || uncovered(r, writeMarkers(cmd, shell.FileAccesses(cmd, ""))) != "" {
			t.Fatalf("suggested rule %v does not allow %q", r, cmd)
		}
		if exact := RuleFor(c); !exact.matches(c, "/ws") {
			t.Fatalf("RuleFor(%q) = %v does not match it", cmd, exact)
		}
	})
}

// An approval answered "Always" with the unedited suggestion allows the
// same call next time, for file paths given in any form.
func TestSuggestedFileRuleAllows(t *testing.T) {
	m, ws := openTemp(t)
	for _, c := range []Call{
		{Type: TypeFileWrite, ToolName: "filesystem_write_text_file", Path: filepath.Join(ws, "src", "main.py")},
		{Type: TypeFileWrite, ToolName: "filesystem_write_text_file", Path: "docs/[draft] *.md"},
		{Type: TypeFileEdit, ToolName: "filesystem_edit_text_file", Path: "./a/../b.txt"},
		{Type: TypeFileWrite, ToolName: "filesystem_write_text_file", Path: "/tmp/outside.txt"},
	} {
		if m.IsAllowed(c) {
			t.Fatalf("%+v allowed before any answer", c)
		}
		if err := m.AllowAlways(ParsePattern(m.Suggest(c), c)); err != nil {
			t.Fatal(err)
		}
		if !m.IsAllowed(c) {
			t.Errorf("suggested rule %q does not allow %+v", m.Suggest(c), c)
		}
	}
	if got := m.Suggest(Call{Type: TypeFileRead, ToolName: "filesystem_read_text_file", Path: filepath.Join(ws, "a.txt")}); got != "filesystem_read_text_file a.txt" {
		t.Errorf("Suggest = %q", got)
	}
}

func TestRuleForFiles(t *testing.T) {
	c := readCall("src/[draft] *.md")
	r := RuleFor(c)
	if !r.matches(c, "/ws") {
		t.Fatalf("RuleFor %v does not match its call", r)
	}
	if r.matches(readCall("src/d other.md"), "/ws") {
		t.Fatalf("RuleFor %v matches another path", r)
	}
}
