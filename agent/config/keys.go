package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/internal/bounds"
	"github.com/freeact/desktop/internal/strictjson"
)

// Kind is what sort of value a key of agent.json takes. The settings forms
// pick their control by it, so a new key of a known kind needs nothing but
// its entry in keys.
type Kind string

// The kinds of keys.
const (
	KindBool    Kind = "bool"
	KindInteger Kind = "integer"
	KindNumber  Kind = "number"
	KindString  Kind = "string"
	// KindPath is a file or folder, relative to the workspace unless
	// absolute.
	KindPath Kind = "path"
	KindURL  Kind = "url"
	// KindSecret is a string the form masks (a token).
	KindSecret Kind = "secret"
	KindEnum   Kind = "enum"
	// KindModel is a model string (the model picker).
	KindModel Kind = "model"
	// KindStringMap is an object of strings (names and values, ${VAR}
	// allowed where the key expands them).
	KindStringMap Kind = "string_map"
	// KindServers is an object of MCP servers (Server).
	KindServers Kind = "servers"
	// KindModelSettings is model_settings (model.SettingKeys describes its
	// fields).
	KindModelSettings Kind = "model_settings"
	// KindProviderSettings is provider_settings: api_key and base_url.
	KindProviderSettings Kind = "provider_settings"
	// KindObject is any other JSON object; forms edit it as JSON.
	KindObject Kind = "object"
)

// Sections of the settings panel a key belongs to (its tab).
const (
	SectionModel   = "model"
	SectionAgent   = "agent"
	SectionKernel  = "kernel"
	SectionMCP     = "mcp"
	SectionSandbox = "sandbox"
)

// sectionTabs are the names of the settings panel's tabs, by section.
var sectionTabs = map[string]string{
	SectionModel: "Model", SectionAgent: "Agent", SectionKernel: "Kernel", SectionMCP: "MCP servers", SectionSandbox: "Sandbox",
}

// SettingsTab says where the settings panel shows the agent.json key
// (a dotted path names a field of an object key: model_settings.max_tokens):
// "Settings → Model". Messages that send the user to a setting take the
// place from here, so they name the tab the key is in.
func SettingsTab(key string) string {
	head, _, _ := strings.Cut(key, ".")
	k, ok := optionKey(head)
	if !ok || sectionTabs[k.Section] == "" {
		return "Settings"
	}
	return "Settings → " + sectionTabs[k.Section]
}

// What the names of a string map are.
const (
	NamesVariable = "variable"
	NamesHeader   = "header"
)

// Choice is one value of an enum key, with the words the form shows.
type Choice struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

// OptionKey describes one key of agent.json: how it decodes, what a valid
// value is, and what the settings forms show for it. A new key is a field
// of Options and one entry of keys; TestKeysCoverOptions holds the two
// together, and the forms and checks pick the entry up by its Kind.
type OptionKey struct {
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	// Section is the settings tab (SectionModel, ...), Group the heading
	// within it ("" for none).
	Section string `json:"section"`
	Group   string `json:"group"`
	// Label is the form's name for the key, Description what it does.
	Label       string `json:"label"`
	Description string `json:"description"`
	// Nullable keys take null, which NullLabel names ("no limit").
	Nullable  bool   `json:"nullable"`
	NullLabel string `json:"null_label,omitempty"`
	// Number bounds integer and number keys.
	Number bounds.Number `json:"number"`
	// Choices are the values of an enum key.
	Choices []Choice `json:"choices,omitempty"`
	// Placeholder is an example value for text fields.
	Placeholder string `json:"placeholder,omitempty"`
	// Names says what the names of a string map are: NamesVariable
	// (kernel_env) or NamesHeader (HTTP headers).
	Names string `json:"names,omitempty"`
	// Expands is set for keys whose ${VAR} references are replaced.
	Expands bool `json:"expands,omitempty"`
	// AppOnly marks the keys of this app beyond the Python freeact's:
	// freeact 0.10 refuses an agent.json holding them, and freeact 0.11's
	// config.toml has no place for them.
	AppOnly bool `json:"app_only,omitempty"`

	// want says what a valid value looks like, where Kind and Number do
	// not (objects, strings with a form).
	want string
	dst  func(o *Options) any
	// check validates the decoded value beyond its kind and bounds.
	check func(o *Options) *KeyError
}

