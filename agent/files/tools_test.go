package files

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/freeact/desktop/internal/testenv"
)

func TestToolDeclarations(t *testing.T) {
	tools := Tools()
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
		if !IsTool(tool.Name) {
			t.Errorf("IsTool(%q) = false", tool.Name)
		}
		if len(tool.Description) < 40 {
			t.Errorf("%s: description %q is too thin to guide a model", tool.Name, tool.Description)
		}
		if tool.Parameters["type"] != "object" {
			t.Errorf("%s: parameters are not an object schema", tool.Name)
		}
		props, _ := tool.Parameters["properties"].(map[string]any)
		required, _ := tool.Parameters["required"].([]string)
		for _, r := range required {
			if _, ok := props[r]; !ok {
				t.Errorf("%s: required parameter %q is not declared", tool.Name, r)
			}
		}
		// Every declared parameter is accepted by ParseArgs and nothing else.
		args := map[string]any{}
		for name, p := range props {
			if p.(map[string]any)["type"] == "integer" {
				args[name] = 1
			} else {
				args[name] = "x"
			}
		}
		raw, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseArgs(tool.Name, raw); err != nil {
			t.Errorf("%s: declared parameters rejected: %v", tool.Name, err)
		}
	}
	want := []string{ReadTextFile, ReadMediaFile, WriteTextFile, EditTextFile}
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	if IsTool("ipybox_reset") {
		t.Error("IsTool accepts a tool of another package")
	}
	testenv.Golden(t, filepath.Join("testdata", "tools.json"), mustJSON(t, tools))
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func TestParseArgs(t *testing.T) {
	tests := []struct {
		tool string
		raw  string
		want Args
		err  string
	}{
		{ReadTextFile, `{"path":"a.txt"}`, ReadTextArgs{Path: "a.txt"}, ""},
		{ReadTextFile, `{"path":"a.txt","offset":10,"limit":5}`, ReadTextArgs{Path: "a.txt", Offset: 10, Limit: 5}, ""},
		{ReadTextFile, `{"path":"a.txt","offset":10.0,"limit":null}`, ReadTextArgs{Path: "a.txt", Offset: 10}, ""},
		{ReadTextFile, `{"path":"a.txt","offset":1.5}`, nil, `parameter "offset" must be a whole number, got 1.5`},
		{ReadTextFile, `{"path":"a.txt","limit":"5"}`, nil, `parameter "limit" must be a whole number`},
		{ReadTextFile, `{"path":"a.txt","offset":-3}`, nil, "offset and limit must be positive"},
		{ReadTextFile, `{"path":"a.txt","lines":3}`, nil, "unknown parameter(s) lines; the parameters are path, offset, limit"},
		{ReadTextFile, `{}`, nil, `missing required parameter "path"`},
		{ReadTextFile, ``, nil, `missing required parameter "path"`},
		{ReadTextFile, `["a.txt"]`, nil, "arguments must be a JSON object"},
		{ReadTextFile, `{"path":7}`, nil, `parameter "path" must be a string`},
		{ReadMediaFile, `{"path":"p.png"}`, ReadMediaArgs{Path: "p.png"}, ""},
		{WriteTextFile, `{"path":"w.txt","content":""}`, WriteArgs{Path: "w.txt"}, ""},
		{WriteTextFile, `{"path":"w.txt"}`, nil, `missing required parameter "content"`},
		{EditTextFile, `{"path":"e.go","old_text":"a","new_text":""}`, EditArgs{Path: "e.go", OldText: "a"}, ""},
		{EditTextFile, `{"path":"e.go","old_text":"a"}`, nil, `missing required parameter "new_text"`},
		{"ipybox_reset", `{}`, nil, `unknown file tool "ipybox_reset"`},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.raw, func(t *testing.T) {
			got, err := ParseArgs(tt.tool, []byte(tt.raw))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				if got != nil {
					t.Errorf("got %#v alongside the error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
			if got.ToolName() != tt.tool || got.FilePath() != tt.want.FilePath() {
				t.Errorf("ToolName/FilePath = %q/%q", got.ToolName(), got.FilePath())
			}
		})
	}
}

// A model call goes from JSON arguments through Run to the file system.
func TestRun(t *testing.T) {
	w := newWorkspace(t)
	ctx := context.Background()
	steps := []struct {
		tool, raw, want string
	}{
		{WriteTextFile, `{"path":"notes/todo.md","content":"- a\n- b\n"}`, "Created notes/todo.md (8 bytes)."},
		{EditTextFile, `{"path":"notes/todo.md","old_text":"- b","new_text":"- b\n- c"}`, "Edited notes/todo.md: replaced the text at line 2."},
		{ReadTextFile, `{"path":"notes/todo.md","offset":2}`, "- b\n- c\n\n[Showing lines 2-3 of notes/todo.md, the end of the file.]"},
	}
	for _, s := range steps {
		args, err := ParseArgs(s.tool, []byte(s.raw))
		if err != nil {
			t.Fatal(err)
		}
		res, err := w.Run(ctx, args, false)
		if err != nil {
			t.Fatalf("%s: %v", s.tool, err)
		}
		if res.Text != s.want || res.Image != nil {
			t.Errorf("%s: result %q (image %v), want %q", s.tool, res.Text, res.Image, s.want)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(w.Root(), "notes", "todo.md")); string(got) != "- a\n- b\n- c\n" {
		t.Errorf("file holds %q", got)
	}
	if _, err := w.Run(ctx, nil, true); err == nil {
		t.Error("Run(nil) succeeded")
	}
}
