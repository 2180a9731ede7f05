package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/internal/strictjson"
)

// DefaultModel is the model a new workspace uses.
const DefaultModel = "gemini-3-flash-preview"

// Options is the content of .freeact/agent.json. The key names are the
// Python freeact's, so its files load unchanged. Pointer fields are
// nullable; nil means "none" (no timeout, the default images folder, no
// explicit interpreter...).
type Options struct {
	Model         string         `json:"model"`
	ModelSettings model.Settings `json:"model_settings"`
	// ProviderSettings are the model provider's keyword arguments in
	// pydantic-ai (which the Python freeact passes on): api_key and
	// base_url are used, with ${VAR} expanded; nil means the environment.
	ProviderSettings map[string]any `json:"provider_settings"`
	// ToolSearch is "basic" (categories), "hybrid" (BM25 + vector search)
	// or "off" (no tool-search tools, as freeact 0.11's discovery = "off").
	ToolSearch string `json:"tool_search"`
	// ImagesDir is where images from code execution are saved; nil means
	// images/ in the workspace.
	ImagesDir *string `json:"images_dir"`
	// ExecutionTimeout in seconds counts execution only, not approval
	// waits; nil means none.
	ExecutionTimeout *float64 `json:"execution_timeout"`
	// ApprovalTimeout in seconds fails a programmatic tool call whose
	// approval never comes; nil means none.
	ApprovalTimeout          *float64          `json:"approval_timeout"`
	ToolResultInlineMaxBytes int               `json:"tool_result_inline_max_bytes"`
	ToolResultPreviewChars   int               `json:"tool_result_preview_chars"`
	EnablePersistence        bool              `json:"enable_persistence"`
	EnableSubagents          bool              `json:"enable_subagents"`
	MaxSubagents             int               `json:"max_subagents"`
	KernelEnv                map[string]string `json:"kernel_env"`
	MCPServers               map[string]Server `json:"mcp_servers"`
	PTCServers               map[string]Server `json:"ptc_servers"`

	// Keys of this app beyond the Python freeact's.

	// Python is the kernel's interpreter; nil means the workspace .venv or
	// the app's own environment.
	Python *string `json:"python"`
	// JupyterURL runs code on an existing Jupyter server or kernel gateway
	// instead of a local one; JupyterToken is its token.
	JupyterURL   *string `json:"jupyter_url"`
	JupyterToken *string `json:"jupyter_token"`
	// Sandbox runs the local kernels under sandbox-runtime (srt):
	// filesystem and network limits at the OS level.
	Sandbox bool `json:"sandbox"`
	// SandboxConfig is an srt settings file that replaces the default
	// sandbox restrictions (relative to the workspace unless absolute);
	// nil means the defaults.
	SandboxConfig *string `json:"sandbox_config"`
}

// Server is an MCP server of mcp_servers or ptc_servers: a local process
// (command, args, env, cwd) or a streamable HTTP endpoint (url, headers).
type Server struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// ExcludedTools names tools of the server that are never offered to
	// the model nor generated as Python modules. freeact 0.11's spelling,
	// exclude_tools, is read into it too.
	ExcludedTools []string `json:"excluded_tools,omitempty"`
	// ConnectTimeout bounds starting the server and listing its tools, in
	// seconds; nil means the default (10 s).
	ConnectTimeout *float64 `json:"connect_timeout,omitempty"`
	// ReadTimeout is how long, in seconds, one tool call may take
	// (pydantic-ai's name; nil: five minutes).
	ReadTimeout *float64 `json:"read_timeout,omitempty"`

	// Ignored lists the keys of pydantic-ai's MCP server options that the
	// entry holds and this app has no use for (tool_prefix, log_level, ...).
	Ignored []string `json:"-"`
}

// pydanticAIServerKeys are the options of pydantic-ai's MCPServerStdio and
// MCPServerStreamableHTTP (which the Python freeact passes server entries
// to) that can be written in JSON and have no meaning here: tools are always
// prefixed with the server's name, and logging, retries, sampling and
// caching are this app's own business.
var pydanticAIServerKeys = []string{
	"tool_prefix", "log_level", "max_retries", "allow_sampling", "cache_tools", "cache_prompts",
	"cache_resources", "include_instructions", "include_return_schema", "id", "client_info",
}

