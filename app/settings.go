package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/permission"
	"github.com/freeact/desktop/internal/atomicfile"
	"github.com/freeact/desktop/internal/strictjson"
)

// settingKeys are the agent.json keys the settings panel shows, in order,
// with what each one does.
var settingKeys = []struct{ key, description string }{
	{"model", `The model, as "provider:name" (google:, openai:, anthropic:, ollama:) or a bare Gemini name.`},
	{"model_settings", "Provider settings such as thinking; a JSON object."},
	{"tool_search", `How the agent finds Python tools: "basic" (categories) or "hybrid" (BM25 + vector search).`},
	{"images_dir", "Where images from code are saved; null means images/ in the workspace."},
	{"execution_timeout", "Seconds a code action may run (approval waits excluded); null for none."},
	{"approval_timeout", "Seconds a programmatic tool call waits for approval; null for none."},
	{"tool_result_inline_max_bytes", "Tool results larger than this are saved to a file and replaced by a notice."},
	{"tool_result_preview_chars", "Characters of an offloaded result shown in its notice."},
	{"enable_persistence", "Save sessions under .freeact/sessions."},
	{"enable_subagents", "Let the agent start subagents for sub-tasks."},
	{"max_subagents", "How many subagents may run at once."},
	{"kernel_env", `Environment variables for the kernel, e.g. {"NAME": "${VAR}"}.`},
	{"mcp_servers", "MCP servers used through JSON tool calls."},
	{"ptc_servers", "MCP servers used from code through generated Python modules."},
	{"python", "The kernel's Python interpreter; null means the workspace .venv or the app's own."},
	{"jupyter_url", "Run code on this Jupyter server or kernel gateway instead of a local one; null for local."},
	{"jupyter_token", "The token of jupyter_url's server."},
	{"sandbox", "Run code in the sandbox: no network, writes only in the workspace, .env unreadable (see the Sandbox tab)."},
	{"sandbox_config", "A sandbox-runtime settings file replacing the default sandbox rules; null for the defaults."},
}

// SettingField is one agent.json key in the settings form. Values are JSON
// text, so every type (numbers, null, objects) edits the same way.
type SettingField struct {
	Key         string `json:"key"`
	Value       string `json:"value"`
	Default     string `json:"default"`
	Description string `json:"description"`
}

// FieldError is a validation error of one key ("" for the whole file).
type FieldError struct {
	Key     string `json:"key"`
	Message string `json:"message"`
}

// Settings returns the workspace's agent.json as form fields.
func (d *Desktop) Settings() ([]SettingField, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	return readSettings(filepath.Join(ws.dir, config.FreeactDir, config.AgentFile))
}

func readSettings(file string) ([]SettingField, error) {
	defs, err := config.Defaults().Marshal()
	if err != nil {
		return nil, fmt.Errorf("default settings: %w", err)
	}
	var defaults, current map[string]json.RawMessage
	if err := json.Unmarshal(defs, &defaults); err != nil {
		return nil, fmt.Errorf("default settings: %w", err)
	}
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if len(data) > 0 {
		if err := json.Unmarshal(data, &current); err != nil {
			return nil, fmt.Errorf("%s is not valid JSON (%v): fix it in an editor", file, err)
		}
	}
	out := make([]SettingField, 0, len(settingKeys))
	for _, k := range settingKeys {
		def := compact(defaults[k.key])
		if def == "" {
			def = "null"
		}
		v := def
		if raw, ok := current[k.key]; ok {
			v = compact(raw)
		}
		out = append(out, SettingField{Key: k.key, Value: v, Default: def, Description: k.description})
	}
	return out, nil
}

