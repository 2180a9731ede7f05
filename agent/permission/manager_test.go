package permission

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func shellCall(cmd string) Call {
	return Call{Type: TypeShellAction, ToolName: ShellTool, Command: cmd}
}

func readCall(p string) Call {
	return Call{Type: TypeFileRead, ToolName: "filesystem_read_text_file", Path: p}
}

func openTemp(t *testing.T) (*Manager, string) {
	t.Helper()
	ws := t.TempDir()
	m, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	return m, ws
}

func TestDefaults(t *testing.T) {
	m, ws := openTemp(t)
	tests := []struct {
		name string
		call Call
		want Decision
	}{
		{".env asks", readCall(".env"), Ask},
		{"nested .env asks", readCall(filepath.Join(ws, "app", ".env")), Ask},
		{"read inside allowed", readCall("src/main.py"), Allow},
		{"read absolute inside allowed", readCall(filepath.Join(ws, "README.md")), Allow},
		{"read outside asked", readCall("/etc/passwd"), NoMatch},
		{"read escaping asked", readCall("../secret.txt"), NoMatch},
		{"write not allowed", Call{Type: TypeFileWrite, ToolName: "filesystem_write_text_file", Path: "a.txt"}, NoMatch},
		{"edit not allowed", Call{Type: TypeFileEdit, ToolName: "filesystem_edit_text_file", Path: "a.txt"}, NoMatch},
		{"tool search allowed", Call{Type: TypeGenericCall, ToolName: "pytools_list_tools"}, Allow},
		{"hybrid search allowed", Call{Type: TypeGenericCall, ToolName: "pytools_search_tools"}, Allow},
		{"other tool asked", Call{Type: TypeGenericCall, ToolName: "github_create_issue"}, NoMatch},
		{"code action asked", Call{Type: TypeCodeAction, ToolName: "ipybox_execute_ipython_cell"}, NoMatch},
		{"ls", shellCall("ls"), Allow},
		{"ls -la", shellCall("ls -la src"), Allow},
		{"cat", shellCall("cat README.md"), Allow},
		{"git status", shellCall("git status"), Allow},
		{"git status -s", shellCall("git status -s"), Allow},
		{"git diff", shellCall("git diff --stat HEAD~1"), Allow},
		{"git diff prints history", shellCall("git diff HEAD~1"), Ask},
		{"git log", shellCall("git log --oneline"), Allow},
		{"git branch bare", shellCall("git branch"), Allow},
		{"git branch -D", shellCall("git branch -D main"), NoMatch},
		{"rm", shellCall("rm -rf build"), NoMatch},
		{"git push", shellCall("git push origin main"), NoMatch},
		{"env", shellCall("env"), NoMatch},
		{"find", shellCall("find . -name x"), NoMatch},
		{"cat redirect writes", shellCall("cat a > b"), NoMatch},
		{"cat to devnull fine", shellCall("cat a 2>/dev/null"), Allow},
		{"unsplittable never allowed", shellCall("ls $(echo x"), NoMatch},
		{"dynamic name never allowed", shellCall("$LS -la"), NoMatch},
		{"opaque never allowed", Call{Type: TypeShellAction, ToolName: ShellTool, Command: "ls", Opaque: true}, NoMatch},
		{"shell magic not allowed", Call{Type: TypeShellAction, ToolName: ShellMagicTool, Command: "ls"}, NoMatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := m.Check(tt.call); got != tt.want {
				t.Fatalf("Check(%+v) = %v, want %v", tt.call, got, tt.want)
			}
			if m.IsAllowed(tt.call) != (tt.want == Allow) {
				t.Fatalf("IsAllowed disagrees with Check")
			}
		})
	}
}