// UnmarshalJSON reads a server entry strictly: the keys of Server, the
// spellings of the Python freeact (exclude_tools; pydantic-ai's timeout,
// which is connect_timeout), and pydantic-ai's other options (kept in
// Ignored).
func (s *Server) UnmarshalJSON(data []byte) error {
	type plain Server
	var all map[string]json.RawMessage
	if err := strictjson.Unmarshal(data, &all); err != nil {
		return err
	}
	var ignored []string
	var exclude []string
	var timeout *float64
	for k, raw := range all {
		switch {
		case k == "exclude_tools":
			if err := strictjson.Unmarshal(raw, &exclude); err != nil {
				return fmt.Errorf("exclude_tools: %w", err)
			}
			delete(all, k)
		case k == "timeout":
			if err := strictjson.Unmarshal(raw, &timeout); err != nil {
				return fmt.Errorf("timeout: %w", err)
			}
			delete(all, k)
		case slices.Contains(pydanticAIServerKeys, k):
			ignored = append(ignored, k)
			delete(all, k)
		}
	}
	rest, err := json.Marshal(all)
	if err != nil {
		return err
	}
	var v plain
	if err := strictjson.Unmarshal(rest, &v); err != nil {
		return err
	}
	for _, t := range exclude {
		if !slices.Contains(v.ExcludedTools, t) {
			v.ExcludedTools = append(v.ExcludedTools, t)
		}
	}
	if v.ConnectTimeout == nil {
		v.ConnectTimeout = timeout
	}
	slices.Sort(ignored)
	v.Ignored = ignored
	*s = Server(v)
	return nil
}

// Defaults returns the options of a new workspace.
func Defaults() Options {
	timeout := 300.0
	return Options{
		Model:                    DefaultModel,
		ModelSettings:            model.DefaultSettings(),
		ToolSearch:               "basic",
		ExecutionTimeout:         &timeout,
		ToolResultInlineMaxBytes: 32768,
		ToolResultPreviewChars:   2048,
		EnablePersistence:        true,
		EnableSubagents:          true,
		MaxSubagents:             5,
		KernelEnv:                map[string]string{},
		MCPServers:               map[string]Server{},
		PTCServers:               map[string]Server{},
	}
}

// OptionKey describes one key of agent.json: its name, what a valid value
// looks like (for errors), what it does (for the settings panel) and
// whether only this app reads it.
type OptionKey struct {
	Name        string
	Want        string
	Description string
	// AppOnly marks the keys of this app beyond the Python freeact's:
	// freeact 0.10 refuses an agent.json holding them, and freeact 0.11's
	// config.toml has no place for them.
	AppOnly bool
	dst     func(o *Options) any
}

