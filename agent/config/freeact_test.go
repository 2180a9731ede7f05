package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/freeact/desktop/internal/testenv"
)

func noteWith(notes []string, parts ...string) bool {
	return slices.ContainsFunc(notes, func(n string) bool {
		for _, p := range parts {
			if !strings.Contains(n, p) {
				return false
			}
		}
		return true
	})
}

// A workspace made by freeact 0.10.12 (agent.json with provider_settings
// null, model_settings.timeout, a server timeout, freeact's default search
// and fetch servers) loads as it is, and Init adds nothing of its own.
func TestFreeact010Workspace(t *testing.T) {
	ws := testenv.FreeactFixture(t, "0.10.12")
	before := testenv.Snapshot(t, ws)
	if err := Init(ws); err != nil {
		t.Fatal(err)
	}
	c, err := Load(ws, LoadOptions{Lookup: func(k string) (string, bool) {
		if k == "GEMINI_API_KEY" {
			return "key-from-env", true
		}
		return "", false
	}})
	if err != nil {
		t.Fatal(err)
	}
	testenv.Unchanged(t, ws, before)
	o := c.Options
	if o.Model != "google-gla:gemini-3.5-flash" || o.ModelSettings.GoogleThinking.ThinkingLevel != "medium" ||
		o.ModelSettings.Timeout == nil || *o.ModelSettings.Timeout != 120 || o.ProviderSettings != nil {
		t.Errorf("model options %q %+v %v", o.Model, o.ModelSettings, o.ProviderSettings)
	}
	demo := o.MCPServers["demo"]
	if demo.Command != "python" || !slices.Equal(demo.ExcludedTools, []string{"sdk_version"}) ||
		demo.ConnectTimeout == nil || *demo.ConnectTimeout != 30 || demo.Cwd != ws {
		t.Errorf("mcp_servers.demo = %+v", demo)
	}
	if g := o.PTCServers["google"]; g.Env["GEMINI_API_KEY"] != "key-from-env" || len(o.PTCServers) != 3 {
		t.Errorf("ptc_servers = %+v", o.PTCServers)
	}
	if c.Source.Format != formatJSON || c.Source.File != filepath.Join(ws, ".freeact", AgentFile) || len(c.Source.ReadOnly) != 0 {
		t.Errorf("source %+v", c.Source)
	}
	if !noteWith(c.Source.Notes, TerminalJSON, "not read") {
		t.Errorf("notes %q", c.Source.Notes)
	}
}