func TestOpenWritesDefaultsOnce(t *testing.T) {
	m, _ := openTemp(t)
	data, err := os.ReadFile(m.File())
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseRules(data, m.File())
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultRules()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("default file holds %v, want %v", got, want)
	}
	// An existing file is used as it is, not replaced by defaults.
	custom := `{"allow": [{"type": "GenericCall", "tool_name": "github_*"}], "ask": []}`
	if err := os.WriteFile(m.File(), []byte(custom), 0o644); err != nil {
		t.Fatal(err)
	}
	m2, err := Open(filepath.Dir(filepath.Dir(m.File())))
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(m.File()); string(data) != custom {
		t.Fatalf("Open rewrote an existing file: %s", data)
	}
	if !m2.IsAllowed(Call{Type: TypeGenericCall, ToolName: "github_search"}) || m2.IsAllowed(shellCall("ls")) {
		t.Fatal("the loaded rules are not the file's rules")
	}
}

// A file written by the Python freeact (same keys, its field order, rules
// of every type) loads unchanged.
func TestPythonShapedFile(t *testing.T) {
	ws := t.TempDir()
	content := `{
  "ask": [
    {"tool_name": "bash", "type": "ShellAction", "command": "rm *"},
    {"tool_name": "filesystem_*", "path": "**/.env", "type": "FileRead"}
  ],
  "allow": [
    {"tool_name": "github_*", "type": "GenericCall"},
    {"tool_name": "bash", "type": "ShellAction", "command": "git *"},
    {"tool_name": "ipybox_execute_ipython_cell", "type": "CodeAction"},
    {"tool_name": "filesystem_*", "path": ".freeact/**", "type": "FileRead"},
    {"tool_name": "filesystem_*", "path": "src/**", "type": "FileWrite"},
    {"tool_name": "filesystem_edit_text_file", "path": "docs/*.md", "type": "FileEdit"}
  ]
}`
	writeFile(t, filepath.Join(ws, ".freeact", FileName), content)
	m, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	for call, want := range map[Call]Decision{
		shellCall("rm -rf x"):  Ask,
		shellCall("git push"):  Allow,
		readCall(".env"):       Ask,
		readCall(".freeact/a"): Allow,
		readCall("src/a.py"):   NoMatch,
		{Type: TypeGenericCall, ToolName: "github_search"}:                                Allow,
		{Type: TypeCodeAction, ToolName: "ipybox_execute_ipython_cell"}:                   Allow,
		{Type: TypeFileWrite, ToolName: "filesystem_write_text_file", Path: "src/x/y.go"}: Allow,
		{Type: TypeFileEdit, ToolName: "filesystem_edit_text_file", Path: "docs/a.md"}:    Allow,
		{Type: TypeFileEdit, ToolName: "filesystem_edit_text_file", Path: "docs/x/a.md"}:  NoMatch,
	} {
		if got := m.Check(call); got != want {
			t.Errorf("Check(%+v) = %v, want %v", call, got, want)
		}
	}
}

type answer struct {
	scope Scope
	ask   bool
}

func TestOrder(t *testing.T) {
	r := Rule{Type: TypeShellAction, ToolName: "bash", Command: "git *"}
	c := shellCall("git push")
	tests := []struct {
		name string
		add  []answer
		want Decision
	}{
		{"nothing", nil, NoMatch},
		{"session allow", []answer{{Session, false}}, Allow},
		{"always allow", []answer{{Always, false}}, Allow},
		{"session ask beats always allow", []answer{{Always, false}, {Session, true}}, Ask},
		{"always ask beats session allow", []answer{{Session, false}, {Always, true}}, Ask},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := openTemp(t)
			if err := m.SetAlways(Rules{}); err != nil {
				t.Fatal(err)
			}
			s := m.NewConversation()
			for _, a := range tt.add {
				if err := s.Add(a.scope, a.ask, r); err != nil {
					t.Fatal(err)
				}
			}
			got := s.Evaluate(c)
			if got.Decision != tt.want {
				t.Fatalf("Evaluate = %v, want %v", got.Decision, tt.want)
			}
			if tt.want == Allow && (got.Rule != r || got.Scope != tt.add[len(tt.add)-1].scope) {
				t.Fatalf("Check decided by %v (%v), want %v (%v)", got.Rule, got.Scope, r, tt.add[len(tt.add)-1].scope)
			}
		})
	}
}