var keys = []OptionKey{
	{"model", `a model string such as "gemini-3-flash-preview" or "openai:gpt-5"`,
		`The model, as "provider:name" (google:, openai:, anthropic:, ollama:) or a bare Gemini name.`, false,
		func(o *Options) any { return &o.Model }},
	{"model_settings", "an object of model settings",
		"Provider settings such as thinking; a JSON object.", false,
		func(o *Options) any { return &o.ModelSettings }},
	{"provider_settings", `an object such as {"api_key": "${MY_KEY}", "base_url": "https://..."} or null`,
		"The model provider's connection: api_key and base_url (with ${VAR} references); null uses the environment.", false,
		func(o *Options) any { return &o.ProviderSettings }},
	{"tool_search", `"basic", "hybrid" or "off"`,
		`How the agent finds Python tools: "basic" (categories), "hybrid" (BM25 + vector search) or "off".`, false,
		func(o *Options) any { return &o.ToolSearch }},
	{"images_dir", "a folder path or null",
		"Where images from code are saved; null means images/ in the workspace.", false,
		func(o *Options) any { return &o.ImagesDir }},
	{"execution_timeout", "seconds (a number) or null for none",
		"Seconds a code action may run (approval waits excluded); null for none.", false,
		func(o *Options) any { return &o.ExecutionTimeout }},
	{"approval_timeout", "seconds (a number) or null for none",
		"Seconds a programmatic tool call waits for approval; null for none.", false,
		func(o *Options) any { return &o.ApprovalTimeout }},
	{"tool_result_inline_max_bytes", "a positive whole number of bytes",
		"Tool results larger than this are saved to a file and replaced by a notice.", false,
		func(o *Options) any { return &o.ToolResultInlineMaxBytes }},
	{"tool_result_preview_chars", "a whole number of characters, 0 or more",
		"Characters of an offloaded result shown in its notice.", false,
		func(o *Options) any { return &o.ToolResultPreviewChars }},
	{"enable_persistence", "true or false",
		"Save sessions under .freeact/sessions.", false,
		func(o *Options) any { return &o.EnablePersistence }},
	{"enable_subagents", "true or false",
		"Let the agent start subagents for sub-tasks.", false,
		func(o *Options) any { return &o.EnableSubagents }},
	{"max_subagents", "a whole number, 1 or more",
		"How many subagents may run at once.", false,
		func(o *Options) any { return &o.MaxSubagents }},
	{"kernel_env", `an object of strings, e.g. {"NAME": "value"}`,
		`Environment variables for the kernel, e.g. {"NAME": "${VAR}"}.`, false,
		func(o *Options) any { return &o.KernelEnv }},
	{"mcp_servers", `an object of servers, e.g. {"name": {"command": "...", "args": [...]}}`,
		"MCP servers used through JSON tool calls.", false,
		func(o *Options) any { return &o.MCPServers }},
	{"ptc_servers", `an object of servers, e.g. {"name": {"command": "...", "args": [...]}}`,
		"MCP servers used from code through generated Python modules.", false,
		func(o *Options) any { return &o.PTCServers }},
	{"python", "the path of a Python interpreter or null",
		"The kernel's Python interpreter; null means the workspace .venv or the app's own.", true,
		func(o *Options) any { return &o.Python }},
	{"jupyter_url", "an http(s) URL of a Jupyter server or null",
		"Run code on this Jupyter server or kernel gateway instead of a local one; null for local.", true,
		func(o *Options) any { return &o.JupyterURL }},
	{"jupyter_token", "a string or null",
		"The token of jupyter_url's server.", true,
		func(o *Options) any { return &o.JupyterToken }},
	{"sandbox", "true or false",
		"Run code in the sandbox: no network, writes only in the workspace, .env unreadable (see the Sandbox tab).", true,
		func(o *Options) any { return &o.Sandbox }},
	{"sandbox_config", "the path of an srt settings file or null",
		"A sandbox-runtime settings file replacing the default sandbox rules; null for the defaults.", true,
		func(o *Options) any { return &o.SandboxConfig }},
}

// OptionKeys returns the keys of agent.json in the order the file and the
// settings panel show them.
func OptionKeys() []OptionKey { return slices.Clone(keys) }

// IsOptionKey reports whether name is a key of agent.json.
func IsOptionKey(name string) bool {
	return slices.ContainsFunc(keys, func(k OptionKey) bool { return k.Name == name })
}

func knownKeys() string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Name
	}
	return strings.Join(names, ", ")
}

// ParseOptions decodes agent.json content strictly on top of Defaults:
// unknown keys, wrong types and invalid values are errors naming the key,
// the value and file. Keys left out keep their defaults.
func ParseOptions(data []byte, file string) (Options, error) {
	o := Defaults()
	var raw map[string]json.RawMessage
	if err := strictjson.Unmarshal(data, &raw); err != nil {
		return o, fmt.Errorf("%s: not a JSON object: %w", file, err)
	}
	if raw == nil {
		return o, fmt.Errorf("%s: not a JSON object: want {\"model\": ..., ...}", file)
	}
	for name := range raw {
		if !IsOptionKey(name) {
			return o, fmt.Errorf("%s: unknown key %q (known keys: %s)", file, name, knownKeys())
		}
	}
	for _, k := range keys {
		value, ok := raw[k.Name]
		if !ok {
			continue
		}
		if err := decodeValue(value, k.dst(&o)); err != nil {
			return o, fmt.Errorf("%s: key %q: value %s is not valid (%v): want %s", file, k.Name, clip(value), err, k.Want)
		}
	}
	if err := o.validate(); err != nil {
		return o, fmt.Errorf("%s: %w", file, err)
	}
	return o, nil
}

