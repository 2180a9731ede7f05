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

	// JudgeModel is the model auto mode's judge uses, as "provider:name";
	// nil means the conversation's model.
	JudgeModel *string `json:"judge_model"`

	// Python is the kernel's interpreter; nil means the workspace .venv or
	// the app's own environment.
	Python *string `json:"python"`
	// JupyterURL runs code on an existing Jupyter server or kernel gateway
	// instead of a local one; JupyterToken is its token.
	JupyterURL   *string `json:"jupyter_url"`
	JupyterToken *string `json:"jupyter_token"`
	// JupyterWorkdir is the workspace on the jupyter_url server, where
	// code runs and the file tools work: a path there, relative to the
	// folder kernels start in; nil means that folder.
	JupyterWorkdir *string `json:"jupyter_workdir"`
	// JupyterHeaders are sent with every request to jupyter_url (an
	// Authorization header replaces the token).
	JupyterHeaders map[string]string `json:"jupyter_headers"`
	// JupyterCAFile is a PEM file of CA certificates trusted for
	// jupyter_url besides the system's (relative to the workspace unless
	// absolute).
	JupyterCAFile *string `json:"jupyter_ca_file"`
	// JupyterReconnectTimeout is how many seconds a broken connection to
	// jupyter_url is tried again before the kernel counts as lost; 0 for
	// never.
	JupyterReconnectTimeout float64 `json:"jupyter_reconnect_timeout"`
	// KernelName is the kernelspec started on jupyter_url; nil means the
	// server's default.
	KernelName *string `json:"kernel_name"`
	// JupyterServerName is the user's named server on a JupyterHub
	// jupyter_url; nil means the default server.
	JupyterServerName *string `json:"jupyter_server_name"`
	// JupyterOAuthClientID, JupyterOAuthClientSecret and
	// JupyterOAuthRedirectURI are the OAuth client a JupyterHub's
	// administrator registered for freeact (a service entry): with a
	// client id the Hub's browser sign-in is offered. The redirect URI
	// defaults to DefaultHubRedirectURI.
	JupyterOAuthClientID     *string `json:"jupyter_oauth_client_id"`
	JupyterOAuthClientSecret *string `json:"jupyter_oauth_client_secret"`
	JupyterOAuthRedirectURI  *string `json:"jupyter_oauth_redirect_uri"`
	// KernelPool keeps a spare kernel started; nil means one locally when
	// subagents are on, none on a remote server.
	KernelPool *bool `json:"kernel_pool"`
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
	// the model nor generated as Python modules. freeact 0.11's spelling,
	// exclude_tools, is read into it too.
	ExcludedTools []string `json:"excluded_tools,omitempty"`
	// ConnectTimeout bounds starting the server and listing its tools, in
	// seconds; nil means the default (60 s).
	ConnectTimeout *float64 `json:"connect_timeout,omitempty"`
	// ReadTimeout is how long, in seconds, one tool call may take
	// (pydantic-ai's name; nil: five minutes).
	ReadTimeout *float64 `json:"read_timeout,omitempty"`
	// OAuth configures the sign-in to an HTTP server; nil means discovery
	// and dynamic registration do everything when the server asks.
	OAuth *OAuth `json:"oauth,omitempty"`

	// Ignored lists the keys of pydantic-ai's MCP server options that the
	// entry holds and this app has no use for (tool_prefix, log_level, ...).
	Ignored []string `json:"-"`
}

// OAuth is the "oauth" object of a server entry.
type OAuth struct {
	// ClientID and ClientSecret are a client registered with the
	// authorization server beforehand (${VAR} allowed).
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
	// Scopes replace the scopes discovery would ask for.
	Scopes []string `json:"scopes,omitempty"`
	// Grant is "authorization_code" (the default: the user signs in in the
	// browser), "client_credentials" (no user; client_secret or
	// private_key_file) or "enterprise" (see IDPTokenEndpoint).
	Grant string `json:"grant,omitempty"`
	// PrivateKeyFile and SigningAlgorithm (ES256, RS256) authenticate a
	// client_credentials client by private_key_jwt.
	PrivateKeyFile   string `json:"private_key_file,omitempty"`
	SigningAlgorithm string `json:"signing_algorithm,omitempty"`
	// ClientMetadataURL is the HTTPS URL of a client ID metadata document
	// describing this client, used as its client_id where the
	// authorization server accepts such documents.
	ClientMetadataURL string `json:"client_metadata_url,omitempty"`
	// IDPTokenEndpoint, IDPClientID, IDPClientSecret and IDToken
	// configure "grant": "enterprise" (enterprise-managed authorization,
	// SEP-990): the ID token the company's identity provider issued to
	// the user (e.g. "${IDP_ID_TOKEN}") is exchanged there for an ID-JAG
	// (RFC 8693), which the authorization server takes for a token
	// (RFC 7523 jwt-bearer grant) from the client_id and client_secret.
	IDPTokenEndpoint string `json:"idp_token_endpoint,omitempty"`
	IDPClientID      string `json:"idp_client_id,omitempty"`
	IDPClientSecret  string `json:"idp_client_secret,omitempty"`
	IDToken          string `json:"id_token,omitempty"`
	// PrivateKeyPEM is a key given in code (SDK), not read from JSON.
	PrivateKeyPEM string `json:"-"`
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
		if uk := (*strictjson.UnknownKeyError)(nil); errors.As(err, &uk) {
			return &serverError{field: uk.Key, msg: err.Error()}
		}
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
		JupyterHeaders:           map[string]string{},
		JupyterReconnectTimeout:  60,
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

// Marshal returns o as agent.json content, keys in a fixed order.
func (o Options) Marshal() ([]byte, error) {
	data, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// withoutQuery hides the query of a URL (a ?token=...) in messages.
func withoutQuery(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		return u[:i] + "?…"
	}
	return u
}

// clip shortens a raw value for an error message.
func clip(v json.RawMessage) string {
	s := string(bytes.TrimSpace(v))
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
