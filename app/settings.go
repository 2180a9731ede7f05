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
	"slices"
	"strings"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/permission"
	"github.com/freeact/desktop/internal/atomicfile"
	"github.com/freeact/desktop/internal/strictjson"
)

// SettingField is one agent.json key in the settings form. Values are JSON
// text, so every type (numbers, null, objects) edits the same way.
type SettingField struct {
	Key         string `json:"key"`
	Value       string `json:"value"`
	Default     string `json:"default"`
	Description string `json:"description"`
	// ReadOnly is set for the keys that come from freeact 0.11's
	// config.toml, which this app never writes.
	ReadOnly bool `json:"read_only"`
}

// FieldError is a validation error of one key ("" for the whole file).
type FieldError struct {
	Key     string `json:"key"`
	Message string `json:"message"`
}

// Settings returns the workspace's settings as form fields, in the order
// of agent.json, read from the files config.Source describes.
func (d *Desktop) Settings() ([]SettingField, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	return readSettings(ws.dir)
}

func readSettings(dir string) ([]SettingField, error) {
	defaults, err := defaultValues()
	if err != nil {
		return nil, err
	}
	current, src, err := config.RawSettings(dir)
	if err != nil {
		return nil, err
	}
	keys := config.OptionKeys()
	out := make([]SettingField, 0, len(keys))
	for _, k := range keys {
		def := defaults[k.Name]
		v := def
		if raw, ok := current[k.Name]; ok {
			v = compact(raw)
		}
		out = append(out, SettingField{Key: k.Name, Value: v, Default: def, Description: k.Description, ReadOnly: slices.Contains(src.ReadOnly, k.Name)})
	}
	return out, nil
}

// defaultValues are the defaults of every key as compact JSON text.
func defaultValues() (map[string]string, error) {
	defs, err := config.Defaults().Marshal()
	if err != nil {
		return nil, fmt.Errorf("default settings: %w", err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(defs, &raw); err != nil {
		return nil, fmt.Errorf("default settings: %w", err)
	}
	out := map[string]string{}
	for k, v := range raw {
		out[k] = compact(v)
	}
	return out, nil
}

// SettingsSource says where the settings panel's values come from.
type SettingsSource struct {
	// File is the settings file, relative to the workspace ("" when there
	// is none yet).
	File string `json:"file"`
	// Format is "agent.json", "config.toml (freeact 0.11)" or "defaults".
	Format      string `json:"format"`
	Description string `json:"description"`
	// Notes name what the files hold that has no effect here.
	Notes []string `json:"notes"`
}

// SettingsSource describes the files the settings come from, for the note
// at the top of the settings panel.
func (d *Desktop) SettingsSource() (SettingsSource, error) {
	ws, err := d.current()
	if err != nil {
		return SettingsSource{}, err
	}
	var src config.Source
	if cfg, err := ws.open.Load(); err == nil {
		src = cfg.Source
	} else if _, src, err = config.RawSettings(ws.dir); err != nil {
		return SettingsSource{}, err
	}
	out := SettingsSource{Format: src.Format, Description: src.Description(), Notes: src.Notes}
	if src.File != "" {
		out.File, _ = filepath.Rel(ws.dir, src.File)
	}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	return out, nil
}

func compact(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "null"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

var keyInError = regexp.MustCompile(`key "([a-z_]+)"`)

// validateSettings checks form values (key -> JSON text) with the same
// parser that loads agent.json, and returns the agent.json content to write
// or the errors by key. existing is agent.json as it is (nil when it does
// not exist); keys in readOnly (from config.toml) are not written, and the
// other keys existing holds are kept as they are. This app's own keys are
// written only when set or already in the file, so an agent.json that
// freeact 0.10 reads stays readable by it.
func validateSettings(values map[string]string, existing map[string]json.RawMessage, readOnly []string) ([]byte, []FieldError) {
	defaults, err := defaultValues()
	if err != nil {
		return nil, []FieldError{{Message: err.Error()}}
	}
	var errs []FieldError
	var obj bytes.Buffer
	obj.WriteString("{\n")
	n := 0
	add := func(key string, value []byte) {
		if n > 0 {
			obj.WriteString(",\n")
		}
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, value, "  ", "  "); err != nil {
			pretty.Write(value)
		}
		fmt.Fprintf(&obj, "  %q: %s", key, pretty.String())
		n++
	}
	for _, k := range config.OptionKeys() {
		text, ok := values[k.Name]
		old, inFile := existing[k.Name]
		switch {
		case slices.Contains(readOnly, k.Name):
			if inFile {
				add(k.Name, old)
			}
			continue
		case !ok:
			if inFile {
				add(k.Name, old)
			}
			continue
		}
		text = strings.TrimSpace(text)
		if !json.Valid([]byte(text)) {
			errs = append(errs, FieldError{Key: k.Name, Message: "not valid JSON: write a string in double quotes, a number, true/false, null or an object"})
			continue
		}
		one := fmt.Sprintf("{%q: %s}", k.Name, text)
		if _, err := config.ParseOptions([]byte(one), config.AgentFile); err != nil {
			errs = append(errs, FieldError{Key: k.Name, Message: fieldMessage(err)})
			continue
		}
		if k.AppOnly && !inFile && compact(json.RawMessage(text)) == defaults[k.Name] {
			continue
		}
		add(k.Name, []byte(text))
	}
	for k := range values {
		if !config.IsOptionKey(k) {
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

// fieldMessage drops the file name and key the form already shows.
func fieldMessage(err error) string {
	m := strings.TrimPrefix(err.Error(), config.AgentFile+": ")
	if loc := keyInError.FindStringIndex(m); loc != nil && loc[0] == 0 {
		m = strings.TrimPrefix(m[loc[1]:], ": ")
	}
	return m
}

// SaveSettings validates the form and writes agent.json; nothing is written
// when a value is invalid, and the errors come back by key. Keys read from
// freeact 0.11's config.toml are left out: that file is never written. The
// new settings apply from the next turn, except those PendingRestart names.
func (d *Desktop) SaveSettings(values map[string]string) ([]FieldError, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	_, src, err := config.RawSettings(ws.dir)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(ws.dir, config.FreeactDir, config.AgentFile)
	var existing map[string]json.RawMessage
	if data, err := os.ReadFile(file); err == nil {
		if err := strictjson.Unmarshal(data, &existing); err != nil {
			return nil, fmt.Errorf("%s is not valid JSON (%v): fix it in an editor", file, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	data, errs := validateSettings(values, existing, src.ReadOnly)
	if len(errs) > 0 {
		return errs, nil
	}
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
	// Imported are the rules of freeact 0.11's permissions.toml
	// (ImportedFile, relative to the workspace; "" when there is none):
	// they apply, and are shown read-only.
	Imported     permission.Rules `json:"imported,omitempty"`
	ImportedFile string           `json:"imported_file,omitempty"`
}

// Permissions returns the workspace's saved rules and the grants of the
// open conversation.
func (d *Desktop) Permissions() (PermissionRules, error) {
	ws, err := d.current()
	if err != nil {
		return PermissionRules{}, err
	}
	imported, file := ws.open.Permissions.Imported()
	if file != "" {
		file, _ = filepath.Rel(ws.dir, file)
	}
	return PermissionRules{Always: nonNil(ws.open.Permissions.Rules()), Session: nonNil(permission.Rules{Allow: ws.grants()}),
		Imported: nonNil(imported), ImportedFile: file}, nil
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