func compact(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

var keyInError = regexp.MustCompile(`key "([a-z_]+)"`)

// validateSettings checks form values (key -> JSON text) with the same
// parser that loads agent.json, and returns the file content to write or
// the errors by key.
func validateSettings(values map[string]string) ([]byte, []FieldError) {
	var errs []FieldError
	var obj bytes.Buffer
	obj.WriteString("{\n")
	n := 0
	for _, k := range settingKeys {
		text, ok := values[k.key]
		if !ok {
			continue
		}
		text = strings.TrimSpace(text)
		if !json.Valid([]byte(text)) {
			errs = append(errs, FieldError{Key: k.key, Message: "not valid JSON: write a string in double quotes, a number, true/false, null or an object"})
			continue
		}
		one := fmt.Sprintf("{%q: %s}", k.key, text)
		if _, err := config.ParseOptions([]byte(one), config.AgentFile); err != nil {
			errs = append(errs, FieldError{Key: k.key, Message: fieldMessage(err)})
			continue
		}
		if n > 0 {
			obj.WriteString(",\n")
		}
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, []byte(text), "  ", "  "); err != nil {
			pretty.WriteString(text)
		}
		fmt.Fprintf(&obj, "  %q: %s", k.key, pretty.String())
		n++
	}
	for k := range values {
		if !knownSetting(k) {
			errs = append(errs, FieldError{Key: k, Message: "unknown key"})
		}
	}
	obj.WriteString("\n}\n")
	if len(errs) > 0 {
		return nil, errs
	}
	if _, err := config.ParseOptions(obj.Bytes(), config.AgentFile); err != nil {
		key := ""
		if m := keyInError.FindStringSubmatch(err.Error()); m != nil {
			key = m[1]
		}
		return nil, []FieldError{{Key: key, Message: fieldMessage(err)}}
	}
	return obj.Bytes(), nil
}

func knownSetting(k string) bool {
	for _, s := range settingKeys {
		if s.key == k {
			return true
		}
	}
	return false
}

// fieldMessage drops the file name and key the form already shows.
func fieldMessage(err error) string {
	m := strings.TrimPrefix(err.Error(), config.AgentFile+": ")
	if loc := keyInError.FindStringIndex(m); loc != nil && loc[0] == 0 {
		m = strings.TrimPrefix(m[loc[1]:], ": ")
	}
	return m
}

// SaveSettings validates the form and writes agent.json; nothing is written
// when a value is invalid, and the errors come back by key. The new
// settings apply from the next turn, except those PendingRestart names.
func (d *Desktop) SaveSettings(values map[string]string) ([]FieldError, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	data, errs := validateSettings(values)
	if len(errs) > 0 {
		return errs, nil
	}
	file := filepath.Join(ws.dir, config.FreeactDir, config.AgentFile)
	if err := atomicfile.Write(file, data, 0o644); err != nil {
		return nil, fmt.Errorf("write settings: %w", err)
	}
	ws.settingsChanged.Store(true)
	return []FieldError{}, nil
}

