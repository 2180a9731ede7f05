package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/permission"
	"github.com/freeact/desktop/internal/testenv"
)

func noEnv(string) (string, bool) { return "", false }

func envOf(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeAgentJSON(t *testing.T, ws, content string) string {
	t.Helper()
	file := filepath.Join(ws, FreeactDir, AgentFile)
	write(t, file, content)
	return file
}

// The defaults a new workspace gets, key by key.
func TestDefaults(t *testing.T) {
	d := Defaults()
	include := true
	tests := []struct {
		key       string
		got, want any
	}{
		{"model", d.Model, "gemini-3-flash-preview"},
		{"model_settings thinking", d.ModelSettings.GoogleThinking.ThinkingLevel, "medium"},
		{"model_settings thoughts", d.ModelSettings.GoogleThinking.IncludeThoughts, &include},
		{"tool_search", d.ToolSearch, "basic"},
		{"images_dir", d.ImagesDir, (*string)(nil)},
		{"execution_timeout", *d.ExecutionTimeout, 300.0},
		{"approval_timeout", d.ApprovalTimeout, (*float64)(nil)},
		{"tool_result_inline_max_bytes", d.ToolResultInlineMaxBytes, 32768},
		{"tool_result_preview_chars", d.ToolResultPreviewChars, 2048},
		{"enable_persistence", d.EnablePersistence, true},
		{"enable_subagents", d.EnableSubagents, true},
		{"max_subagents", d.MaxSubagents, 5},
		{"kernel_env", d.KernelEnv, map[string]string{}},
		{"mcp_servers", d.MCPServers, map[string]Server{}},
		{"ptc_servers", d.PTCServers, map[string]Server{}},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s = %#v, want %#v", tt.key, tt.got, tt.want)
		}
	}
	// The scaffolded file parses back to exactly the defaults.
	data, err := d.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseOptions(data, "agent.json")
	if err != nil || !reflect.DeepEqual(back, d) {
		t.Fatalf("defaults do not round-trip: %v\n%+v", err, back)
	}
}

func TestLoadMissingAgentJSONUsesDefaults(t *testing.T) {
	c, err := Load(t.TempDir(), LoadOptions{Lookup: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Options, Defaults()) {
		t.Fatalf("options = %+v", c.Options)
	}
}

func TestParseOptions(t *testing.T) {
	o, err := ParseOptions([]byte(`{
		"model": "openai:gpt-5",
		"model_settings": {"temperature": 0.2},
		"tool_search": "hybrid",
		"images_dir": "out/img",
		"execution_timeout": null,
		"approval_timeout": 30,
		"max_subagents": 2,
		"kernel_env": {"A": "1"},
		"ptc_servers": {"google": {"command": "python", "args": ["-m", "x"], "env": {"K": "v"}}},
		"mcp_servers": {"remote": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer t"}, "excluded_tools": ["delete_all", "drop"]}},
		"jupyter_url": "https://hub.example.com/user/ada/",
		"jupyter_workdir": "projects/x",
		"jupyter_headers": {"Authorization": "Bearer hub"},
		"jupyter_ca_file": "ca.pem",
		"jupyter_reconnect_timeout": 0,
		"kernel_name": "spark",
		"kernel_pool": false
	}`), "agent.json")
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case o.Model != "openai:gpt-5", *o.ModelSettings.Temperature != 0.2, o.ToolSearch != "hybrid",
		*o.ImagesDir != "out/img", o.ExecutionTimeout != nil, *o.ApprovalTimeout != 30, o.MaxSubagents != 2,
		o.KernelEnv["A"] != "1", o.PTCServers["google"].Args[1] != "x", o.MCPServers["remote"].Headers["Authorization"] != "Bearer t",
		len(o.MCPServers["remote"].ExcludedTools) != 2 || o.MCPServers["remote"].ExcludedTools[1] != "drop",
		*o.JupyterWorkdir != "projects/x", o.JupyterHeaders["Authorization"] != "Bearer hub", *o.JupyterCAFile != "ca.pem",
		o.JupyterReconnectTimeout != 0, *o.KernelName != "spark", o.KernelPool == nil || *o.KernelPool:
		t.Fatalf("parsed %+v", o)
	}
	if d := Defaults(); d.KernelPool != nil || d.JupyterReconnectTimeout != 60 || len(d.JupyterHeaders) != 0 {
		t.Errorf("remote defaults: pool %v, reconnect %v, headers %v", d.KernelPool, d.JupyterReconnectTimeout, d.JupyterHeaders)
	}
	// Keys left out keep their defaults.
	if o.ToolResultInlineMaxBytes != 32768 || !o.EnablePersistence {
		t.Fatalf("defaults lost: %+v", o)
	}
}