// Want says what a valid value of the key looks like, for errors.
func (k OptionKey) Want() string {
	w := k.want
	switch {
	case w != "":
	case k.Kind == KindBool:
		w = "true or false"
	case k.Kind == KindEnum:
		quoted := make([]string, len(k.Choices))
		for i, c := range k.Choices {
			quoted[i] = fmt.Sprintf("%q", c.Value)
		}
		w = strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
	case k.Kind == KindInteger || k.Kind == KindNumber:
		w = k.Number.Want()
	default:
		w = "a string"
	}
	if k.Nullable {
		w += ", or null for " + k.NullLabel
	}
	return w
}

// ProviderSettingKeys are the keys of provider_settings the app uses:
// the endpoint's own key (api_key, or api_key_env naming its variable),
// its base URL, and allow_http_key, which lets the key go over plain
// http:// to another host.
var ProviderSettingKeys = []string{"api_key", "api_key_env", "base_url", "allow_http_key"}

var keys = []OptionKey{
	{Name: "model", Kind: KindModel, Section: SectionModel, Label: "Model",
		Description: `The model, as "provider:name" (google:, anthropic:, openai:, ollama:, ...) or a bare Gemini name.`,
		want:        `a model string such as "gemini-3-flash-preview" or "openai:gpt-5"`,
		dst:         func(o *Options) any { return &o.Model },
		check: func(o *Options) *KeyError {
			if _, err := model.ParseModelString(o.Model); err != nil {
				return &KeyError{Key: "model", Msg: err.Error()}
			}
			return nil
		}},
	{Name: "model_settings", Kind: KindModelSettings, Section: SectionModel, Label: "Model settings",
		Description: "Settings sent with each request: temperature, output length, thinking. A provider ignores what it has no use for.",
		want:        "an object of model settings",
		dst:         func(o *Options) any { return &o.ModelSettings }},
	{Name: "provider_settings", Kind: KindProviderSettings, Section: SectionModel, Label: "Provider connection",
		Description: "The provider's API key (api_key, or api_key_env naming the variable that holds it) and base URL, with ${VAR} references; they win over the environment. A key goes over plain http:// only to this machine unless allow_http_key is true.",
		Nullable:    true, NullLabel: "the environment", Expands: true,
		want: `an object such as {"api_key_env": "MY_KEY", "base_url": "https://..."}`,
		dst:  func(o *Options) any { return &o.ProviderSettings }},
	{Name: "tool_search", Kind: KindEnum, Section: SectionAgent, Group: "Tools", Label: "Python tool discovery",
		Description: "How the agent finds the Python tools under .freeact/generated.",
		Choices: []Choice{
			{"basic", "Categories: the agent lists them"},
			{"hybrid", "Search: keywords and embeddings"},
			{"off", "Off: no search tools"},
		},
		dst: func(o *Options) any { return &o.ToolSearch }},
	{Name: "images_dir", Kind: KindPath, Section: SectionAgent, Group: "Tools", Label: "Images folder",
		Description: "Where images from code are saved, relative to the workspace unless absolute.",
		Nullable:    true, NullLabel: "images/ in the workspace", Placeholder: "images",
		want: "a folder path",
		dst:  func(o *Options) any { return &o.ImagesDir }},
	{Name: "execution_timeout", Kind: KindNumber, Section: SectionAgent, Group: "Limits", Label: "Code action time limit",
		Description: "How long one code action may run. Time spent waiting for approvals does not count.",
		Nullable:    true, NullLabel: "no limit",
		Number: bounds.Number{Min: bounds.V(0), MinExclusive: true, Unit: "seconds"},
		dst:    func(o *Options) any { return &o.ExecutionTimeout }},
	{Name: "approval_timeout", Kind: KindNumber, Section: SectionAgent, Group: "Limits", Label: "Approval wait for tool calls from code",
		Description: "How long a tool call made from code waits for your answer before the code gets a timeout.",
		Nullable:    true, NullLabel: "no limit",
		Number: bounds.Number{Min: bounds.V(0), MinExclusive: true, Unit: "seconds"},
		dst:    func(o *Options) any { return &o.ApprovalTimeout }},
	{Name: "tool_result_inline_max_bytes", Kind: KindInteger, Section: SectionAgent, Group: "Limits", Label: "Largest result sent inline",
		Description: "Tool results larger than this are saved to a file; the model gets a notice with a preview instead.",
		Number:      bounds.Number{Min: bounds.V(0), MinExclusive: true, Integer: true, Unit: "bytes"},
		dst:         func(o *Options) any { return &o.ToolResultInlineMaxBytes }},
	{Name: "tool_result_preview_chars", Kind: KindInteger, Section: SectionAgent, Group: "Limits", Label: "Preview of a saved result",
		Description: "Characters of an offloaded result shown in its notice (half from the start, half from the end).",
		Number:      bounds.Number{Min: bounds.V(0), Integer: true, Unit: "characters"},
		dst:         func(o *Options) any { return &o.ToolResultPreviewChars }},
	{Name: "enable_persistence", Kind: KindBool, Section: SectionAgent, Group: "Sessions and subagents", Label: "Save sessions",
		Description: "Keep each conversation under .freeact/sessions, so it can be resumed.",
		dst:         func(o *Options) any { return &o.EnablePersistence }},
	{Name: "enable_subagents", Kind: KindBool, Section: SectionAgent, Group: "Sessions and subagents", Label: "Subagents",
		Description: "Let the agent hand self-contained tasks to subagents with kernels of their own.",
		dst:         func(o *Options) any { return &o.EnableSubagents }},
	{Name: "max_subagents", Kind: KindInteger, Section: SectionAgent, Group: "Sessions and subagents", Label: "Subagents at once",
		Description: "How many subagents may run at the same time; more wait for a slot.",
		Number:      bounds.Number{Min: bounds.V(1), Integer: true, Unit: "subagents"},
		dst:         func(o *Options) any { return &o.MaxSubagents }},
	{Name: "kernel_env", Kind: KindStringMap, Section: SectionKernel, Group: "Kernel", Label: "Environment variables",
		Description: "Variables set in the kernel and its shell commands. ${NAME} takes a value from the environment, .env or the stored API keys.",
		Names:       NamesVariable, Expands: true,
		want: `an object of strings, e.g. {"NAME": "value"}`,
		dst:  func(o *Options) any { return &o.KernelEnv }},
	{Name: "mcp_servers", Kind: KindServers, Section: SectionMCP, Label: "JSON tool servers",
		Description: "MCP servers whose tools the model calls directly, as JSON tool calls.", Expands: true,
		want: `an object of servers, e.g. {"name": {"command": "...", "args": [...]}}`,
		dst:  func(o *Options) any { return &o.MCPServers },
		check: func(o *Options) *KeyError {
			return checkServers("mcp_servers", o.MCPServers)
		}},
	{Name: "ptc_servers", Kind: KindServers, Section: SectionMCP, Label: "Code mode servers",
		Description: "MCP servers that code calls through generated Python modules (.freeact/generated/mcptools).", Expands: true,
		want: `an object of servers, e.g. {"name": {"command": "...", "args": [...]}}`,
		dst:  func(o *Options) any { return &o.PTCServers },
		check: func(o *Options) *KeyError {
			return checkServers("ptc_servers", o.PTCServers)
		}},
	{Name: "judge_model", Kind: KindString, Section: SectionAgent, Group: "Tools", Label: "Auto mode judge model",
		Description: `The model auto mode's judge asks about actions the sandbox does not bound, as "provider:name".`,
		Nullable:    true, NullLabel: "the conversation's model", Placeholder: "gemini-3-flash-preview", AppOnly: true,
		want: `a model string such as "gemini-3-flash-preview"`,
		dst:  func(o *Options) any { return &o.JudgeModel },
		check: func(o *Options) *KeyError {
			if o.JudgeModel == nil {
				return nil
			}
			if _, err := model.ParseModelString(*o.JudgeModel); err != nil {
				return &KeyError{Key: "judge_model", Msg: err.Error()}
			}
			return nil
		}},
	{Name: "python", Kind: KindPath, Section: SectionKernel, Group: "Kernel", Label: "Python interpreter",
		Description: "The interpreter the kernel runs (with ipykernel); ${VAR} allowed.",
		Nullable:    true, NullLabel: "the workspace .venv, else the app's own Python", Placeholder: "/usr/bin/python3",
		Expands: true, AppOnly: true,
		want: "the path of a Python interpreter",
		dst:  func(o *Options) any { return &o.Python }},
	{Name: "jupyter_url", Kind: KindURL, Section: SectionKernel, Group: "Remote Jupyter server", Label: "Server URL",
		Description: "Run code on this Jupyter server or kernel gateway instead of a local one.",
		Nullable:    true, NullLabel: "a local server", Placeholder: "http://host:8888", Expands: true, AppOnly: true,
		want: "an http:// or https:// URL",
		dst:  func(o *Options) any { return &o.JupyterURL },
		check: func(o *Options) *KeyError {
			if u := o.JupyterURL; u != nil && !strings.HasPrefix(*u, "http://") && !strings.HasPrefix(*u, "https://") {
				return &KeyError{Key: "jupyter_url", Msg: fmt.Sprintf("value %q is not valid: want an http:// or https:// URL, or null for a local server", withoutQuery(*u))}
			}
			return nil
		}},
	{Name: "jupyter_token", Kind: KindSecret, Section: SectionKernel, Group: "Remote Jupyter server", Label: "Server token",
		Description: "The token of the Jupyter server; ${VAR} keeps it out of the file.",
		Nullable:    true, NullLabel: "no token", Placeholder: "${JUPYTER_TOKEN}", Expands: true, AppOnly: true,
		want: "a string",
		dst:  func(o *Options) any { return &o.JupyterToken }},
	{Name: "jupyter_workdir", Kind: KindPath, Section: SectionKernel, Group: "Remote Jupyter server", Label: "Workspace on the server",
		Description: "Where code runs and the file tools work on the server, relative to the folder its kernels start in.",
		Nullable:    true, NullLabel: "the folder kernels start in", Placeholder: "projects/demo", Expands: true, AppOnly: true,
		want: "a folder path on the Jupyter server",
		dst:  func(o *Options) any { return &o.JupyterWorkdir }},
	{Name: "jupyter_headers", Kind: KindStringMap, Section: SectionKernel, Group: "Remote Jupyter server", Label: "Headers",
		Description: "Sent with every request to the server; an Authorization header replaces the token (JupyterHub: Bearer ${JUPYTERHUB_TOKEN}).",
		Names:       NamesHeader, Expands: true, AppOnly: true,
		want: `an object of strings, e.g. {"Authorization": "Bearer ${JUPYTERHUB_TOKEN}"}`,
		dst:  func(o *Options) any { return &o.JupyterHeaders },
		check: func(o *Options) *KeyError {
			for _, name := range slices.Sorted(maps.Keys(o.JupyterHeaders)) {
				if name == "" || strings.ContainsAny(name, " \t\r\n:") {
					return &KeyError{Key: "jupyter_headers", Path: name, Msg: fmt.Sprintf("value %q is not valid: want HTTP header names without spaces or colons", name)}
				}
			}
			return nil
		}},
	{Name: "jupyter_ca_file", Kind: KindPath, Section: SectionKernel, Group: "Remote Jupyter server", Label: "CA certificates",
		Description: "A PEM file of certificate authorities trusted for an https server, relative to the workspace unless absolute.",
		Nullable:    true, NullLabel: "the system's", Placeholder: "certs/ca.pem", Expands: true, AppOnly: true,
		want: "the path of a PEM file of CA certificates",
		dst:  func(o *Options) any { return &o.JupyterCAFile }},
	{Name: "jupyter_reconnect_timeout", Kind: KindNumber, Section: SectionKernel, Group: "Remote Jupyter server", Label: "Reconnect for",
		Description: "How long a broken connection to the server is tried again, keeping the kernel; 0 never reconnects.",
		Number:      bounds.Number{Min: bounds.V(0), Unit: "seconds"}, AppOnly: true,
		dst: func(o *Options) any { return &o.JupyterReconnectTimeout }},
	{Name: "kernel_name", Kind: KindString, Section: SectionKernel, Group: "Remote Jupyter server", Label: "Kernelspec",
		Description: "The kernel the server starts.",
		Nullable:    true, NullLabel: "the server's default", Placeholder: "python3", Expands: true, AppOnly: true,
		want: "a kernelspec name of the Jupyter server",
		dst:  func(o *Options) any { return &o.KernelName }},
	{Name: "jupyter_server_name", Kind: KindString, Section: SectionKernel, Group: "Remote Jupyter server", Label: "JupyterHub server",
		Description: "The named server to use on a JupyterHub (its administrator allows named servers).",
		Nullable:    true, NullLabel: "your default server", Placeholder: "gpu", Expands: true, AppOnly: true,
		want: "a server name of letters, digits, '-', '_' or '.'",
		dst:  func(o *Options) any { return &o.JupyterServerName },
		check: func(o *Options) *KeyError {
			if n := o.JupyterServerName; n != nil && !hubServerName.MatchString(*n) {
				return &KeyError{Key: "jupyter_server_name", Msg: fmt.Sprintf("value %q is not valid: want the name of one of your servers on the JupyterHub (letters, digits, '-', '_' or '.', at most 255, not beginning with '.'), or null for your default server", *n)}
			}
			return nil
		}},
	{Name: "jupyter_oauth_client_id", Kind: KindString, Section: SectionKernel, Group: "Remote Jupyter server", Label: "JupyterHub OAuth client",
		Description: "The client id the Hub's administrator registered for freeact; with it, Sign in opens the Hub in the browser.",
		Nullable:    true, NullLabel: "token sign-in only", Placeholder: "service-freeact", Expands: true, AppOnly: true,
		want: "a client id",
		dst:  func(o *Options) any { return &o.JupyterOAuthClientID }},
	{Name: "jupyter_oauth_client_secret", Kind: KindSecret, Section: SectionKernel, Group: "Remote Jupyter server", Label: "JupyterHub OAuth client secret",
		Description: "The client's secret (JupyterHub requires one; it is the service entry's api_token); ${VAR} keeps it out of the file.",
		Nullable:    true, NullLabel: "none", Placeholder: "${FREEACT_HUB_CLIENT_SECRET}", Expands: true, AppOnly: true,
		want: "a string",
		dst:  func(o *Options) any { return &o.JupyterOAuthClientSecret }},
	{Name: "jupyter_oauth_redirect_uri", Kind: KindURL, Section: SectionKernel, Group: "Remote Jupyter server", Label: "JupyterHub OAuth redirect URI",
		Description: "The loopback redirect URI registered for the client.",
		Nullable:    true, NullLabel: DefaultHubRedirectURI, Placeholder: DefaultHubRedirectURI, Expands: true, AppOnly: true,
		want: "an http://127.0.0.1:PORT/PATH URL",
		dst:  func(o *Options) any { return &o.JupyterOAuthRedirectURI },
		check: func(o *Options) *KeyError {
			if u := o.JupyterOAuthRedirectURI; u != nil && !loopbackRedirect.MatchString(*u) {
				return &KeyError{Key: "jupyter_oauth_redirect_uri", Msg: fmt.Sprintf("value %q is not valid: want the loopback redirect URI registered with the Hub, http://127.0.0.1:PORT/PATH, or null for %s", *u, DefaultHubRedirectURI)}
			}
			return nil
		}},
	{Name: "kernel_pool", Kind: KindBool, Section: SectionKernel, Group: "Kernel", Label: "Spare kernel",
		Description: "Keep a kernel started ahead, so a subagent's kernel is ready at once.",
		Nullable:    true, NullLabel: "automatic: locally when subagents are on", AppOnly: true,
		dst: func(o *Options) any { return &o.KernelPool }},
	{Name: "sandbox", Kind: KindBool, Section: SectionSandbox, Label: "Run code in the sandbox",
		Description: "No network, writes only in the workspace, .env unreadable (see the Sandbox tab).", AppOnly: true,
		dst: func(o *Options) any { return &o.Sandbox }},
	{Name: "sandbox_config", Kind: KindPath, Section: SectionSandbox, Label: "Sandbox rules file",
		Description: "A sandbox-runtime settings file replacing the default sandbox rules.",
		Nullable:    true, NullLabel: "the default rules", AppOnly: true,
		want: "the path of an srt settings file",
		dst:  func(o *Options) any { return &o.SandboxConfig }},
	{Name: "models", Kind: KindObject, Section: SectionModel, Group: "Custom models", Label: "Context windows and prices",
		Description: `Context windows and prices (US dollars per million tokens) for custom and local models, e.g. {"ollama:qwen3": {"context_window": 32768}}; "code_actions": "code_blocks" for a model without tool calls.`,
		AppOnly:     true,
		want:        `an object of models, e.g. {"ollama:qwen3": {"context_window": 32768, "input_price": 0, "output_price": 0}}`,
		dst:         func(o *Options) any { return &o.Models },
		check: func(o *Options) *KeyError {
			for _, name := range slices.Sorted(maps.Keys(o.Models)) {
				if err := o.Models[name].Validate(); err != nil {
					return &KeyError{Key: "models", Path: name, Msg: fmt.Sprintf("model %q: %v", name, err)}
				}
			}
			return nil
		}},
	{Name: "max_cost_per_session", Kind: KindNumber, Section: SectionAgent, Group: "Long sessions", Label: "Budget per session",
		Description: "The turn pauses and asks before a model call that would take the session's cost over this.",
		Nullable:    true, NullLabel: "no budget", AppOnly: true,
		Number: bounds.Number{Min: bounds.V(0), MinExclusive: true, Unit: "US dollars"},
		dst:    func(o *Options) any { return &o.MaxCostPerSession }},
	{Name: "compaction_threshold", Kind: KindNumber, Section: SectionAgent, Group: "Long sessions", Label: "Summarise older turns at",
		Description: "Older turns are summarised when a request would fill this share of the context window (0.1 to 1).",
		Nullable:    true, NullLabel: "no automatic compaction", AppOnly: true,
		Number: bounds.Number{Min: bounds.V(0.1), Max: bounds.V(1), Unit: "share of the context window"},
		want:   "a share of the context window between 0.1 and 1 (e.g. 0.8)",
		dst:    func(o *Options) any { return &o.CompactionThreshold }},
	{Name: "checkpoints", Kind: KindBool, Section: SectionAgent, Group: "Long sessions", Label: "Checkpoints",
		Description: "Record the workspace's files before each change, so changes can be reviewed and reverted.", AppOnly: true,
		dst: func(o *Options) any { return &o.Checkpoints }},
	{Name: "checkpoint_max_file_bytes", Kind: KindInteger, Section: SectionAgent, Group: "Long sessions", Label: "Largest file in a checkpoint",
		Description: "Files larger than this are left out of checkpoints.", AppOnly: true,
		Number: bounds.Number{Min: bounds.V(0), MinExclusive: true, Integer: true, Unit: "bytes"},
		dst:    func(o *Options) any { return &o.CheckpointMaxFileBytes }},
}

