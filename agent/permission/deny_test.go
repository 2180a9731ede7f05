package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDenyRuleWinsOverEveryOtherRule(t *testing.T) {
	m, ws := openTemp(t)
	// "ls *" is allowed by the defaults; a session grant allows "rm *".
	if err := m.DenyAlways(Rule{Type: TypeShellAction, ToolName: ShellTool, Command: "ls *"}); err != nil {
		t.Fatal(err)
	}
	if err := m.DenyAlways(Rule{Type: TypeShellAction, ToolName: ShellTool, Command: "rm *"}); err != nil {
		t.Fatal(err)
	}
	if err := m.DenyAlways(Rule{Type: TypeFileWrite, ToolName: "filesystem_*", Path: ".freeact/permissions.json"}); err != nil {
		t.Fatal(err)
	}
	conv := m.NewConversation()
	if err := conv.Add(Session, false, Rule{Type: TypeShellAction, ToolName: ShellTool, Command: "rm *"}); err != nil {
		t.Fatal(err)
	}
	write := Call{Type: TypeFileWrite, ToolName: "filesystem_write_file", Path: filepath.Join(ws, ".freeact", FileName)}
	tests := []struct {
		name string
		call Call
		want Decision
	}{
		{"over a saved allow rule", shellCall("ls -la"), Deny},
		{"over a session grant", shellCall("rm x"), Deny},
		{"over a protected file's ask", write, Deny},
		{"a call no deny rule names is as before", shellCall("ls"), Allow},
		{"nor an unrelated one", shellCall("git status"), Allow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := conv.Evaluate(tt.call)
			if v.Decision != tt.want {
				t.Fatalf("%v: got %v (%s), want %v", tt.call, v.Decision, v.Reason, tt.want)
			}
			if tt.want == Deny && (v.Rule.Pattern() == "" || !strings.Contains(v.Reason, "deny rule")) {
				t.Fatalf("a deny verdict names its rule: %+v", v)
			}
		})
	}
}

func TestDenyRulesAreSavedReadAndOmittedWhenNone(t *testing.T) {
	m, ws := openTemp(t)
	data, err := os.ReadFile(m.File())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "deny") {
		t.Fatalf("a file without deny rules has no deny key:\n%s", data)
	}
	rule := Rule{Type: TypeShellAction, ToolName: ShellTool, Command: "curl *"}
	if err := m.DenyAlways(rule); err != nil {
		t.Fatal(err)
	}
	if err := m.DenyAlways(rule); err != nil {
		t.Fatal(err)
	}
	again, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	if d := again.Rules().Deny; len(d) != 1 || d[0] != rule {
		t.Fatalf("deny rules after reopening: %v, want [%v] once", d, rule)
	}
	if got := again.Check(shellCall("curl example.org")); got != Deny {
		t.Fatalf("the reopened rules: %v, want deny", got)
	}
	// Removing it (the settings panel saves the rules without it) lets
	// the call be asked again.
	rs := again.Rules()
	rs.Deny = nil
	if err := again.SetAlways(rs); err != nil {
		t.Fatal(err)
	}
	if got := again.Check(shellCall("curl example.org")); got != NoMatch {
		t.Fatalf("after removing the deny rule: %v, want no match", got)
	}
	_, err = ParseRules([]byte(`{"allow": [], "ask": [], "deny": [{"type": "shell_action"}]}`), "p.json")
	if err == nil || !strings.Contains(err.Error(), "deny[0]") {
		t.Fatalf("an incomplete deny rule: %v, want an error naming deny[0]", err)
	}
}