// Errors name the file, the key and the value.
func TestParseOptionsErrors(t *testing.T) {
	tests := []struct {
		name, content string
		want          []string
	}{
		{"not json", `{`, []string{"agent.json", "not a JSON object"}},
		{"array", `[]`, []string{"agent.json", "not a JSON object"}},
		{"null", `null`, []string{"agent.json", "not a JSON object"}},
		{"unknown key", `{"tool-search": "basic"}`, []string{"agent.json", `unknown key "tool-search"`, "known keys: model,"}},
		{"wrong type", `{"execution_timeout": "300"}`, []string{"agent.json", `key "execution_timeout"`, `value "300"`, "want a positive number of seconds, or null for no limit"}},
		{"null not allowed", `{"model": null}`, []string{`key "model"`, "value null", "null is not allowed"}},
		{"bool as string", `{"enable_subagents": "yes"}`, []string{`key "enable_subagents"`, `value "yes"`, "true or false"}},
		{"fraction for int", `{"max_subagents": 2.5}`, []string{`key "max_subagents"`, "value 2.5"}},
		{"bad tool_search", `{"tool_search": "fuzzy"}`, []string{`key "tool_search"`, `"fuzzy"`, `"basic", "hybrid" or "off"`}},
		{"bad model", `{"model": "nope:x"}`, []string{`key "model"`, `unknown provider "nope"`}},
		{"bad model settings", `{"model_settings": {"temprature": 1}}`, []string{`key "model_settings"`, "temprature"}},
		{"zero timeout", `{"execution_timeout": 0}`, []string{`key "execution_timeout"`, "value 0", "positive"}},
		{"negative preview", `{"tool_result_preview_chars": -1}`, []string{`key "tool_result_preview_chars"`, "value -1"}},
		{"zero subagents", `{"max_subagents": 0}`, []string{`key "max_subagents"`, "value 0"}},
		{"kernel_env number", `{"kernel_env": {"A": 1}}`, []string{`key "kernel_env"`, `{"A": 1}`}},
		{"server typo", `{"mcp_servers": {"s": {"comand": "x"}}}`, []string{`key "mcp_servers"`, "comand"}},
		{"server without command", `{"ptc_servers": {"s": {"args": ["x"]}}}`, []string{`key "ptc_servers"`, `server "s"`, `needs "command"`}},
		{"server with both", `{"mcp_servers": {"s": {"command": "x", "url": "http://h"}}}`, []string{`server "s"`, "both"}},
		{"excluded_tools not a list", `{"mcp_servers": {"s": {"command": "x", "excluded_tools": "a"}}}`, []string{`key "mcp_servers"`, "excluded_tools"}},
		{"empty excluded tool", `{"ptc_servers": {"s": {"command": "x", "excluded_tools": [""]}}}`, []string{`server "s"`, "excluded_tools", "empty"}},
		{"bad jupyter url", `{"jupyter_url": "localhost:8888"}`, []string{`key "jupyter_url"`, "localhost:8888"}},
		{"negative reconnect", `{"jupyter_reconnect_timeout": -1}`, []string{`key "jupyter_reconnect_timeout"`, "value -1", "0 or more"}},
		{"header name with a colon", `{"jupyter_headers": {"Authorization:": "x"}}`, []string{`key "jupyter_headers"`, "header names"}},
		{"kernel_pool as string", `{"kernel_pool": "yes"}`, []string{`key "kernel_pool"`, "true or false, or null for automatic"}},
		{"trailing data", `{} {}`, []string{"after the JSON value"}},
		{"model price typo", `{"models": {"ollama:x": {"input": 1}}}`, []string{`key "models"`, `"input"`}},
		{"negative price", `{"models": {"ollama:x": {"input_price": -1}}}`, []string{`key "models"`, `model "ollama:x"`, "input_price -1"}},
		{"zero window", `{"models": {"x": {"context_window": 0}}}`, []string{`model "x"`, "context_window 0"}},
		{"zero budget", `{"max_cost_per_session": 0}`, []string{`key "max_cost_per_session"`, "positive number of US dollars"}},
		{"budget as text", `{"max_cost_per_session": "$5"}`, []string{`key "max_cost_per_session"`, `"$5"`}},
		{"threshold as percent", `{"compaction_threshold": 80}`, []string{`key "compaction_threshold"`, "value 80", "between 0.1 and 1"}},
		{"zero file limit", `{"checkpoint_max_file_bytes": 0}`, []string{`key "checkpoint_max_file_bytes"`, "positive"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseOptions([]byte(tt.content), "/ws/.freeact/agent.json")
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
}

// An agent.json as the Python freeact writes it loads unchanged.
func TestPythonAgentJSON(t *testing.T) {
	ws := t.TempDir()
	writeAgentJSON(t, ws, `{
  "model": "google-gla:gemini-3-flash-preview",
  "model_settings": {"google_thinking_config": {"thinking_level": "high", "include_thoughts": true}},
  "tool_search": "basic",
  "images_dir": null,
  "execution_timeout": 300,
  "approval_timeout": null,
  "tool_result_inline_max_bytes": 32768,
  "tool_result_preview_chars": 2048,
  "enable_persistence": true,
  "enable_subagents": true,
  "max_subagents": 5,
  "kernel_env": {},
  "mcp_servers": {},
  "ptc_servers": {
    "google": {
      "command": "python",
      "args": ["-m", "freeact.tools.gsearch", "--thinking-level", "medium"],
      "env": {"GEMINI_API_KEY": "${GEMINI_API_KEY}"}
    }
  }
}`)
	c, err := Load(ws, LoadOptions{Lookup: envOf("GEMINI_API_KEY", "k-123")})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Options.PTCServers["google"].Env["GEMINI_API_KEY"]; got != "k-123" {
		t.Fatalf("expanded key = %q", got)
	}
	if spec, err := model.ParseModelString(c.Options.Model); err != nil || !spec.Gemini() {
		t.Fatalf("model %q: %v", c.Options.Model, err)
	}
}

func TestExpansion(t *testing.T) {
	ws := t.TempDir()
	file := writeAgentJSON(t, ws, `{
		"kernel_env": {"TOKEN": "${FROM_PROCESS}", "BOTH": "${IN_BOTH}", "DOT": "x-${FROM_DOTENV}-y", "KEY": "${APP_KEY}"},
		"mcp_servers": {"gh": {"command": "${FROM_DOTENV}", "args": ["--token", "${FROM_PROCESS}"], "cwd": "${FROM_DOTENV}"}},
		"ptc_servers": {"web": {"url": "https://h/${FROM_DOTENV}", "headers": {"Authorization": "Bearer ${FROM_PROCESS}"}}},
		"jupyter_token": "${FROM_PROCESS}"
	}`)
	write(t, filepath.Join(ws, DotEnvFile), "# comment\nFROM_DOTENV=dot\nexport IN_BOTH=from-file\nAPP_KEY=from-dotenv\n")
	lookup := envOf("FROM_PROCESS", "proc", "IN_BOTH", "from-process")
	c, err := Load(ws, LoadOptions{Lookup: lookup, APIKeys: map[string]string{"APP_KEY": "from-app", "ONLY_APP": "app"}})
	if err != nil {
		t.Fatal(err)
	}
	o := c.Options
	for _, tt := range []struct{ got, want string }{
		{o.KernelEnv["TOKEN"], "proc"},
		{o.KernelEnv["BOTH"], "from-process"}, // the process wins over .env
		{o.KernelEnv["DOT"], "x-dot-y"},
		{o.KernelEnv["KEY"], "from-dotenv"}, // .env wins over stored app keys
		{o.MCPServers["gh"].Command, "dot"},
		{o.MCPServers["gh"].Args[1], "proc"},
		{o.MCPServers["gh"].Cwd, filepath.Join(ws, "dot")}, // relative to the workspace
		{o.PTCServers["web"].URL, "https://h/dot"},
		{o.PTCServers["web"].Headers["Authorization"], "Bearer proc"},
		{*o.JupyterToken, "proc"},
		{c.Env.Getenv("ONLY_APP"), "app"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	extra := strings.Join(c.Env.Extra(), " ")
	if extra != "APP_KEY=from-dotenv FROM_DOTENV=dot ONLY_APP=app" {
		t.Errorf("Extra() = %q", extra)
	}

	// An unset variable names the key, the value and the file.
	write(t, file, `{"mcp_servers": {"gh": {"command": "x", "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}}}`)
	_, err = Load(ws, LoadOptions{Lookup: lookup})
	for _, w := range []string{file, `key "mcp_servers": gh.env.GITHUB_TOKEN: value "${GITHUB_TOKEN}"`, "${GITHUB_TOKEN} is not set", filepath.Join(ws, DotEnvFile)} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not mention %q", err, w)
		}
	}
	// A token next to an unset variable is not shown.
	write(t, file, `{"jupyter_url": "https://h/?token=s3cret${MISSING}", "jupyter_headers": {"Authorization": "Bearer s3cret${MISSING}"}}`)
	_, err = Load(ws, LoadOptions{Lookup: lookup})
	if err == nil || !strings.Contains(err.Error(), `key "jupyter_headers": Authorization: `) || !strings.Contains(err.Error(), `key "jupyter_url"`) || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error %v: want both keys named and no secret shown", err)
	}
	write(t, file, `{"kernel_env": {"A": "${not valid}"}}`)
	if _, err = Load(ws, LoadOptions{Lookup: lookup}); err == nil || !strings.Contains(err.Error(), "not a valid variable reference") {
		t.Errorf("malformed reference: %v", err)
	}
}

func TestParseDotEnv(t *testing.T) {
	got, err := ParseDotEnv([]byte("\ufeffA=1\n\n# c\nexport B = two words \nC='single $X # kept'\nD=\"dq\\nline \\\"q\\\"\" # comment\nE=val # trailing\nF=\nG=a=b\n"), ".env")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"A": "1", "B": "two words", "C": "single $X # kept", "D": "dq\nline \"q\"", "E": "val", "F": "", "G": "a=b"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
	for content, msg := range map[string]string{
		"JUSTNAME\n":     ".env:1",
		"A=1\n1A=2\n":    ".env:2",
		"A='open\n":      "no closing '",
		"A=\"x\" junk\n": "unexpected text",
	} {
		if _, err := ParseDotEnv([]byte(content), ".env"); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseDotEnv(%q) error %v, want it to mention %q", content, err, msg)
		}
	}
}

func TestInitKeepsUserFiles(t *testing.T) {
	ws := t.TempDir()
	if err := Init(ws); err != nil {
		t.Fatal(err)
	}
	fd := filepath.Join(ws, FreeactDir)
	custom := `{"model": "openai:gpt-5"}`
	write(t, filepath.Join(fd, AgentFile), custom)
	write(t, filepath.Join(fd, permission.FileName), `{"allow": [], "ask": []}`)
	skill := filepath.Join(fd, "skills", "task-planning", "SKILL.md")
	if err := os.Remove(skill); err != nil {
		t.Fatal(err)
	}
	if err := Init(ws); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(fd, AgentFile)); string(data) != custom {
		t.Fatalf("Init overwrote agent.json: %s", data)
	}
	if data, _ := os.ReadFile(filepath.Join(fd, permission.FileName)); string(data) != `{"allow": [], "ask": []}` {
		t.Fatalf("Init overwrote permissions.json: %s", data)
	}
	if _, err := os.Stat(skill); err != nil {
		t.Fatalf("a deleted bundled skill was not recreated: %v", err)
	}
	// The scaffolded workspace loads with its bundled skills and no warnings.
	if err := os.Remove(filepath.Join(fd, AgentFile)); err != nil {
		t.Fatal(err)
	}
	if err := Init(ws); err != nil {
		t.Fatal(err)
	}
	c, err := Load(ws, LoadOptions{Lookup: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range c.Skills {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "output-parsers,saving-codeacts,task-planning" || len(c.Warnings) != 0 {
		t.Fatalf("skills %v, warnings %v", names, c.Warnings)
	}
	if _, err := permission.Open(ws); err != nil {
		t.Fatalf("scaffolded permissions.json does not load: %v", err)
	}
}

func TestLoadReportsBadWorkspace(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "missing"), LoadOptions{}); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Fatalf("missing workspace: %v", err)
	}
	ws := t.TempDir()
	write(t, filepath.Join(ws, DotEnvFile), "broken line\n")
	if _, err := Load(ws, LoadOptions{Lookup: noEnv}); err == nil || !strings.Contains(err.Error(), ".env:1") {
		t.Fatalf("broken .env: %v", err)
	}
}