func TestScopes(t *testing.T) {
	m, ws := openTemp(t)
	always := Rule{Type: TypeShellAction, ToolName: "bash", Command: "make *"}
	session := Rule{Type: TypeShellAction, ToolName: "bash", Command: "npm test *"}
	if err := m.AllowAlways(always); err != nil {
		t.Fatal(err)
	}
	if err := m.AllowAlways(always); err != nil { // a duplicate changes nothing
		t.Fatal(err)
	}
	s := m.NewConversation()
	if err := s.Add(Session, false, session); err != nil {
		t.Fatal(err)
	}
	if s.Check(shellCall("make build")) != Allow || s.Check(shellCall("npm test --watch")) != Allow {
		t.Fatal("added rules do not apply")
	}
	if m.IsAllowed(shellCall("npm test --watch")) || m.NewConversation().Check(shellCall("npm test --watch")) == Allow {
		t.Fatal("a grant of one session applies outside it")
	}
	fresh, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	if !fresh.IsAllowed(shellCall("make build")) {
		t.Fatal("an Always rule was not persisted")
	}
	if fresh.IsAllowed(shellCall("npm test --watch")) {
		t.Fatal("a Session rule was persisted")
	}
	a := fresh.Rules()
	n := 0
	for _, r := range a.Allow {
		if r == always {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("always rule stored %d times, want once", n)
	}
}

// An Always answer keeps edits made to the file since it was loaded.
func TestAddMergesFileEdits(t *testing.T) {
	m, _ := openTemp(t)
	writeFile(t, m.File(), `{"allow": [{"type": "GenericCall", "tool_name": "hand_added"}], "ask": []}`)
	if err := m.AllowAlways(Rule{Type: TypeGenericCall, ToolName: "from_prompt"}); err != nil {
		t.Fatal(err)
	}
	rs, err := readRules(m.File())
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Allow) != 2 || rs.Allow[0].ToolName != "hand_added" || rs.Allow[1].ToolName != "from_prompt" {
		t.Fatalf("file rules = %v", rs.Allow)
	}
	// A broken file is never overwritten by an answer.
	writeFile(t, m.File(), `{"allow": [`)
	if err := m.AllowAlways(Rule{Type: TypeGenericCall, ToolName: "x"}); err == nil {
		t.Fatal("adding to a broken file succeeded")
	}
	if data, _ := os.ReadFile(m.File()); string(data) != `{"allow": [` {
		t.Fatalf("broken file was overwritten: %s", data)
	}
}

