package apigen

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/internal/testenv"
)

// demoTools are the tools of agent/mcp/testdata/pyserver.py as the Python
// MCP SDK lists them.
var demoTools = []Tool{
	{Name: "add", Description: "Add two whole numbers.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"]}`)},
	{Name: "sdk_version", Description: "The version of the mcp package serving this.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{}}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"result":{"type":"string"}},"required":["result"]}`)},
}

// The modules freeact 0.11.2 generated (for mcpygen's tool server) are
// replaced by ours, and what freeact's output-parsers skill added to one of
// them (ParseResult, run_parsed) is kept and works with the new module and
// the parser in mcpparse/.
func TestRegenerateFreeactModules(t *testing.T) {
	ws := testenv.FreeactFixture(t, "0.11.2")
	generated := filepath.Join(ws, ".freeact", "generated")
	dir := filepath.Join(generated, "mcptools", "demo")
	if !Foreign(dir) {
		t.Fatal("freeact's modules not recognised as foreign")
	}
	if _, err := Generate(filepath.Join(generated, "mcptools"), "demo", demoTools); err != nil {
		t.Fatal(err)
	}
	if Foreign(dir) {
		t.Error("still foreign after generation")
	}
	src, err := os.ReadFile(filepath.Join(dir, "sdk_version.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"from freeact_runtime import call_tool", KeptMarker, "Kept from the module the Python freeact generated",
		"from pydantic import BaseModel, ConfigDict, Field", "class ParseResult(BaseModel):", "def run_parsed(params: Params) -> ParseResult:"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("sdk_version.py lacks %q:\n%s", want, src)
		}
	}
	if strings.Contains(string(src), "CLIENT") {
		t.Errorf("sdk_version.py still calls mcpygen:\n%s", src)
	}
	// Generating again keeps the kept code once, and changes nothing.
	if _, err := Generate(filepath.Join(generated, "mcptools"), "demo", demoTools); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(filepath.Join(dir, "sdk_version.py"))
	if string(again) != string(src) {
		t.Errorf("second generation changed the module:\n%s", again)
	}

	// run_parsed works: call_tool stands in for the kernel runtime.
	py := testenv.Python(t)
	runtime := t.TempDir()
	if err := os.WriteFile(filepath.Join(runtime, "freeact_runtime.py"), []byte(
		"def call_tool(server, tool, args):\n    assert (server, tool, args) == ('demo', 'sdk_version', {}), (server, tool, args)\n    return {'result': '2.3.0'}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-c", "from mcptools.demo import sdk_version as m\nr = m.run_parsed(m.Params())\nprint(type(r).__name__, r.major, r.minor)")
	cmd.Env = append(os.Environ(), "PYTHONPATH="+generated+string(os.PathListSeparator)+runtime)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ParseResult 2 3" {
		t.Fatalf("run_parsed: %v\n%s", err, out)
	}
}

// Code added below the marker of one of our modules survives generation.
func TestKeptBelowMarker(t *testing.T) {
	root := t.TempDir()
	dir, err := Generate(root, "demo", demoTools)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "add.py")
	src, _ := os.ReadFile(name)
	added := "\ndef run_parsed(params: Params) -> int:\n    return run(params).result\n"
	if err := os.WriteFile(name, append(src, added...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(root, "demo", demoTools[:1]); err != nil { // sdk_version is gone now
		t.Fatal(err)
	}
	got, _ := os.ReadFile(name)
	if string(got) != string(src)+added {
		t.Errorf("add.py after generating again:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "sdk_version.py")); err == nil {
		t.Error("the module of a tool the server no longer has was kept")
	}
}
