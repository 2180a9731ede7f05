package desktop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/internal/testenv"
)

// TestSandboxSettings drives the settings panel's sandbox tab through the
// bindings: defaults, an invalid edit that writes nothing, custom rules, and
// applying them restarts the kernel in the real sandbox (badge on).
func TestSandboxSettings(t *testing.T) {
	t.Setenv("PATH", testenv.SrtDir(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("GEMINI_API_KEY", "fake-key")
	d, h, ws := testDesktop(t)
	py := testenv.Python(t)
	agentFile := filepath.Join(ws, ".freeact", "agent.json")
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	if st := h.waitState(t, KernelReady); st.Sandboxed {
		t.Error("badge on before the sandbox was turned on")
	}

	s, err := d.Sandbox()
	if err != nil {
		t.Fatal(err)
	}
	if s.Enabled || s.Custom || s.Content != s.Defaults || !strings.Contains(s.Defaults, filepath.Join(ws, ".env")) {
		t.Fatalf("initial sandbox settings %+v", s)
	}
	options := func() config.Options {
		t.Helper()
		data, err := os.ReadFile(agentFile)
		if err != nil {
			t.Fatal(err)
		}
		o, err := config.ParseOptions(data, agentFile)
		if err != nil {
			t.Fatalf("agent.json after saving: %v\n%s", err, data)
		}
		return o
	}

	// Invalid rules: an error, nothing written.
	before, _ := os.ReadFile(agentFile)
	errs, err := d.SaveSandbox(true, `{"network": {"allowedDomains": "everything"}}`)
	if err != nil || len(errs) != 1 || errs[0].Key != "sandbox_config" || !strings.Contains(errs[0].Message, "lists of strings") {
		t.Fatalf("invalid rules: %+v %v", errs, err)
	}
	if after, _ := os.ReadFile(agentFile); string(after) != string(before) {
		t.Error("agent.json changed although the rules were invalid")
	}
	if _, err := os.Stat(filepath.Join(ws, sandboxFile)); err == nil {
		t.Error("invalid rules were written")
	}

	// The defaults unchanged: sandbox on, no rules file.
	if errs, err := d.SaveSandbox(true, s.Defaults); err != nil || len(errs) > 0 {
		t.Fatalf("save: %+v %v", errs, err)
	}
	if o := options(); !o.Sandbox || o.SandboxConfig != nil || o.Python == nil || *o.Python != py {
		t.Errorf("options after turning the sandbox on: sandbox %v, config %v, python %v", o.Sandbox, o.SandboxConfig, o.Python)
	}

	// Custom rules: written to .freeact/sandbox-config.json and named.
	custom := strings.Replace(s.Defaults, `"allowedDomains": []`, `"allowedDomains": ["example.org"]`, 1)
	if errs, err := d.SaveSandbox(true, custom); err != nil || len(errs) > 0 {
		t.Fatalf("save custom: %+v %v", errs, err)
	}
	if o := options(); o.SandboxConfig == nil || *o.SandboxConfig != sandboxFile {
		t.Errorf("sandbox_config = %v", o.SandboxConfig)
	}
	if s, _ := d.Sandbox(); !s.Custom || !strings.Contains(s.Content, "example.org") || s.Path != sandboxFile {
		t.Errorf("custom settings read back as %+v", s)
	}

	// Applying restarts the kernel in the sandbox, and the badge says so.
	if err := d.ApplySettings(); err != nil {
		t.Fatal(err)
	}
	if st := h.waitState(t, KernelReady); !st.Sandboxed {
		t.Errorf("kernel status after applying: %+v", st)
	}
	if errs, err := d.SaveSandbox(false, custom); err != nil || len(errs) > 0 {
		t.Fatalf("turn off: %+v %v", errs, err)
	}
	if o := options(); o.Sandbox {
		t.Error("sandbox still on in agent.json")
	}
}

// TestSettingsApplyToTheNextTurn saves a new model from the settings panel
// and sees the next turn use it without a restart; a key that needs one is
// reported by PendingRestart.
func TestSettingsApplyToTheNextTurn(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - expect: {model: gemini-3-flash-preview}
    reply: [{text: "From the first model."}]
  - expect: {model: gemini-2.5-pro}
    reply: [{text: "From the second model."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	h.waitState(t, KernelReady)
	if err := d.Send("One.", nil); err != nil {
		t.Fatal(err)
	}
	_, i := h.waitEvent(t, "TurnEnded", 0)

	fields, err := d.Settings()
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]string{}
	for _, f := range fields {
		values[f.Key] = f.Value
	}
	values["model"] = `"gemini-2.5-pro"`
	values["execution_timeout"] = "60"
	if errs, err := d.SaveSettings(values); err != nil || len(errs) > 0 {
		t.Fatalf("save: %+v %v", errs, err)
	}
	if keys, err := d.PendingRestart(); err != nil || len(keys) != 1 || keys[0] != "execution_timeout" {
		t.Errorf("PendingRestart = %q, %v", keys, err)
	}
	if err := d.Send("Two.", nil); err != nil {
		t.Fatal(err)
	}
	resp, _ := h.waitEvent(t, "Response", i+1)
	if resp["text"] != "From the second model." {
		t.Errorf("second turn answered %v", resp)
	}
	if st := h.waitState(t, KernelReady); st.Model != "gemini-2.5-pro" {
		t.Errorf("status model %q", st.Model)
	}
}

// TestRegenerateMCPTools is the settings panel's "Regenerate Python API"
// for a code-mode server (a real MCP server over streamable HTTP).
func TestRegenerateMCPTools(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "fake-key")
	d, h, ws := testDesktop(t)
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	h.waitState(t, KernelReady)
	if _, err := d.RegenerateMCPTools("tools"); err == nil || !strings.Contains(err.Error(), "save the settings first") {
		t.Errorf("unsaved server: %v", err)
	}
	fields, _ := d.Settings()
	values := map[string]string{}
	for _, f := range fields {
		values[f.Key] = f.Value
	}
	srv, _ := json.Marshal(map[string]any{"tools": mcptest.HTTP(t)})
	values["ptc_servers"] = string(srv)
	if errs, err := d.SaveSettings(values); err != nil || len(errs) > 0 {
		t.Fatalf("save: %+v %v", errs, err)
	}
	dir, err := d.RegenerateMCPTools("tools")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, dir, "echo.py")); err != nil {
		t.Errorf("no generated module for echo in %s: %v", dir, err)
	}
}

