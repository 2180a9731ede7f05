// Package config owns a workspace's .freeact/ directory: scaffolding it
// from templates embedded in the binary, loading agent.json strictly with
// ${VAR} expansion from the process environment and the workspace .env,
// loading skills, rendering the system prompt, and turning "/skill args"
// prompts into skill tags. It also keeps the app-level settings and API
// keys, which live in the user's XDG config directory, never in a
// workspace.
package config

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/freeact/desktop/agent/apigen"
	"github.com/freeact/desktop/agent/permission"
	"github.com/freeact/desktop/internal/atomicfile"
)

//go:embed templates
var templates embed.FS

// Paths inside a workspace.
const (
	FreeactDir = ".freeact"
	AgentFile  = "agent.json"
	// SandboxFile is where the desktop app saves custom sandbox settings
	// (named by sandbox_config).
	SandboxFile = "sandbox-config.json"
	DotEnvFile  = ".env"
	AgentsMD    = "AGENTS.md"
	generated   = "generated"
	sessionsDir = "sessions"
	plansDir    = "plans"
)

// The folders of .freeact/generated, the kernel's PYTHONPATH entry: the
// Python packages generated from ptc_servers (agent/apigen writes them, one
// per server) and the tools the agent or the user saved.
const (
	MCPToolsFolder = "mcptools"
	GenToolsFolder = "gentools"
)

// GeneratedPath is .freeact/generated relative to the workspace.
func GeneratedPath() string { return filepath.Join(FreeactDir, generated) }

// MCPToolsDir is the folder, relative to the workspace, of the Python
// package generated for the ptc server named server
// (.freeact/generated/mcptools/<module name>), or of all of them when
// server is "".
func MCPToolsDir(server string) string {
	dir := filepath.Join(GeneratedPath(), MCPToolsFolder)
	if server == "" {
		return dir
	}
	return filepath.Join(dir, apigen.ModuleName(server))
}

// Config is a loaded workspace.
type Config struct {
	// Dir is the workspace (absolute); FreeactDir its .freeact folder.
	Dir        string
	FreeactDir string
	// Options is agent.json with every ${VAR} expanded.
	Options Options
	// Env resolves variables: the process environment, then .env.
	Env Env
	// Source says which files the options came from, and what of them was
	// accepted without effect.
	Source Source
	// Skills in load order; Warnings for what was skipped.
	Skills   []Skill
	Warnings []Warning
	// ProjectInstructions is the content of AGENTS.md, if any.
	ProjectInstructions string
}

// SettingsFile is the file the settings were read from: config.toml,
// agent.json, or agent.json to be when neither exists.
func (c *Config) SettingsFile() string {
	if c.Source.File != "" {
		return c.Source.File
	}
	return filepath.Join(c.FreeactDir, AgentFile)
}

// GeneratedDir is .freeact/generated, the kernel's PYTHONPATH entry.
func (c *Config) GeneratedDir() string { return filepath.Join(c.Dir, GeneratedPath()) }

// SessionsDir is .freeact/sessions.
func (c *Config) SessionsDir() string { return filepath.Join(c.FreeactDir, sessionsDir) }

// PlansDir is .freeact/plans.
func (c *Config) PlansDir() string { return filepath.Join(c.FreeactDir, plansDir) }

// ImagesDir is where images from code execution go: images_dir (relative
// to the workspace unless absolute), else images/ in the workspace.
func (c *Config) ImagesDir() string {
	if c.Options.ImagesDir == nil || *c.Options.ImagesDir == "" {
		return filepath.Join(c.Dir, "images")
	}
	if filepath.IsAbs(*c.Options.ImagesDir) {
		return *c.Options.ImagesDir
	}
	return filepath.Join(c.Dir, *c.Options.ImagesDir)
}