// OptionKeys returns the keys of agent.json in the order the file and the
// settings panel show them.
func OptionKeys() []OptionKey { return slices.Clone(keys) }

// IsOptionKey reports whether name is a key of agent.json.
func IsOptionKey(name string) bool {
	_, ok := optionKey(name)
	return ok
}

func optionKey(name string) (OptionKey, bool) {
	i := slices.IndexFunc(keys, func(k OptionKey) bool { return k.Name == name })
	if i < 0 {
		return OptionKey{}, false
	}
	return keys[i], true
}

func knownKeys() string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Name
	}
	return strings.Join(names, ", ")
}

// KeyError is what is wrong with one key of agent.json: the forms show Msg
// beside the key's field (or beside Path inside it), and Error names the
// file and key as well.
type KeyError struct {
	// File is the settings file ("" when the values come from a form).
	File string
	Key  string
	// Path is the part of the value that is wrong: a server name ("s"), a
	// field of it ("s.connect_timeout"), a model setting
	// ("google_thinking_config.thinking_level"); "" for the whole value.
	Path string
	// Msg says what is wrong and what a valid value looks like.
	Msg string
	// unknown marks a key agent.json does not have.
	unknown bool
}

func (e *KeyError) Error() string {
	file := ""
	if e.File != "" {
		file = e.File + ": "
	}
	if e.unknown {
		return fmt.Sprintf("%sunknown key %q %s", file, e.Key, strings.TrimPrefix(e.Msg, "unknown key "))
	}
	return fmt.Sprintf("%skey %q: %s", file, e.Key, e.Msg)
}