func TestParseRulesErrors(t *testing.T) {
	tests := []struct {
		name, content string
		want          []string
	}{
		{"not json", `{`, []string{"perm.json", "unexpected EOF"}},
		{"unknown top key", `{"allowed_tools": ["x"]}`, []string{"perm.json", `unknown key "allowed_tools"`}},
		{"wrong tier type", `{"allow": {}}`, []string{"perm.json", "cannot unmarshal"}},
		{"unknown rule key", `{"allow": [{"type": "GenericCall", "tool_name": "x", "cmd": "y"}]}`, []string{"allow[0]", `unknown key "cmd"`}},
		{"wrong field type", `{"ask": [{"type": "GenericCall", "tool_name": 3}]}`, []string{"ask[0]", "tool_name"}},
		{"unknown type", `{"allow": [{"type": "Shell", "tool_name": "bash"}]}`, []string{"allow[0]", `"Shell" is unknown`}},
		{"missing type", `{"allow": [{"tool_name": "bash"}]}`, []string{"allow[0]", `"type" is missing`}},
		{"missing tool name", `{"allow": [{"type": "CodeAction"}]}`, []string{"allow[0]", "tool_name"}},
		{"shell without command", `{"allow": [{"type": "ShellAction", "tool_name": "bash"}]}`, []string{"allow[0]", `needs "command"`}},
		{"file without path", `{"allow": [{"type": "FileRead", "tool_name": "x"}]}`, []string{"allow[0]", `needs "path"`}},
		{"path on shell", `{"allow": [{"type": "ShellAction", "tool_name": "bash", "command": "x", "path": "y"}]}`, []string{`"path" is only valid`}},
		{"command on file", `{"allow": [{"type": "FileRead", "tool_name": "x", "path": "y", "command": "z"}]}`, []string{`"command" is only valid`}},
		{"trailing data", `{} {}`, []string{"after the JSON value"}},
		{"invalid path glob", `{"allow": [], "ask": [{"type": "FileRead", "tool_name": "filesystem_*", "path": "**/.env"}, {"type": "FileRead", "tool_name": "filesystem_*", "path": "secrets/[abc"}]}`,
			[]string{`perm.json: ask[1] {"type":"FileRead","tool_name":"filesystem_*","path":"secrets/[abc"}: "path" "secrets/[abc" is not a valid pattern: close every [ with ]`}},
		{"invalid brace", `{"allow": [{"type": "FileWrite", "tool_name": "*", "path": "src/{a,b"}]}`,
			[]string{`allow[0] {"type":"FileWrite","tool_name":"*","path":"src/{a,b"}: "path" "src/{a,b" is not a valid pattern`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRules([]byte(tt.content), "perm.json")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
	// Open reports a broken file instead of replacing it.
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, ".freeact", FileName), `{"allow": [{"type": "Nope", "tool_name": "x"}]}`)
	if _, err := Open(ws); err == nil || !strings.Contains(err.Error(), FileName) {
		t.Fatalf("Open of a broken file: %v", err)
	}
}

// A byte-order mark, as some Windows editors write it, is accepted.
func TestByteOrderMark(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, ".freeact", FileName), "\xef\xbb\xbf"+`{"allow": [{"type": "ShellAction", "tool_name": "bash", "command": "make *"}], "ask": []}`)
	m, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	if !m.IsAllowed(shellCall("make test")) {
		t.Error("the rule of a file with a byte-order mark does not apply")
	}
}

// Several agents answer and check at once; the file always parses and ends
// up with every rule.
func TestConcurrentUse(t *testing.T) {
	m, _ := openTemp(t)
	s := m.NewConversation()
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			scope := Always
			if i%2 == 1 {
				scope = Session
			}
			if err := s.Add(scope, false, Rule{Type: TypeGenericCall, ToolName: fmt.Sprintf("tool_%d", i)}); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			s.Check(shellCall("ls"))
			if _, err := readRules(m.File()); err != nil {
				t.Errorf("file read while saving: %v", err)
			}
		}()
	}
	wg.Wait()
	for i := range n {
		if s.Check(Call{Type: TypeGenericCall, ToolName: fmt.Sprintf("tool_%d", i)}) != Allow {
			t.Errorf("rule %d lost", i)
		}
	}
	rs, err := readRules(m.File())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rs.Allow), len(DefaultRules().Allow)+n/2; got != want {
		t.Fatalf("file has %d allow rules, want %d", got, want)
	}
	entries, _ := os.ReadDir(filepath.Dir(m.File()))
	for _, e := range entries {
		if e.Name() != FileName {
			t.Errorf("left-over file %s next to the permissions file", e.Name())
		}
	}
}

func TestSetAlwaysValidates(t *testing.T) {
	m, _ := openTemp(t)
	before, _ := os.ReadFile(m.File())
	err := m.SetAlways(Rules{Allow: []Rule{{Type: TypeShellAction, ToolName: "bash"}}})
	if err == nil || !strings.Contains(err.Error(), "allow[0]") {
		t.Fatalf("SetAlways with a bad rule: %v", err)
	}
	if after, _ := os.ReadFile(m.File()); string(after) != string(before) {
		t.Fatal("a rejected SetAlways changed the file")
	}
	// Reload picks up hand edits.
	writeFile(t, m.File(), `{"allow": [], "ask": [{"type": "GenericCall", "tool_name": "*"}]}`)
	if err := m.Reload(); err != nil {
		t.Fatal(err)
	}
	if m.Check(Call{Type: TypeGenericCall, ToolName: "pytools_list_tools"}) != Ask {
		t.Fatal("Reload did not apply the edited rules")
	}
}