// TestFailedStartKeepsPendingKeys turns the sandbox on where srt is
// missing, so the restart fails and no agent runs; turning it off again is
// still a key that needs a restart (the panel's Apply now), not one the
// next turn takes over: no turn can run.
func TestFailedStartKeepsPendingKeys(t *testing.T) {
	t.Setenv("PATH", "/usr/bin:/bin") // no srt
	t.Setenv("GEMINI_API_KEY", "fake-key")
	d, h, ws := testDesktop(t)
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	h.waitState(t, KernelReady)
	s, err := d.Sandbox()
	if err != nil {
		t.Fatal(err)
	}
	if errs, err := d.SaveSandbox(true, s.Defaults); err != nil || len(errs) > 0 {
		t.Fatalf("turn on: %+v %v", errs, err)
	}
	if err := d.ApplySettings(); err != nil {
		t.Fatal(err)
	}
	if st := h.waitState(t, KernelError); !strings.Contains(st.Message, "srt") {
		t.Errorf("the failed start says %q, want srt named", st.Message)
	}
	if errs, err := d.SaveSandbox(false, s.Defaults); err != nil || len(errs) > 0 {
		t.Fatalf("turn off: %+v %v", errs, err)
	}
	if keys, err := d.PendingRestart(); err != nil || len(keys) != 1 || keys[0] != "sandbox" {
		t.Errorf("PendingRestart after the failed start = %q, %v, want [sandbox]", keys, err)
	}
	if err := d.ApplySettings(); err != nil {
		t.Fatal(err)
	}
	h.waitState(t, KernelReady)
	if keys, err := d.PendingRestart(); err != nil || len(keys) != 0 {
		t.Errorf("PendingRestart after applying = %q, %v, want none", keys, err)
	}
}
