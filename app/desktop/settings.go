package desktop

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/freeact/desktop/agent/mcpglue"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/local"
	"github.com/freeact/desktop/agent/permission"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/internal/bounds"
	"github.com/freeact/desktop/internal/redact"
	"github.com/freeact/desktop/internal/strictjson"
)

// SettingField is one agent.json key in the settings form: what it is
// (its kind, bounds, choices and words, from config.OptionKeys) with its
// value and default as JSON text.
type SettingField struct {
	Key     string           `json:"key"`
	Info    config.OptionKey `json:"info"`
	Value   string           `json:"value"`
	Default string           `json:"default"`
	// Want says what a valid value looks like, in the words of the
	// errors.
	Want string `json:"want"`
	// ReadOnly is set for the keys that come from freeact 0.11's
	// config.toml, which this app never writes.
	ReadOnly bool `json:"read_only"`
	// Restart is set for the keys a running agent takes over only when it
	// starts again (Apply now).
	Restart bool `json:"restart"`
}

// FieldError is a validation error of one key ("" for the whole file), at
// Path inside its value ("" for the whole value).
type FieldError struct {
	Key     string `json:"key"`
	Path    string `json:"path"`
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
	current, src, err := config.RawSettings(dir)
	if err != nil {
		return nil, err
	}
	defaults := config.DefaultValues()
	restart := config.RestartKeys()
	keys := config.OptionKeys()
	out := make([]SettingField, 0, len(keys))
	for _, k := range keys {
		def := string(defaults[k.Name])
		v := def
		if raw, ok := current[k.Name]; ok {
			v = compact(raw)
		}
		out = append(out, SettingField{
			Key: k.Name, Info: k, Value: v, Default: def, Want: k.Want(),
			ReadOnly: slices.Contains(src.ReadOnly, k.Name), Restart: slices.Contains(restart, k.Name),
		})
	}
	return out, nil
}

// SettingsSchema is what the forms know beyond the keys: the providers of
// the model picker, the model settings, and the bounds of a server's
// timeouts.
type SettingsSchema struct {
	Providers     []model.Provider   `json:"providers"`
	ModelSettings []model.SettingKey `json:"model_settings"`
	ServerTimeout bounds.Number      `json:"server_timeout"`
}