func TestAgentsMDAndPaths(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, AgentsMD), "\nUse uv, not pip.\n")
	writeAgentJSON(t, ws, `{"images_dir": "figures"}`)
	c, err := Load(ws, LoadOptions{Lookup: noEnv})
	if err != nil {
		t.Fatal(err)
	}
	if c.ProjectInstructions != "Use uv, not pip." {
		t.Fatalf("instructions %q", c.ProjectInstructions)
	}
	p, err := c.SystemPrompt()
	if err != nil || !strings.Contains(p, "Use uv, not pip.") || !strings.Contains(p, c.Dir) {
		t.Fatalf("prompt lacks AGENTS.md or the workspace: %v", err)
	}
	if c.ImagesDir() != filepath.Join(ws, "figures") || c.GeneratedDir() != filepath.Join(ws, ".freeact", "generated") ||
		c.SessionsDir() != filepath.Join(ws, ".freeact", "sessions") || c.PlansDir() != filepath.Join(ws, ".freeact", "plans") {
		t.Fatalf("paths: %s %s %s %s", c.ImagesDir(), c.GeneratedDir(), c.SessionsDir(), c.PlansDir())
	}
	c.Options.ImagesDir = nil
	if c.ImagesDir() != filepath.Join(ws, "images") {
		t.Fatalf("default images dir %s", c.ImagesDir())
	}
	// The package of a ptc server is named as Python imports it.
	if got, want := MCPToolsDir("Web-Search"), filepath.Join(".freeact", "generated", "mcptools", "web_search"); got != want {
		t.Errorf("MCPToolsDir = %s, want %s", got, want)
	}
	if got, want := MCPToolsDir(""), filepath.Join(".freeact", "generated", "mcptools"); got != want {
		t.Errorf("MCPToolsDir of all servers = %s, want %s", got, want)
	}
}