func unknownKey(file, name string) *KeyError {
	return &KeyError{File: file, Key: name, Msg: "unknown key (known keys: " + knownKeys() + ")", unknown: true}
}

// ParseOptions decodes agent.json content strictly on top of Defaults:
// unknown keys, wrong types and invalid values are errors naming the key,
// the value and file (a *KeyError). Keys left out keep their defaults.
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
			return o, unknownKey(file, name)
		}
	}
	for _, k := range keys {
		value, ok := raw[k.Name]
		if !ok {
			continue
		}
		if err := k.decode(value, &o); err != nil {
			err.File = file
			return o, err
		}
	}
	for _, k := range keys {
		if err := k.validate(&o); err != nil {
			err.File = file
			return o, err
		}
	}
	return o, nil
}

// CheckValues checks the given keys (agent.json values by key, as a form
// edits them) each on its own, as ParseOptions would, and returns what is
// wrong with each, in the order of the keys; nil when every value is
// valid.
func CheckValues(values map[string]json.RawMessage) []*KeyError {
	var errs []*KeyError
	for name := range values {
		if !IsOptionKey(name) {
			errs = append(errs, unknownKey("", name))
		}
	}
	slices.SortFunc(errs, func(a, b *KeyError) int { return strings.Compare(a.Key, b.Key) })
	for _, k := range keys {
		value, ok := values[k.Name]
		if !ok {
			continue
		}
		o := Defaults()
		err := k.decode(value, &o)
		if err == nil {
			err = k.validate(&o)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// decode reads one value strictly into o; null only where k is nullable.
func (k OptionKey) decode(value json.RawMessage, o *Options) *KeyError {
	fail := func(reason string) *KeyError {
		return &KeyError{Key: k.Name, Msg: fmt.Sprintf("value %s is not valid (%s): want %s", clip(value), reason, k.Want())}
	}
	if string(bytes.TrimSpace(value)) == "null" {
		if !k.Nullable {
			return fail("null is not allowed here")
		}
		// null leaves a pointer or map at nil.
		dst := reflect.ValueOf(k.dst(o)).Elem()
		dst.SetZero()
		return nil
	}
	err := strictjson.Unmarshal(value, k.dst(o))
	if err == nil {
		return nil
	}
	var se *model.SettingError
	if errors.As(err, &se) {
		msg := se.Msg
		if se.Path != "" {
			msg = se.Path + " " + se.Msg
		}
		return &KeyError{Key: k.Name, Path: se.Path, Msg: msg}
	}
	var serr *serverError
	if errors.As(err, &serr) {
		return &KeyError{Key: k.Name, Path: serr.path(), Msg: fmt.Sprintf("value %s is not valid (%v): want %s", clip(value), serr, k.Want())}
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		e := fail("it is a " + typeErr.Value)
		if typeErr.Field != "" {
			e = fail(fmt.Sprintf("%s is a %s", typeErr.Field, typeErr.Value))
			e.Path = typeErr.Field
		}
		return e
	}
	return fail(strings.TrimPrefix(err.Error(), "json: "))
}

// validate checks a decoded value: the bounds of a number, the choices of
// an enum, then the key's own check.
func (k OptionKey) validate(o *Options) *KeyError {
	bad := func(value any) *KeyError {
		return &KeyError{Key: k.Name, Msg: fmt.Sprintf("value %v is not valid: want %s", value, k.Want())}
	}
	v := reflect.ValueOf(k.dst(o)).Elem()
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	switch k.Kind {
	case KindInteger, KindNumber:
		var n float64
		switch v.Kind() {
		case reflect.Int, reflect.Int64:
			n = float64(v.Int())
		case reflect.Float64:
			n = v.Float()
		}
		if !k.Number.Contains(n) {
			return bad(n)
		}
	case KindEnum:
		s := v.String()
		if !slices.ContainsFunc(k.Choices, func(c Choice) bool { return c.Value == s }) {
			return bad(fmt.Sprintf("%q", s))
		}
	}
	if k.check != nil {
		return k.check(o)
	}
	return nil
}

// checkServers validates the servers of key.
func checkServers(key string, servers map[string]Server) *KeyError {
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		if err := servers[name].validate(); err != nil {
			err.server = name
			return &KeyError{Key: key, Path: err.path(), Msg: err.Error()}
		}
	}
	return nil
}

// serverError is what is wrong with a server entry: field names the key of
// the entry ("" for the entry as a whole).
type serverError struct {
	server string
	field  string
	msg    string
}

func (e *serverError) Error() string {
	if e.server != "" {
		return fmt.Sprintf("server %q: %s", e.server, e.msg)
	}
	return e.msg
}

func (e *serverError) path() string {
	switch {
	case e.field == "":
		return e.server
	case e.server == "":
		return e.field
	}
	return e.server + "." + e.field
}

func (s Server) validate() *serverError {
	switch {
	case s.Command == "" && s.URL == "":
		return &serverError{field: "command", msg: `needs "command" (a local server) or "url" (an HTTP server)`}
	case s.Command != "" && s.URL != "":
		return &serverError{field: "url", msg: `has both "command" and "url"; keep one`}
	case s.URL != "" && (len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != ""):
		return &serverError{field: "args", msg: `"args", "env" and "cwd" only apply to servers with "command"`}
	case s.Command != "" && len(s.Headers) > 0:
		return &serverError{field: "headers", msg: `"headers" only apply to servers with "url"`}
	}
	for _, t := range s.ExcludedTools {
		if strings.TrimSpace(t) == "" {
			return &serverError{field: "excluded_tools", msg: `"excluded_tools" holds an empty tool name`}
		}
	}
	for _, t := range []struct {
		key string
		v   *float64
	}{{"connect_timeout", s.ConnectTimeout}, {"read_timeout", s.ReadTimeout}} {
		if t.v != nil && !ServerTimeout.Contains(*t.v) {
			return &serverError{field: t.key, msg: fmt.Sprintf("%q %v: want %s", t.key, *t.v, ServerTimeout.Want())}
		}
	}
	return nil
}

// ServerTimeout bounds a server's connect_timeout and read_timeout.
var ServerTimeout = bounds.Number{Min: bounds.V(0), MinExclusive: true, Unit: "seconds"}

// DefaultHubRedirectURI is the loopback redirect URI of a JupyterHub's
// OAuth sign-in unless jupyter_oauth_redirect_uri names another: the
// administrator registers it with the Hub (docs/remote.md).
const DefaultHubRedirectURI = "http://127.0.0.1:47815/oauth/callback"

// hubServerName is a JupyterHub named server's name as freeact accepts it.
var hubServerName = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$`)

// loopbackRedirect is a loopback http redirect URI with a port.
var loopbackRedirect = regexp.MustCompile(`^http://(127\.0\.0\.1|localhost|\[::1\]):[0-9]{1,5}(/[^?#\s]*)?$`)