// A workspace made by freeact 0.11.2 is read from config.toml: no agent.json
// or permissions.json appears beside it, and every key it holds is mapped
// (tools.discovery as tool_search, exclude_tools as excluded_tools) or
// noted ([terminal]).
func TestFreeact011Workspace(t *testing.T) {
	ws := testenv.FreeactFixture(t, "0.11.2")
	before := testenv.Snapshot(t, ws)
	if err := Init(ws); err != nil {
		t.Fatal(err)
	}
	c, err := Load(ws, LoadOptions{Lookup: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	testenv.Unchanged(t, ws, before)
	for _, name := range []string{AgentFile, "permissions.json"} {
		if _, err := os.Stat(filepath.Join(ws, ".freeact", name)); err == nil {
			t.Errorf("Init wrote %s beside freeact 0.11's files", name)
		}
	}
	o := c.Options
	if o.Model != "google-gla:gemini-3.6-flash" || o.ModelSettings.GoogleThinking.ThinkingLevel != "medium" ||
		*o.ModelSettings.Timeout != 120 || o.ToolSearch != "basic" || *o.ExecutionTimeout != 300 || o.ApprovalTimeout != nil {
		t.Errorf("options %+v", o)
	}
	if d := o.MCPServers["demo"]; !slices.Equal(d.ExcludedTools, []string{"sdk_version"}) || *d.ConnectTimeout != 30 {
		t.Errorf("mcp_servers.demo = %+v", d)
	}
	if _, ok := o.PTCServers["demo"]; !ok || len(o.PTCServers) != 1 {
		t.Errorf("ptc_servers = %+v", o.PTCServers)
	}
	src := c.Source
	if src.Format != formatTOML || src.File != filepath.Join(ws, ".freeact", ConfigTOML) ||
		!slices.Contains(src.ReadOnly, "model") || slices.Contains(src.ReadOnly, "python") {
		t.Errorf("source %+v", src)
	}
	if !noteWith(src.Notes, "[terminal]", "ignored") {
		t.Errorf("notes %q", src.Notes)
	}
	if c.SettingsFile() != src.File || !strings.Contains(src.Description(), "config.toml (freeact 0.11)") {
		t.Errorf("settings file %s, description %q", c.SettingsFile(), src.Description())
	}
}

// With both files, config.toml holds freeact's keys and agent.json only this
// app's own; the others in agent.json are named in a note.
func TestConfigTOMLBesideAgentJSON(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, ".freeact", ConfigTOML), "[agent]\nmodel = \"openai:gpt-5\"\nexecution_timeout = 0\n\n[agent.tools]\ndiscovery = \"off\"\nsearch = true\n")
	write(t, filepath.Join(ws, ".freeact", AgentFile), `{"model": "gemini-3-flash-preview", "max_subagents": 2, "python": "/opt/py/bin/python", "sandbox": true}`)
	c, err := Load(ws, LoadOptions{Lookup: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	o := c.Options
	if o.Model != "openai:gpt-5" || o.MaxSubagents != 5 || o.Python == nil || *o.Python != "/opt/py/bin/python" ||
		!o.Sandbox || o.ExecutionTimeout != nil || o.ToolSearch != "off" {
		t.Errorf("options %+v", o)
	}
	if !noteWith(c.Source.Notes, AgentFile, "model, max_subagents not read") ||
		!noteWith(c.Source.Notes, "search = true", "Google search", "ignored") {
		t.Errorf("notes %q", c.Source.Notes)
	}
}

// Keys of pydantic-ai that have no meaning here load and are noted.
func TestIgnoredKeysNoted(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, ".freeact", AgentFile), `{
  "model": "openai:gpt-5",
  "model_settings": {"logit_bias": {"1": 2}, "timeout": 30},
  "provider_settings": {"api_key": "${MY_KEY}", "base_url": "http://localhost:9/v1", "http_client": null},
  "mcp_servers": {"s": {"command": "srv", "tool_prefix": "x", "log_level": "debug", "read_timeout": 9, "cwd": "sub"},
                  "both": {"command": "srv", "timeout": 5, "connect_timeout": 7}}
}`)
	c, err := Load(ws, LoadOptions{Lookup: func(k string) (string, bool) { return map[string]string{"MY_KEY": "secret"}[k], k == "MY_KEY" }})
	if err != nil {
		t.Fatal(err)
	}
	if c.Options.ProviderSettings["api_key"] != "secret" {
		t.Errorf("provider_settings %v", c.Options.ProviderSettings)
	}
	if s := c.Options.MCPServers["s"]; *s.ReadTimeout != 9 || s.Cwd != filepath.Join(ws, "sub") {
		t.Errorf("server %+v", s)
	}
	// pydantic-ai's timeout is connect_timeout; this app's spelling wins.
	if b := c.Options.MCPServers["both"]; *b.ConnectTimeout != 7 {
		t.Errorf("connect_timeout %v", *b.ConnectTimeout)
	}
	for _, want := range [][]string{
		{"model_settings: logit_bias", "ignored"},
		{"provider_settings: http_client", "api_key, api_key_env, base_url, allow_http_key are used"},
		{"mcp_servers.s: log_level, tool_prefix", "ignored"},
	} {
		if !noteWith(c.Source.Notes, want...) {
			t.Errorf("no note with %q in %q", want, c.Source.Notes)
		}
	}
}

func TestConfigTOMLErrors(t *testing.T) {
	for _, tt := range []struct{ name, toml, want string }{
		{"syntax", "[agent]\nmodel = \n", "config.toml: line 2:"},
		{"unknown key", "[agent]\nmodle = \"x\"\n", `[agent]: unknown key "modle" (freeact 0.11's keys: tools, model,`},
		{"app key", "[agent]\npython = \"/usr/bin/python3\"\n", `"python" is this app's own key`},
		{"unknown table", "[agents]\n", "unknown table [agents]"},
		{"discovery", "[agent.tools]\ndiscovery = \"smart\"\n", `discovery = smart: want "basic", "hybrid" or "off"`},
		{"bad value", "[agent]\nmax_subagents = \"many\"\n", `key "max_subagents": value "many" is not valid`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			write(t, filepath.Join(ws, ".freeact", ConfigTOML), tt.toml)
			_, err := Load(ws, LoadOptions{Lookup: func(string) (string, bool) { return "", false }})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// config.toml and permissions.toml saved with a byte-order mark load.
func TestConfigTOMLWithBOM(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, ".freeact", ConfigTOML), "\ufeff[agent]\nmodel = \"openai:gpt-5\"\n")
	c, err := Load(ws, LoadOptions{Lookup: func(string) (string, bool) { return "", false }})
	if err != nil || c.Options.Model != "openai:gpt-5" {
		t.Fatalf("%v, %+v", err, c)
	}
}
