package mcp_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/mcp"
)

func TestModelNames(t *testing.T) {
	tests := []struct{ server, tool, want string }{
		{"github", "create_issue", "github_create_issue"},
		{"my.server", "get-page", "my_server_get-page"},
		{"1srv", "x y", "_1srv_x_y"},
		{"srv", "ünï", "srv__n_"},
	}
	for _, tt := range tests {
		if got := mcp.ModelName(tt.server, tt.tool); got != tt.want {
			t.Errorf("ModelName(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.want)
		}
	}
	names := mcp.ModelNames([]mcp.Tool{
		{Server: "a", Name: "b_c"}, {Server: "a_b", Name: "c"}, {Server: "x", Name: "reset"},
	}, func(n string) bool { return n == "x_reset" })
	for _, want := range []string{"a_b_c", "a_b_c_2", "x_reset_2"} {
		if _, ok := names[want]; !ok {
			t.Errorf("no %s in %v", want, names)
		}
	}
}

var modelNameRE = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`)

func FuzzModelName(f *testing.F) {
	f.Add("github", "create_issue")
	f.Add("", "")
	f.Add("9", strings.Repeat("long", 40))
	f.Add("ü", "\n\"")
	f.Fuzz(func(t *testing.T, server, tool string) {
		n := mcp.ModelName(server, tool)
		if !modelNameRE.MatchString(n) {
			t.Fatalf("ModelName(%q, %q) = %q is not a valid function name", server, tool, n)
		}
		if mcp.ModelName(server, tool) != n {
			t.Fatal("not deterministic")
		}
		all := mcp.ModelNames([]mcp.Tool{{Server: server, Name: tool}, {Server: server, Name: tool + "x"}, {Server: server + "_" + tool, Name: ""}}, func(s string) bool { return s == n })
		if len(all) != 3 {
			t.Fatalf("names collide: %v", all)
		}
		for name := range all {
			if !modelNameRE.MatchString(name) || name == n {
				t.Fatalf("bad or reserved name %q", name)
			}
		}
	})
}