// Init scaffolds dir/.freeact from the embedded templates: agent.json with
// every default (unless freeact 0.11's config.toml is there), permissions.json
// with the default rules (unless freeact 0.11's permissions.toml is), the
// bundled skills, and the generated/mcptools, generated/gentools, plans and
// sessions folders. Files that exist are never touched; a deleted file is
// created again.
func Init(dir string) error {
	ws, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("init workspace %q: %w", dir, err)
	}
	fd := filepath.Join(ws, FreeactDir)
	for _, d := range []string{
		MCPToolsDir(""), filepath.Join(GeneratedPath(), GenToolsFolder),
		filepath.Join(FreeactDir, plansDir), filepath.Join(FreeactDir, sessionsDir),
	} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			return fmt.Errorf("init workspace: %w", err)
		}
	}
	// A workspace of freeact 0.11 keeps its settings in config.toml: an
	// agent.json of defaults beside it would only mislead.
	if _, err := os.Stat(filepath.Join(fd, ConfigTOML)); errors.Is(err, fs.ErrNotExist) {
		agentJSON, err := Defaults().Marshal()
		if err != nil {
			return fmt.Errorf("init workspace: %w", err)
		}
		if err := createFile(filepath.Join(fd, AgentFile), agentJSON); err != nil {
			return fmt.Errorf("init workspace: %w", err)
		}
	}
	if !permission.Exists(ws) {
		if _, err := permission.Open(ws); err != nil {
			return fmt.Errorf("init workspace: %w", err)
		}
	}
	// Everything under templates/freeact goes to .freeact as it is.
	const root = "templates/freeact"
	err = fs.WalkDir(templates, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := templates.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, root+"/")
		return createFile(filepath.Join(fd, filepath.FromSlash(rel)), data)
	})
	if err != nil {
		return fmt.Errorf("init workspace: %w", err)
	}
	return nil
}

// createFile writes data to name unless name exists.
func createFile(name string, data []byte) error {
	if _, err := os.Lstat(name); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return atomicfile.Write(name, data, 0o644)
}

// LoadOptions say where Load finds variables besides the workspace .env.
type LoadOptions struct {
	// Lookup reads the process environment; nil means os.LookupEnv.
	Lookup func(string) (string, bool)
	// APIKeys are used for variables that neither the environment nor .env
	// set (the keys stored with AppStore.SetAPIKey).
	APIKeys map[string]string
}

// Load reads the workspace at dir: its settings (.freeact/config.toml of
// freeact 0.11, else .freeact/agent.json, strictly; see Source; no file
// means all defaults) with ${VAR} expanded, the .env file, skills and
// AGENTS.md.
func Load(dir string, opts LoadOptions) (*Config, error) {
	lookup := opts.Lookup
	if lookup == nil {
		lookup = os.LookupEnv
	}
	ws, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("load workspace %q: %w", dir, err)
	}
	if st, err := os.Stat(ws); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("load workspace: %s is not a folder", ws)
	}
	c := &Config{Dir: ws, FreeactDir: filepath.Join(ws, FreeactDir)}

	dotFile := filepath.Join(ws, DotEnvFile)
	dotenv, err := ReadDotEnv(dotFile)
	if err != nil {
		return nil, err
	}
	c.Env = NewEnv(lookup, dotenv, dotFile)
	if len(opts.APIKeys) > 0 {
		c.Env = c.Env.WithFallback(opts.APIKeys)
	}

	if c.Options, c.Source, err = readSettings(c.FreeactDir); err != nil {
		return nil, err
	}
	if err := c.expand(c.SettingsFile()); err != nil {
		return nil, err
	}

	c.Skills, c.Warnings = LoadSkills(ws)
	switch md, err := os.ReadFile(filepath.Join(ws, AgentsMD)); {
	case err == nil:
		c.ProjectInstructions = strings.TrimSpace(string(md))
	case !errors.Is(err, fs.ErrNotExist):
		c.Warnings = append(c.Warnings, Warning{filepath.Join(ws, AgentsMD), "not read: " + err.Error()})
	}
	return c, nil
}