func TestSavedFormat(t *testing.T) {
	m, _ := openTemp(t)
	if err := m.SetAlways(Rules{Allow: []Rule{{Type: TypeShellAction, ToolName: "bash", Command: "git *"}}}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(m.File())
	var raw map[string][]map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"type": "ShellAction", "tool_name": "bash", "command": "git *"}
	if len(raw["ask"]) != 0 || fmt.Sprint(raw["allow"][0]) != fmt.Sprint(want) {
		t.Fatalf("saved %s", data)
	}
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Paths are checked where they really lead: links are followed.
func TestSymlinks(t *testing.T) {
	m, ws := openTemp(t)
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "id_rsa"), "secret")
	writeFile(t, filepath.Join(ws, ".env"), "KEY=1")
	writeFile(t, filepath.Join(ws, "src", "a.py"), "x")
	for link, target := range map[string]string{
		"keys":       outside,
		"config.txt": filepath.Join(ws, ".env"),
		"code":       filepath.Join(ws, "src"),
	} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Skipf("symlinks not available: %v", err)
		}
	}
	for p, want := range map[string]Decision{
		"keys/id_rsa":             NoMatch, // leads outside the workspace
		"keys/not-yet-there":      NoMatch,
		"config.txt":              Ask, // is .env
		"code/a.py":               Allow,
		"code/new-file.py":        Allow,
		filepath.Join(ws, "keys"): NoMatch,
	} {
		if got := m.Check(readCall(p)); got != want {
			t.Errorf("Check(read %s) = %v, want %v", p, got, want)
		}
	}
}

// Grants belong to one conversation: another conversation of the same
// workspace does not see them, and a revoked grant asks again.
func TestConversationGrants(t *testing.T) {
	m, _ := openTemp(t)
	one, two := m.NewConversation(), m.NewConversation()
	git := Rule{Type: TypeShellAction, ToolName: "bash", Command: "git *"}
	read := Rule{Type: TypeFileRead, ToolName: "filesystem_read_text_file", Path: "notes/**"}
	for _, r := range []Rule{git, read, git} {
		if err := one.Add(Session, false, r); err != nil {
			t.Fatal(err)
		}
	}
	if got := one.Grants().Allow; len(got) != 2 || got[0] != git || got[1] != read {
		t.Fatalf("grants = %v, want git and read once each", got)
	}
	if v := one.Evaluate(shellCall("git push")); v.Decision != Allow || v.Rule != git || v.Scope != Session {
		t.Fatalf("one.Check = %+v", v)
	}
	if v := two.Evaluate(shellCall("git push")); v.Decision != NoMatch {
		t.Fatalf("another conversation is allowed by the grant: %+v", v)
	}
	if !one.Revoke(git) || one.Revoke(git) {
		t.Fatal("Revoke reports wrongly")
	}
	if v := one.Evaluate(shellCall("git push")); v.Decision != NoMatch {
		t.Fatalf("a revoked grant still allows: %+v", v)
	}
	if got := one.Grants().Allow; len(got) != 1 || got[0] != read {
		t.Fatalf("grants after revoke = %v", got)
	}
	if err := one.Add(Session, false, Rule{Type: TypeShellAction, ToolName: "bash"}); err == nil {
		t.Fatal("an invalid grant was added")
	}
}

func TestRulePattern(t *testing.T) {
	for _, tt := range []struct {
		r    Rule
		want string
	}{
		{Rule{Type: TypeShellAction, ToolName: "bash", Command: "git *"}, "git *"},
		{Rule{Type: TypeFileWrite, ToolName: "filesystem_write_text_file", Path: "out/**"}, "filesystem_write_text_file out/**"},
		{Rule{Type: TypeCodeAction, ToolName: "ipybox_execute_ipython_cell"}, "ipybox_execute_ipython_cell"},
	} {
		if got := tt.r.Pattern(); got != tt.want {
			t.Errorf("%v.Pattern() = %q, want %q", tt.r, got, tt.want)
		}
		if back := ParsePattern(tt.r.Pattern(), Call{Type: tt.r.Type, ToolName: tt.r.ToolName}); back != tt.r {
			t.Errorf("ParsePattern(Pattern()) = %v, want %v", back, tt.r)
		}
	}
}