// SettingsSchema returns the providers, model settings and server bounds
// the settings forms are built from.
func (d *Desktop) SettingsSchema() SettingsSchema {
	return SettingsSchema{Providers: model.Providers(), ModelSettings: model.SettingKeys(), ServerTimeout: config.ServerTimeout}
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

func compact(raw json.RawMessage) string { return string(config.CompactJSON(raw)) }

// formValues turns the form's JSON text into values; text that is no JSON
// is an error of its key.
func formValues(values map[string]string) (map[string]json.RawMessage, []FieldError) {
	out := make(map[string]json.RawMessage, len(values))
	errs := []FieldError{}
	for k, text := range values {
		text = strings.TrimSpace(text)
		if !json.Valid([]byte(text)) {
			errs = append(errs, FieldError{Key: k, Message: "not valid JSON: write a string in double quotes, a number, true/false, null or an object"})
			continue
		}
		out[k] = json.RawMessage(text)
	}
	slices.SortFunc(errs, func(a, b FieldError) int { return strings.Compare(a.Key, b.Key) })
	return out, errs
}

func fieldErrors(errs []*config.KeyError) []FieldError {
	out := make([]FieldError, len(errs))
	for i, e := range errs {
		out[i] = FieldError{Key: e.Key, Path: e.Path, Message: e.Msg}
	}
	return out
}

// CheckSettings checks form values (key -> JSON text) by the rules that
// load agent.json, without writing anything: the errors by key, none when
// every value is valid; with a workspace open, ${VAR} references must be
// set too. The form calls it as the user types.
func (d *Desktop) CheckSettings(values map[string]string) []FieldError {
	raw, errs := formValues(values)
	keyErrs := config.CheckValues(raw)
	errs = append(errs, fieldErrors(keyErrs)...)
	for _, e := range keyErrs {
		delete(raw, e.Key) // only valid values have references to check
	}
	if ws, err := d.current(); err == nil {
		refErrs, err := config.CheckReferences(ws.dir, raw, ws.open.LoadOptions())
		if err != nil {
			return append(errs, FieldError{Message: err.Error()})
		}
		errs = append(errs, fieldErrors(refErrs)...)
	}
	return errs
}

// SaveSettings validates the form and writes the keys it holds (one tab's)
// to agent.json; nothing is written when a value is invalid, and the
// errors come back by key. Keys read from freeact 0.11's config.toml are
// left out: that file is never written. The new settings apply from the
// next turn, except those PendingRestart names.
func (d *Desktop) SaveSettings(values map[string]string) ([]FieldError, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	raw, errs := formValues(values)
	if len(errs) > 0 {
		return errs, nil
	}
	keyErrs, err := config.SaveValues(ws.dir, raw, ws.open.LoadOptions())
	if err != nil {
		return nil, err
	}
	if len(keyErrs) > 0 {
		return fieldErrors(keyErrs), nil
	}
	ws.settingsChanged.Store(true)
	return []FieldError{}, nil
}

// SetAPIKey stores an API key (by its environment variable name, such as
// GEMINI_API_KEY) outside any workspace: in the OS keyring when one
// answers, else in the app's credentials file. An empty key removes it.
func (d *Desktop) SetAPIKey(name, key string) (config.KeyStorage, error) {
	where, err := d.store.SetAPIKey(name, strings.TrimSpace(key))
	if err != nil {
		return config.KeyStorage{}, err
	}
	// The next turn loads the settings again, and with them the key.
	if ws, err := d.current(); err == nil {
		ws.settingsChanged.Store(true)
	}
	return where, nil
}

// APIKeyNames lists the names of the stored API keys (never their values).
func (d *Desktop) APIKeyNames() ([]string, error) {
	keys, err := d.store.StoredKeys()
	if err != nil {
		return nil, fmt.Errorf("read API keys: %w", err)
	}
	out := []string{}
	for _, k := range keys {
		out = append(out, k.Name)
	}
	return out, nil
}

// APIKeyStatus is one API key variable the providers read, and where its
// value comes from.
type APIKeyStatus struct {
	Name string `json:"name"`
	// Providers are the labels of the providers that read it.
	Providers []string `json:"providers"`
	// Source is "environment", ".env", "keyring", "file" or "" (not set),
	// in the order the agent looks (an earlier one wins).
	Source string `json:"source"`
	// Stored is where the app keeps it ("keyring", "file" or ""), also
	// when an earlier source wins; Problem says why a stored key cannot be
	// read now.
	Stored  string `json:"stored"`
	Problem string `json:"problem,omitempty"`
}

// APIKeys is the API keys tab: where new keys go, and each key's status.
type APIKeys struct {
	Storage config.KeyStorage `json:"storage"`
	Keys    []APIKeyStatus    `json:"keys"`
}

// APIKeys lists the key variables of the providers that need one (and any
// other stored key) with where each value comes from, never the values.
func (d *Desktop) APIKeys() (APIKeys, error) {
	stored, err := d.store.StoredKeys()
	if err != nil {
		return APIKeys{}, fmt.Errorf("read API keys: %w", err)
	}
	var dotenv map[string]string
	if ws, err := d.current(); err == nil {
		dotenv, _ = config.ReadDotEnv(filepath.Join(ws.dir, config.DotEnvFile))
	}
	var out []APIKeyStatus
	index := map[string]int{}
	add := func(name string) *APIKeyStatus {
		if i, ok := index[name]; ok {
			return &out[i]
		}
		index[name] = len(out)
		out = append(out, APIKeyStatus{Name: name, Providers: []string{}})
		return &out[len(out)-1]
	}
	for _, p := range model.Providers() {
		if p.KeyEnv != "" && p.KeyRequired {
			s := add(p.KeyEnv)
			s.Providers = append(s.Providers, p.Label)
		}
	}
	for _, k := range stored {
		s := add(k.Name)
		s.Stored, s.Problem = k.Kind, k.Problem
	}
	for i := range out {
		s := &out[i]
		switch {
		case os.Getenv(s.Name) != "":
			s.Source = "environment"
		case dotenv[s.Name] != "":
			s.Source = config.DotEnvFile
		case s.Stored != "" && s.Problem == "":
			s.Source = s.Stored
		}
	}
	return APIKeys{Storage: d.store.KeyStorage(), Keys: out}, nil
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
	m := mcp.NewManager(map[string]config.Server{name: srv}, mcp.Options{ConnectTimeout: mcpTestTimeout, ClientName: adapter.AppName, Log: d.log})
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
	if err := mcpglue.GenerateTools(ctx, cfg, name); err != nil {
		return "", err
	}
	return config.MCPToolsDir(name), nil
}

// PreviewAlways says what the rule of an Always (or Session) answer to the
// pending approval id would allow, made from pattern (the suggested one,
// or as the user edited it), before anything is saved.
func (d *Desktop) PreviewAlways(id, pattern string) (permission.Preview, error) {
	ws, err := d.current()
	if err != nil {
		return permission.Preview{}, err
	}
	ws.mu.Lock()
	r, ok := ws.pending[id]
	ws.mu.Unlock()
	req, isApproval := r.(*agent.ApprovalRequest)
	if !ok || !isApproval {
		return permission.Preview{}, fmt.Errorf("approval %s is no longer pending", id)
	}
	return ws.open.Permissions.PreviewPattern(pattern, req.ToolCall.Permission()), nil
}

// PreviewRule says what a rule of the permissions editor allows.
func (d *Desktop) PreviewRule(rule permission.Rule) (permission.Preview, error) {
	ws, err := d.current()
	if err != nil {
		return permission.Preview{}, err
	}
	return ws.open.Permissions.PreviewRule(rule), nil
}

// RevokeSessionRule is RevokeGrant for the settings panel's permissions
// tab: it returns every rule left, saved ones included.
func (d *Desktop) RevokeSessionRule(rule permission.Rule) (PermissionRules, error) {
	if _, err := d.RevokeGrant(rule); err != nil {
		return PermissionRules{}, err
	}
	return d.Permissions()
}

// LocalModels is what a model server of the user's own lists, for the
// model picker.
type LocalModels struct {
	Models []local.Model `json:"models"`
	// Error says why the server could not be asked; "" when it answered.
	Error string `json:"error"`
}

// LocalModels asks the server of a local provider ("ollama", "lmstudio")
// or of a base URL (provider "url", base given) which models it offers:
// Ollama's /api/tags, else /v1/models. base "" means the provider's own
// endpoint (or its *_BASE_URL variable). It waits at most 3 s.
func (d *Desktop) LocalModels(providerID, base string) LocalModels {
	if base == "" {
		spec, err := model.ParseModelString(providerID + ":x")
		if err != nil || spec.BaseURL == "" {
			return LocalModels{Models: []local.Model{}, Error: fmt.Sprintf("the provider %q has no server to ask", providerID)}
		}
		base = spec.BaseURL
		if spec.BaseURLEnv != "" {
			u := os.Getenv(spec.BaseURLEnv)
			if ws, err := d.current(); err == nil {
				if cfg, err := ws.open.Load(); err == nil {
					u = cfg.Env.Getenv(spec.BaseURLEnv) // the workspace's .env too
				}
			}
			if u != "" {
				base = u
			}
		}
	}
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return LocalModels{Models: []local.Model{}, Error: fmt.Sprintf("%q is not a base URL like http://localhost:8080/v1", base)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	ms, err := local.Server{BaseURL: base}.Models(ctx)
	if err != nil {
		// The one redactor: a base URL's userinfo and key= stay out.
		return LocalModels{Models: []local.Model{}, Error: redact.Text(fmt.Sprintf("could not list the models at %s: %v", base, err))}
	}
	return LocalModels{Models: ms}
}