// docs/behaviour.md documents every agent.json key with the default that
// Defaults has, and no key that does not exist.
func TestDocumentedDefaults(t *testing.T) {
	data, err := Defaults().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var defaults map[string]any
	if err := json.Unmarshal(data, &defaults); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, row := range testenv.DocTable(t, "docs/behaviour.md", "Configuration keys") {
		if len(row) < 2 {
			t.Fatalf("row %q has no default column", row)
		}
		key := strings.Trim(row[0], "`")
		seen[key] = true
		want, ok := defaults[key]
		if !ok {
			t.Errorf("docs/behaviour.md documents %q, which is not an agent.json key", key)
			continue
		}
		var documented any
		if err := json.Unmarshal([]byte(strings.Trim(row[1], "`")), &documented); err != nil {
			t.Errorf("docs/behaviour.md: default of %q is not JSON: %s", key, row[1])
			continue
		}
		if !reflect.DeepEqual(documented, want) {
			got, _ := json.Marshal(want)
			t.Errorf("docs/behaviour.md: default of %q is %s, Defaults() has %s", key, row[1], got)
		}
	}
	for key := range defaults {
		if !seen[key] {
			t.Errorf("agent.json key %q is missing from the configuration table of docs/behaviour.md", key)
		}
	}
}

// Every field of Options is a key ParseOptions accepts, and the other way
// round, so a new field cannot be forgotten in either place.
func TestKeysCoverOptions(t *testing.T) {
	var fields []string
	for f := range reflect.TypeFor[Options]().Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		fields = append(fields, name)
	}
	if got := strings.Join(fields, ", "); got != knownKeys() {
		t.Fatalf("Options fields %s\ndiffer from keys %s", got, knownKeys())
	}
	// Each key decodes into the field with its name.
	var o Options
	v := reflect.ValueOf(&o).Elem()
	for i, k := range keys {
		if got, want := reflect.ValueOf(k.dst(&o)).Pointer(), v.Field(i).Addr().Pointer(); got != want {
			t.Errorf("key %s decodes into field %d, not into %s", k.Name, i, v.Type().Field(i).Name)
		}
	}
}

