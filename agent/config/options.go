package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
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
	// ToolSearch is "basic" (categories) or "hybrid" (BM25 + vector search).
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

	// Long sessions (keyinfo.go describes each for settings forms).

	// Models adds or adjusts context windows and prices, by model string
	// or name, for custom and local models.
	Models map[string]model.Override `json:"models"`
	// MaxCostPerSession in US dollars pauses a turn before the model call
	// that would go over it and asks; nil means no budget.
	MaxCostPerSession *float64 `json:"max_cost_per_session"`
	// CompactionThreshold is the share of the context window at which
	// older turns are summarised; nil turns automatic compaction off.
	CompactionThreshold *float64 `json:"compaction_threshold"`
	// Checkpoints records the workspace's files before each code action
	// and file change, so they can be reviewed and reverted.
	Checkpoints bool `json:"checkpoints"`
	// CheckpointMaxFileBytes: larger files are left out of checkpoints.
	CheckpointMaxFileBytes int64 `json:"checkpoint_max_file_bytes"`
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
	// the model nor generated as Python modules.
	ExcludedTools []string `json:"excluded_tools,omitempty"`
	// ConnectTimeout bounds starting the server and listing its tools, in
	// seconds; nil means the default (10 s).
	ConnectTimeout *float64 `json:"connect_timeout,omitempty"`
}

// Defaults returns the options of a new workspace.
func Defaults() Options {
	timeout := 300.0
	threshold := DefaultCompactionThreshold
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
		Models:                   map[string]model.Override{},
		CompactionThreshold:      &threshold,
		Checkpoints:              true,
		CheckpointMaxFileBytes:   DefaultCheckpointMaxFileBytes,
	}
}

// Defaults of the long-session keys.
const (
	DefaultCompactionThreshold    = 0.8
	DefaultCheckpointMaxFileBytes = 10 << 20
)

// key describes one agent.json key for strict decoding.
type key struct {
	name string
	want string // what a valid value looks like, for errors
	dst  func(o *Options) any
}

var keys = []key{
	{"model", `a model string such as "gemini-3-flash-preview" or "openai:gpt-5"`, func(o *Options) any { return &o.Model }},
	{"model_settings", "an object of model settings", func(o *Options) any { return &o.ModelSettings }},
	{"tool_search", `"basic" or "hybrid"`, func(o *Options) any { return &o.ToolSearch }},
	{"images_dir", "a folder path or null", func(o *Options) any { return &o.ImagesDir }},
	{"execution_timeout", "seconds (a number) or null for none", func(o *Options) any { return &o.ExecutionTimeout }},
	{"approval_timeout", "seconds (a number) or null for none", func(o *Options) any { return &o.ApprovalTimeout }},
	{"tool_result_inline_max_bytes", "a positive whole number of bytes", func(o *Options) any { return &o.ToolResultInlineMaxBytes }},
	{"tool_result_preview_chars", "a whole number of characters, 0 or more", func(o *Options) any { return &o.ToolResultPreviewChars }},
	{"enable_persistence", "true or false", func(o *Options) any { return &o.EnablePersistence }},
	{"enable_subagents", "true or false", func(o *Options) any { return &o.EnableSubagents }},
	{"max_subagents", "a whole number, 1 or more", func(o *Options) any { return &o.MaxSubagents }},
	{"kernel_env", `an object of strings, e.g. {"NAME": "value"}`, func(o *Options) any { return &o.KernelEnv }},
	{"mcp_servers", `an object of servers, e.g. {"name": {"command": "...", "args": [...]}}`, func(o *Options) any { return &o.MCPServers }},
	{"ptc_servers", `an object of servers, e.g. {"name": {"command": "...", "args": [...]}}`, func(o *Options) any { return &o.PTCServers }},
	{"python", "the path of a Python interpreter or null", func(o *Options) any { return &o.Python }},
	{"jupyter_url", "an http(s) URL of a Jupyter server or null", func(o *Options) any { return &o.JupyterURL }},
	{"jupyter_token", "a string or null", func(o *Options) any { return &o.JupyterToken }},
	{"sandbox", "true or false", func(o *Options) any { return &o.Sandbox }},
	{"sandbox_config", "the path of an srt settings file or null", func(o *Options) any { return &o.SandboxConfig }},
	{"models", `an object of models, e.g. {"ollama:qwen3": {"context_window": 32768, "input_price": 0, "output_price": 0}}`, func(o *Options) any { return &o.Models }},
	{"max_cost_per_session", "US dollars (a number) or null for no budget", func(o *Options) any { return &o.MaxCostPerSession }},
	{"compaction_threshold", "a share of the context window between 0.1 and 1 (e.g. 0.8), or null for no automatic compaction", func(o *Options) any { return &o.CompactionThreshold }},
	{"checkpoints", "true or false", func(o *Options) any { return &o.Checkpoints }},
	{"checkpoint_max_file_bytes", "a positive whole number of bytes", func(o *Options) any { return &o.CheckpointMaxFileBytes }},
}

func knownKeys() string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.name
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
		if !slices.ContainsFunc(keys, func(k key) bool { return k.name == name }) {
			return o, fmt.Errorf("%s: unknown key %q (known keys: %s)", file, name, knownKeys())
		}
	}
	for _, k := range keys {
		value, ok := raw[k.name]
		if !ok {
			continue
		}
		if err := decodeValue(value, k.dst(&o)); err != nil {
			return o, fmt.Errorf("%s: key %q: value %s is not valid (%v): want %s", file, k.name, clip(value), err, k.want)
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
		case **string, **float64:
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
	if o.ToolSearch != "basic" && o.ToolSearch != "hybrid" {
		return bad("tool_search", fmt.Sprintf("%q", o.ToolSearch), `"basic" or "hybrid"`)
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
	for name, m := range o.Models {
		if err := m.Validate(); err != nil {
			return fmt.Errorf("key \"models\": model %q: %w", name, err)
		}
	}
	if c := o.MaxCostPerSession; c != nil && (*c <= 0 || math.IsNaN(*c) || math.IsInf(*c, 0)) {
		return bad("max_cost_per_session", *c, "a positive number of US dollars, or null for no budget")
	}
	if c := o.CompactionThreshold; c != nil && !(*c >= 0.1 && *c <= 1) {
		return bad("compaction_threshold", *c, "a share of the context window between 0.1 and 1, or null for no automatic compaction")
	}
	if o.CheckpointMaxFileBytes <= 0 {
		return bad("checkpoint_max_file_bytes", o.CheckpointMaxFileBytes, "a positive whole number of bytes")
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
	if s.ConnectTimeout != nil && *s.ConnectTimeout <= 0 {
		return fmt.Errorf(`"connect_timeout" %v: want a positive number of seconds`, *s.ConnectTimeout)
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
