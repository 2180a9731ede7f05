package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/internal/testenv"
)

// The permissions.toml that freeact 0.11.2 writes applies as it is: its
// rules decide, nothing is written beside it until a rule is added, and
// the added rule goes to permissions.json, never into the TOML file.
func TestFreeact011Permissions(t *testing.T) {
	ws := testenv.FreeactFixture(t, "0.11.2")
	before := testenv.Snapshot(t, ws)
	m, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, ".freeact", FileName)); err == nil {
		t.Fatal("Open wrote permissions.json beside permissions.toml")
	}
	for _, tt := range []struct {
		c    Call
		want Decision
	}{
		{shellCall("git status"), Allow},
		{shellCall("git push"), NoMatch},
		{readCall("notes.txt"), Allow},
		{readCall(".env"), Ask},
		{Call{Type: TypeGenericCall, ToolName: "pytools_list_tools"}, Allow},
	} {
		if got := m.Check(tt.c); got != tt.want {
			t.Errorf("%+v: %s, want %s", tt.c, got, tt.want)
		}
	}
	imported, file := m.Imported()
	if file != filepath.Join(ws, ".freeact", TOMLFileName) || len(imported.Allow) < 50 || len(imported.Ask) != 1 {
		t.Errorf("imported %d allow, %d ask rules from %q", len(imported.Allow), len(imported.Ask), file)
	}
	if always := m.Rules(); len(always.Allow)+len(always.Ask) != 0 {
		t.Errorf("permissions.json rules %+v", always)
	}
	rule := Rule{Type: TypeShellAction, ToolName: ShellTool, Command: "make *"}
	if err := m.AllowAlways(rule); err != nil {
		t.Fatal(err)
	}
	testenv.Unchanged(t, ws, before)
	data, err := os.ReadFile(filepath.Join(ws, ".freeact", FileName))
	if err != nil || !strings.Contains(string(data), `"make *"`) || strings.Contains(string(data), "git status") {
		t.Fatalf("permissions.json = %s (%v)", data, err)
	}
	m2, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	if m2.Check(shellCall("make test")) != Allow || m2.Check(shellCall("git log")) != Allow {
		t.Error("rules of both files do not apply after reopening")
	}
	if !Exists(ws) || Exists(t.TempDir()) {
		t.Error("Exists")
	}
}

// permissions.json as freeact 0.10.12 writes it loads unchanged.
func TestFreeact010Permissions(t *testing.T) {
	ws := testenv.FreeactFixture(t, "0.10.12")
	before := testenv.Snapshot(t, ws)
	m, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	if m.Check(shellCall("git diff --stat")) != Allow || m.Check(readCall("sub/.env")) != Ask {
		t.Error("freeact 0.10's default rules do not apply")
	}
	if _, file := m.Imported(); file != "" {
		t.Errorf("imported from %q", file)
	}
	testenv.Unchanged(t, ws, before)
}

func TestParseTOMLRulesErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"allow = [\n  { tool_name = \"bash\", type = \"ShellAction\" \n", "permissions.toml: line"},
		{`allow = [{ tool_name = "bash", type = "ShellAction", command = "ls", colour = "red" }]`, `allow[0]`},
		{`deny = []`, `unknown`},
	} {
		_, err := ParseTOMLRules([]byte(tt.in), "permissions.toml")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want %q", tt.in, err, tt.want)
		}
	}
}