// decodeValue decodes one value strictly; null is only accepted by
// pointer fields.
func decodeValue(value json.RawMessage, dst any) error {
	if string(bytes.TrimSpace(value)) == "null" {
		switch dst.(type) {
		case **string, **float64, *map[string]any:
		default:
			return errors.New("null is not allowed here")
		}
	}
	if err := strictjson.Unmarshal(value, dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			if typeErr.Field != "" {
				return fmt.Errorf("%s is a %s", typeErr.Field, typeErr.Value)
			}
			return fmt.Errorf("it is a %s", typeErr.Value)
		}
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

func (o Options) validate() error {
	bad := func(key string, value any, want string) error {
		return fmt.Errorf("key %q: value %v is not valid: want %s", key, value, want)
	}
	if _, err := model.ParseModelString(o.Model); err != nil {
		return fmt.Errorf("key \"model\": %w", err)
	}
	if !slices.Contains([]string{"basic", "hybrid", "off"}, o.ToolSearch) {
		return bad("tool_search", fmt.Sprintf("%q", o.ToolSearch), `"basic", "hybrid" or "off"`)
	}
	if o.ExecutionTimeout != nil && *o.ExecutionTimeout <= 0 {
		return bad("execution_timeout", *o.ExecutionTimeout, "a positive number of seconds, or null for none")
	}
	if o.ApprovalTimeout != nil && *o.ApprovalTimeout <= 0 {
		return bad("approval_timeout", *o.ApprovalTimeout, "a positive number of seconds, or null for none")
	}
	if o.ToolResultInlineMaxBytes <= 0 {
		return bad("tool_result_inline_max_bytes", o.ToolResultInlineMaxBytes, "a positive whole number of bytes")
	}
	if o.ToolResultPreviewChars < 0 {
		return bad("tool_result_preview_chars", o.ToolResultPreviewChars, "0 or more characters")
	}
	if o.MaxSubagents < 1 {
		return bad("max_subagents", o.MaxSubagents, "1 or more")
	}
	for _, group := range []struct {
		key     string
		servers map[string]Server
	}{{"mcp_servers", o.MCPServers}, {"ptc_servers", o.PTCServers}} {
		for name, s := range group.servers {
			if err := s.validate(); err != nil {
				return fmt.Errorf("key %q: server %q: %w", group.key, name, err)
			}
		}
	}
	if o.JupyterURL != nil && !strings.HasPrefix(*o.JupyterURL, "http://") && !strings.HasPrefix(*o.JupyterURL, "https://") {
		return bad("jupyter_url", fmt.Sprintf("%q", *o.JupyterURL), "an http:// or https:// URL, or null")
	}
	return nil
}

func (s Server) validate() error {
	switch {
	case s.Command == "" && s.URL == "":
		return errors.New(`needs "command" (a local server) or "url" (an HTTP server)`)
	case s.Command != "" && s.URL != "":
		return errors.New(`has both "command" and "url"; keep one`)
	case s.URL != "" && (len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != ""):
		return errors.New(`"args", "env" and "cwd" only apply to servers with "command"`)
	case s.Command != "" && len(s.Headers) > 0:
		return errors.New(`"headers" only apply to servers with "url"`)
	}
	for _, t := range s.ExcludedTools {
		if strings.TrimSpace(t) == "" {
			return errors.New(`"excluded_tools" holds an empty tool name`)
		}
	}
	for _, t := range []struct {
		key string
		v   *float64
	}{{"connect_timeout", s.ConnectTimeout}, {"read_timeout", s.ReadTimeout}} {
		if t.v != nil && *t.v <= 0 {
			return fmt.Errorf("%q %v: want a positive number of seconds", t.key, *t.v)
		}
	}
	return nil
}

// Marshal returns o as agent.json content, keys in a fixed order.
func (o Options) Marshal() ([]byte, error) {
	data, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// clip shortens a raw value for an error message.
func clip(v json.RawMessage) string {
	s := string(bytes.TrimSpace(v))
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
