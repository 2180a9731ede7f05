package mcp_test

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

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
	names, _ := mcp.ModelNames([]mcp.Tool{
		{Server: "a", Name: "b_c"}, {Server: "a_b", Name: "c"}, {Server: "x", Name: "reset"},
	}, func(n string) bool { return n == "x_reset" })
	for _, want := range []string{"a_b_c", "a_b_c_2", "x_reset_2"} {
		if _, ok := names[want]; !ok {
			t.Errorf("no %s in %v", want, names)
		}
	}
}

// builtinFiles reserves what the agent's file tools reserve: every name
// starting "filesystem_".
func builtinFiles(n string) bool { return strings.HasPrefix(n, "filesystem_") }

func TestModelNamesEndWhenANameCanNeverBeFree(t *testing.T) {
	tests := []struct {
		name     string
		tools    []mcp.Tool
		reserved func(string) bool
		want     map[string]string // model name -> server/tool
		unnamed  []string
	}{
		{"a server named filesystem gets mcp_ before its names",
			[]mcp.Tool{{Server: "filesystem", Name: "read_file"}, {Server: "filesystem", Name: "list_directory"}}, builtinFiles,
			map[string]string{"mcp_filesystem_read_file": "filesystem/read_file", "mcp_filesystem_list_directory": "filesystem/list_directory"}, nil},
		{"a server whose name starts filesystem_ too",
			[]mcp.Tool{{Server: "filesystem_x", Name: "t"}}, builtinFiles,
			map[string]string{"mcp_filesystem_x_t": "filesystem_x/t"}, nil},
		{"names that collide again and again get numbered in order",
			[]mcp.Tool{{Server: "a", Name: "b_c"}, {Server: "a_b", Name: "c"}, {Server: "a.b", Name: "c"}, {Server: "a", Name: "b.c"}}, nil,
			map[string]string{"a_b_c": "a/b.c", "a_b_c_2": "a/b_c", "a_b_c_3": "a.b/c", "a_b_c_4": "a_b/c"}, nil},
		{"the mcp_ name, once taken, is numbered too",
			[]mcp.Tool{{Server: "filesystem", Name: "t"}, {Server: "mcp_filesystem", Name: "t"}}, builtinFiles,
			map[string]string{"mcp_filesystem_t": "filesystem/t", "mcp_filesystem_t_2": "mcp_filesystem/t"}, nil},
		{"a tool no name is free for is left out, and the search ends",
			[]mcp.Tool{{Server: "s", Name: "t"}, {Server: "u", Name: "v"}}, func(n string) bool { return strings.Contains(n, "s_t") },
			map[string]string{"u_v": "u/v"}, []string{"s/t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan struct{})
			var named map[string]mcp.Tool
			var unnamed []mcp.Tool
			go func() {
				defer close(done)
				named, unnamed = mcp.ModelNames(tt.tools, tt.reserved)
			}()
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatal("ModelNames did not end")
			}
			got := map[string]string{}
			for n, tool := range named {
				got[n] = tool.Server + "/" + tool.Name
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("named %v, want %v", got, tt.want)
			}
			var gotUnnamed []string
			for _, tool := range unnamed {
				gotUnnamed = append(gotUnnamed, tool.Server+"/"+tool.Name)
			}
			if !slices.Equal(gotUnnamed, tt.unnamed) {
				t.Errorf("unnamed %v, want %v", gotUnnamed, tt.unnamed)
			}
		})
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
		all, _ := mcp.ModelNames([]mcp.Tool{{Server: server, Name: tool}, {Server: server, Name: tool + "x"}, {Server: server + "_" + tool, Name: ""}}, func(s string) bool { return s == n })
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