// An empty variable does not hide a key set in a later source.
func TestEnvFirstNonEmpty(t *testing.T) {
	process := map[string]string{"GEMINI_API_KEY": "", "OTHER": "from-process"}
	lookup := func(k string) (string, bool) { v, ok := process[k]; return v, ok }
	e := NewEnv(lookup, map[string]string{"OTHER": "from-dotenv"}, ".env").WithFallback(map[string]string{"GEMINI_API_KEY": "stored"})
	if got := e.Getenv("GEMINI_API_KEY"); got != "" {
		t.Errorf("Getenv = %q: the process's empty value should win for plain lookups", got)
	}
	if got := e.FirstNonEmpty("GEMINI_API_KEY"); got != "stored" {
		t.Errorf("FirstNonEmpty = %q, want the stored key", got)
	}
	if got := e.FirstNonEmpty("OTHER"); got != "from-process" {
		t.Errorf("FirstNonEmpty(OTHER) = %q, want the process's value first", got)
	}
	if got := e.FirstNonEmpty("MISSING"); got != "" {
		t.Errorf("FirstNonEmpty(MISSING) = %q", got)
	}
}

// agent.json saved with a UTF-8 byte-order mark (Notepad does) loads.
func TestAgentJSONByteOrderMark(t *testing.T) {
	ws := t.TempDir()
	writeAgentJSON(t, ws, "\xef\xbb\xbf"+`{"max_subagents": 2}`)
	c, err := Load(ws, LoadOptions{Lookup: noEnv})
	if err != nil {
		t.Fatalf("agent.json with a byte-order mark: %v", err)
	}
	if c.Options.MaxSubagents != 2 {
		t.Errorf("max_subagents = %d, want 2", c.Options.MaxSubagents)
	}
}

// The provider_settings row of docs/behaviour.md names every key of
// provider_settings the app uses.
func TestDocumentedProviderSettings(t *testing.T) {
	for _, row := range testenv.DocTable(t, "docs/behaviour.md", "Configuration keys") {
		if strings.Trim(row[0], "`") != "provider_settings" {
			continue
		}
		for _, k := range ProviderSettingKeys {
			if !strings.Contains(row[len(row)-1], "`"+k+"`") {
				t.Errorf("the provider_settings row of docs/behaviour.md does not name %q", k)
			}
		}
		return
	}
	t.Fatal("docs/behaviour.md has no provider_settings row")
}
