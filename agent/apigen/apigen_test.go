package apigen_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/apigen"
	"github.com/freeact/desktop/internal/testenv"
)

type serverFile struct {
	Server string `json:"server"`
	Tools  []struct {
		Name         string          `json:"name"`
		Description  string          `json:"description"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	} `json:"tools"`
}

func loadServer(t *testing.T, name string) (string, []apigen.Tool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "servers", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var f serverFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	tools := make([]apigen.Tool, len(f.Tools))
	for i, tl := range f.Tools {
		tools[i] = apigen.Tool{Name: tl.Name, Description: tl.Description, InputSchema: tl.InputSchema, OutputSchema: tl.OutputSchema}
	}
	return f.Server, tools
}

// The generated files match the golden files (go test -update rewrites
// them).
func TestGolden(t *testing.T) {
	for _, name := range []string{"search", "injection"} {
		t.Run(name, func(t *testing.T) {
			server, tools := loadServer(t, name)
			files, err := apigen.Files(server, tools)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join("testdata", "golden", name)
			if testenv.Update() { // drop the files of tools that are gone
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
			}
			for f, content := range files {
				testenv.Golden(t, filepath.Join(dir, f), content)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			var want []string
			for f := range files {
				want = append(want, f)
			}
			slices.Sort(want)
			if !slices.Equal(names, want) {
				t.Fatalf("files %v, golden %v (go test -update to accept)", want, names)
			}
		})
	}
}

func TestModuleNames(t *testing.T) {
	tests := []struct{ in, want string }{
		{"search_web", "search_web"},
		{"Get-Page", "get_page"},
		{"web.search", "web_search"},
		{"1st", "_1st"},
		{"class", "class_"},
		{"None", "none"},
		{"__init__", "__init___"},
		{"", "_"},
		{"ünï", "_n_"},
		{"a b\nc", "a_b_c"},
	}
	for _, tt := range tests {
		if got := apigen.ModuleName(tt.in); got != tt.want {
			t.Errorf("ModuleName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	got := apigen.ModuleNames([]string{"get_page", "Get-Page", "get.page", "other"})
	want := map[string]string{"Get-Page": "get_page", "get.page": "get_page_2", "get_page": "get_page_3", "other": "other"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("ModuleNames: %q -> %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
}

var identRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

func FuzzModuleName(f *testing.F) {
	for _, s := range []string{"search_web", "Get-Page", "1st", "class", "__init__", "", "ünï", "a\nb", `"""`} {
		f.Add(s)
	}
	keywords := []string{"false", "none", "true", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
		"elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not",
		"or", "pass", "raise", "return", "try", "while", "with", "yield", "__init__", "__main__"}
	f.Fuzz(func(t *testing.T, name string) {
		m := apigen.ModuleName(name)
		if !identRE.MatchString(m) {
			t.Fatalf("ModuleName(%q) = %q is not a lower-case identifier", name, m)
		}
		if slices.Contains(keywords, m) {
			t.Fatalf("ModuleName(%q) = %q is reserved", name, m)
		}
		if apigen.ModuleName(name) != m {
			t.Fatal("not deterministic")
		}
		if apigen.ModuleName(m) != m {
			t.Fatalf("ModuleName(%q) = %q is not stable", m, apigen.ModuleName(m))
		}
		all := apigen.ModuleNames([]string{name, m, name + "_2", strings.ToUpper(name)})
		seen := map[string]bool{}
		for _, v := range all {
			if seen[v] {
				t.Fatalf("ModuleNames collide: %v", all)
			}
			seen[v] = true
		}
	})
}

func testPython(t *testing.T) string { return testenv.Python(t) }

// checkScript imports every generated module in a real Python with a stub
// freeact_runtime, checks that nothing ran (no file made, no exit), that
// docstrings and constants hold the original texts, and calls run() of
// each module to see the parameters reach call_tool under their JSON names.
const checkScript = `
import dataclasses, importlib, json, os, sys, types

expected = json.load(open(sys.argv[1]))
calls = []
rt = types.ModuleType("freeact_runtime")
def call_tool(server, tool, args):
    calls.append((server, tool, args))
    return {"results": [{"title": "t", "url": "u"}], "total": 1, "meta": {"a": {"value": "v"}}, '"""': "q"}
rt.call_tool = call_tool
sys.modules["freeact_runtime"] = rt

pkg = expected["package"]
for tool in expected["tools"]:
    mod = importlib.import_module("mcptools." + pkg + "." + tool["module"])
    assert mod._SERVER == expected["server"], (mod._SERVER, expected["server"])
    assert mod._TOOL == tool["name"], (mod._TOOL, tool["name"])
    if tool["description"].strip():
        assert mod.__doc__.startswith(tool["description"].strip().replace("\r\n", "\n")), (mod.__doc__, tool["description"])
    required = {f.name: None for f in dataclasses.fields(mod.Params) if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    for name in required:
        required[name] = 1
    res = mod.run(mod.Params(**required))
    server, name, args = calls[-1]
    assert server == expected["server"] and name == tool["name"], calls[-1]
    names = getattr(mod.Params, "_json_names", {})
    for f in required:
        assert args[names.get(f, f)] == 1, (args, f)
    if hasattr(mod, "Result"):
        assert isinstance(res, mod.Result), res
    else:
        assert isinstance(res, str), res
importlib.import_module("mcptools." + pkg)
assert not os.path.exists("PWNED"), "injected code ran"
print("ok", len(expected["tools"]))
`

// hostile makes tools whose names, descriptions, property names, enum
// values and defaults are random strings of the characters that matter to
// Python's tokenizer (deterministic: a fixed seed).
func hostile(n int) (string, []apigen.Tool) {
	alphabet := []rune("\"'\\\n\r\t\x00\x0b\x0c #:;()[]{}=,.aZ9_-üß日\u2028\u2029\u202e\u200b\U0001f600")
	r := rand.New(rand.NewPCG(7, 11))
	str := func() string {
		b := make([]rune, r.IntN(24))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	tools := make([]apigen.Tool, n)
	for i := range tools {
		schema := map[string]any{"type": "object", "properties": map[string]any{
			str(): map[string]any{"type": "string", "description": str(), "enum": []string{str(), str()}, "default": str()},
			str(): map[string]any{"type": "object", "description": str(), "properties": map[string]any{str(): map[string]any{"type": "integer"}}},
		}}
		in, _ := json.Marshal(schema)
		out, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{str(): map[string]any{"type": "string", "description": str()}}})
		tools[i] = apigen.Tool{Name: fmt.Sprintf("%s%d", str(), i), Description: str(), InputSchema: in, OutputSchema: out}
	}
	return "srv" + str(), tools
}

// Every module of the injection corpus, of random hostile tools and of the
// ordinary set imports and runs in a real Python, inertly.
func TestInjectionCorpusImports(t *testing.T) {
	py := testPython(t)
	for _, name := range []string{"search", "injection", "random"} {
		t.Run(name, func(t *testing.T) {
			var server string
			var tools []apigen.Tool
			if name == "random" {
				server, tools = hostile(200)
			} else {
				server, tools = loadServer(t, name)
			}
			root := t.TempDir()
			dir, err := apigen.Generate(filepath.Join(root, "mcptools"), server, tools)
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Base(dir) != apigen.ModuleName(server) {
				t.Fatalf("folder %s", dir)
			}
			names := make([]string, len(tools))
			for i, tl := range tools {
				names[i] = tl.Name
			}
			modules := apigen.ModuleNames(names)
			var list []map[string]string
			for _, tl := range tools {
				list = append(list, map[string]string{"name": tl.Name, "module": modules[tl.Name], "description": tl.Description})
			}
			data, _ := json.Marshal(map[string]any{"server": server, "package": apigen.ModuleName(server), "tools": list})
			expFile := filepath.Join(t.TempDir(), "expected.json")
			if err := os.WriteFile(expFile, data, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(py, "-I", "-c", "import sys; sys.path.insert(0, sys.argv.pop(1)); exec(sys.argv.pop(1))", root, checkScript, expFile)
			cmd.Dir = root
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.HasPrefix(string(out), "ok ") {
				t.Fatalf("python: %v\n%s", err, out)
			}
			if _, err := os.Stat(filepath.Join(root, "PWNED")); err == nil {
				t.Fatal("injected code ran")
			}
		})
	}
}

// Generating again replaces the folder: a removed tool's module goes.
func TestRegenerate(t *testing.T) {
	server, tools := loadServer(t, "search")
	root := filepath.Join(t.TempDir(), "mcptools")
	dir, err := apigen.Generate(root, server, tools)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := apigen.Generate(root, server, tools[:1]); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "__init__.py,search_web.py" {
		t.Fatalf("after regenerating: %v", names)
	}
	left, _ := os.ReadDir(root)
	if len(left) != 1 {
		t.Fatalf("temporary folders left: %v", left)
	}
	_, err = apigen.Generate(root, "bad", []apigen.Tool{{Name: "x", InputSchema: json.RawMessage(`[1]`)}})
	if err == nil || !strings.Contains(err.Error(), `MCP server "bad"`) || !strings.Contains(err.Error(), `"x"`) {
		t.Fatalf("bad schema: %v", err)
	}
}