// expand replaces ${VAR} references in kernel_env, the server definitions,
// provider_settings and the Jupyter settings, and makes the working folders
// of local servers absolute (the workspace by default). Errors name the key,
// the value and the file.
func (c *Config) expand(file string) error {
	var errs []error
	for _, e := range expandOptions(&c.Options, c.Env, c.Dir) {
		e.File = file
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// expandOptions replaces the ${VAR} references of o from env (see
// Config.expand); each reference that cannot be replaced is a KeyError
// naming its key and where in the value it is.
func expandOptions(o *Options, env Env, dir string) []*KeyError {
	var errs []*KeyError
	exp := func(key, path string, s *string) {
		v, err := env.Expand(*s)
		if err != nil {
			msg := fmt.Sprintf("value %q: %v", *s, err)
			if secretKey(key) || strings.HasSuffix(path, "_secret") || strings.HasSuffix(path, ".oauth.id_token") {
				// Not the value: it may hold a token next to the ${VAR}.
				msg = err.Error()
			}
			if path != "" {
				msg = path + ": " + msg
			}
			errs = append(errs, &KeyError{Key: key, Path: path, Msg: msg})
			return
		}
		*s = v
	}
	expMap := func(key, path string, m map[string]string) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			v := m[k]
			p := k
			if path != "" {
				p = path + "." + k
			}
			exp(key, p, &v)
			m[k] = v
		}
	}
	expMap("kernel_env", "", o.KernelEnv)
	expMap("jupyter_headers", "", o.JupyterHeaders)
	for _, group := range []struct {
		key     string
		servers map[string]Server
	}{{"mcp_servers", o.MCPServers}, {"ptc_servers", o.PTCServers}} {
		for _, name := range slices.Sorted(maps.Keys(group.servers)) {
			s := group.servers[name]
			exp(group.key, name+".command", &s.Command)
			for i := range s.Args {
				exp(group.key, fmt.Sprintf("%s.args[%d]", name, i), &s.Args[i])
			}
			expMap(group.key, name+".env", s.Env)
			exp(group.key, name+".cwd", &s.Cwd)
			exp(group.key, name+".url", &s.URL)
			expMap(group.key, name+".headers", s.Headers)
			if s.OAuth != nil {
				o := *s.OAuth
				exp(group.key, name+".oauth.client_id", &o.ClientID)
				exp(group.key, name+".oauth.client_secret", &o.ClientSecret)
				exp(group.key, name+".oauth.private_key_file", &o.PrivateKeyFile)
				exp(group.key, name+".oauth.idp_client_secret", &o.IDPClientSecret)
				exp(group.key, name+".oauth.id_token", &o.IDToken)
				s.OAuth = &o
			}
			// A local server runs in the workspace, as under the Python
			// freeact (which runs there): relative paths in its command
			// line mean the same in both.
			if s.Command != "" && !filepath.IsAbs(s.Cwd) {
				s.Cwd = filepath.Join(dir, s.Cwd)
			}
			group.servers[name] = s
		}
	}
	for _, k := range slices.Sorted(maps.Keys(o.ProviderSettings)) {
		if v, ok := o.ProviderSettings[k].(string); ok {
			exp("provider_settings", k, &v)
			o.ProviderSettings[k] = v
		}
	}
	for _, kv := range []struct {
		key string
		p   *string
	}{
		{"python", o.Python}, {"jupyter_url", o.JupyterURL}, {"jupyter_token", o.JupyterToken},
		{"jupyter_workdir", o.JupyterWorkdir}, {"jupyter_ca_file", o.JupyterCAFile}, {"kernel_name", o.KernelName},
		{"jupyter_server_name", o.JupyterServerName}, {"jupyter_oauth_client_id", o.JupyterOAuthClientID},
		{"jupyter_oauth_client_secret", o.JupyterOAuthClientSecret}, {"jupyter_oauth_redirect_uri", o.JupyterOAuthRedirectURI},
	} {
		if kv.p != nil {
			exp(kv.key, "", kv.p)
		}
	}
	return errs
}

// secretKey tells the keys whose values are not shown in errors: tokens
// and the headers that carry them.
func secretKey(key string) bool {
	return key == "jupyter_url" || key == "jupyter_token" || key == "jupyter_headers" || key == "jupyter_oauth_client_secret"
}