// SetAPIKey stores an API key (by its environment variable name, such as
// GEMINI_API_KEY) in the app's credentials, outside any workspace.
func (d *Desktop) SetAPIKey(name, key string) error {
	if !regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`).MatchString(name) {
		return fmt.Errorf("%q is not an environment variable name such as GEMINI_API_KEY", name)
	}
	if err := d.store.SetAPIKey(name, strings.TrimSpace(key)); err != nil {
		return fmt.Errorf("store API key: %w", err)
	}
	// The next turn loads the settings again, and with them the key.
	if ws, err := d.current(); err == nil {
		ws.settingsChanged.Store(true)
	}
	return nil
}

// APIKeyNames lists the names of the stored API keys (never their values).
func (d *Desktop) APIKeyNames() ([]string, error) {
	keys, err := d.store.APIKeys()
	if err != nil {
		return nil, fmt.Errorf("read API keys: %w", err)
	}
	out := []string{}
	for k := range keys {
		out = append(out, k)
	}
	return out, nil
}

// PermissionRules are the rules the permissions editor shows.
type PermissionRules struct {
	Always permission.Rules `json:"always"`
	// Session are the grants of the open conversation.
	Session permission.Rules `json:"session"`
}

// Permissions returns the workspace's saved rules and the grants of the
// open conversation.
func (d *Desktop) Permissions() (PermissionRules, error) {
	ws, err := d.current()
	if err != nil {
		return PermissionRules{}, err
	}
	return PermissionRules{Always: nonNil(ws.open.Permissions.Rules()), Session: nonNil(permission.Rules{Allow: ws.grants()})}, nil
}

// SessionGrants lists the grants of the open conversation: the rules its
// Session answers added, which allow calls in this conversation only.
func (d *Desktop) SessionGrants() ([]permission.Rule, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	return ws.grants(), nil
}

// RevokeGrant removes a grant of the open conversation (calls it allowed
// are asked again) and returns the grants left.
func (d *Desktop) RevokeGrant(rule permission.Rule) ([]permission.Rule, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	ws.mu.Lock()
	a := ws.agent
	ws.mu.Unlock()
	if a == nil || !a.RevokeGrant(rule) {
		return ws.grants(), fmt.Errorf("%s is not a grant of this conversation (it ended, or the grant was revoked already)", rule.Pattern())
	}
	return ws.grants(), nil
}

func nonNil(r permission.Rules) permission.Rules {
	if r.Allow == nil {
		r.Allow = []permission.Rule{}
	}
	if r.Ask == nil {
		r.Ask = []permission.Rule{}
	}
	return r
}

// SavePermissions replaces the saved rules (permissions.json).
func (d *Desktop) SavePermissions(rules permission.Rules) error {
	ws, err := d.current()
	if err != nil {
		return err
	}
	if err := ws.open.Permissions.SetAlways(rules); err != nil {
		return fmt.Errorf("save permissions: %w", err)
	}
	return nil
}

// mcpTestTimeout bounds TestMCPServer.
const mcpTestTimeout = 30 * time.Second

// TestMCPServer starts the MCP server described by serverJSON (one entry of
// mcp_servers or ptc_servers, ${VAR} references expanded from the
// workspace's environment), lists its tools and stops it. It returns the
// tool names, or the reason the server could not be reached.
func (d *Desktop) TestMCPServer(name, serverJSON string) ([]string, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	expanded, err := ws.cfg.Env.Expand(serverJSON)
	if err != nil {
		return nil, fmt.Errorf("server %s: %w", name, err)
	}
	var srv config.Server
	if err := strictjson.Unmarshal([]byte(expanded), &srv); err != nil {
		return nil, fmt.Errorf("server %s is not a valid server entry: %w", name, err)
	}
	if srv.Cwd == "" && srv.Command != "" {
		srv.Cwd = ws.dir
	}
	ctx, cancel := context.WithTimeout(d.host.context(), mcpTestTimeout)
	defer cancel()
	m := mcp.NewManager(map[string]config.Server{name: srv}, mcp.Options{ConnectTimeout: mcpTestTimeout, ClientName: AppName, Log: d.log})
	defer func() { _ = m.Close() }()
	tools, err := m.ServerTools(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("server %s: %w", name, err)
	}
	out := make([]string, 0, len(tools))
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out, nil
}

// RegenerateMCPTools generates the Python modules of a saved ptc_servers
// entry again (.freeact/generated/mcptools/<server>/), for a server whose
// tools changed. It returns where they went.
func (d *Desktop) RegenerateMCPTools(name string) (string, error) {
	ws, err := d.current()
	if err != nil {
		return "", err
	}
	cfg, err := ws.open.Load()
	if err != nil {
		return "", err
	}
	if _, ok := cfg.Options.PTCServers[name]; !ok {
		return "", fmt.Errorf("%q is not a saved ptc_servers entry: save the settings first", name)
	}
	ctx, cancel := context.WithTimeout(d.host.context(), mcpTestTimeout)
	defer cancel()
	if err := agent.GenerateMCPTools(ctx, cfg, name); err != nil {
		return "", err
	}
	return config.MCPToolsDir(name), nil
}
