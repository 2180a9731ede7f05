package model

import (
	"fmt"
	"net/url"
	"strings"
)

// Spec is a parsed model string.
type Spec struct {
	// Provider is the prefix: "google" (Gemini through genai), "anthropic"
	// (Claude's Messages API), "openai", "ollama", another OpenAI-compatible
	// preset, or "url" for a base URL.
	Provider string
	Name     string // the model name the provider knows
	// BaseURL is the endpoint; empty for google, whose client picks its own.
	BaseURL string
	// BaseURLEnv, when set in the environment, overrides BaseURL.
	BaseURLEnv string
	// KeyEnv is the environment variable holding the API key.
	KeyEnv string
	// KeyRequired is set for services that refuse requests without a key.
	KeyRequired bool
}

// Gemini reports whether the model is served by the Gemini API.
func (s Spec) Gemini() bool { return s.Provider == "google" }

// String returns the model string in canonical form.
func (s Spec) String() string {
	if s.Provider == "url" {
		return s.BaseURL + "#" + s.Name
	}
	return s.Provider + ":" + s.Name
}

// openAIPreset returns the defaults of an OpenAI-compatible service known by
// a short prefix.
func openAIPreset(prefix string) (Spec, bool) {
	switch prefix {
	case "openai":
		return Spec{BaseURL: "https://api.openai.com/v1", BaseURLEnv: "OPENAI_BASE_URL", KeyEnv: "OPENAI_API_KEY", KeyRequired: true}, true
	case "ollama":
		return Spec{BaseURL: "http://localhost:11434/v1", BaseURLEnv: "OLLAMA_BASE_URL", KeyEnv: "OLLAMA_API_KEY"}, true
	case "openrouter":
		return Spec{BaseURL: "https://openrouter.ai/api/v1", KeyEnv: "OPENROUTER_API_KEY", KeyRequired: true}, true
	case "deepseek":
		return Spec{BaseURL: "https://api.deepseek.com/v1", KeyEnv: "DEEPSEEK_API_KEY", KeyRequired: true}, true
	case "groq":
		return Spec{BaseURL: "https://api.groq.com/openai/v1", KeyEnv: "GROQ_API_KEY", KeyRequired: true}, true
	case "lmstudio":
		return Spec{BaseURL: "http://localhost:1234/v1", KeyEnv: "LMSTUDIO_API_KEY"}, true
	}
	return Spec{}, false
}

// knownPrefixes lists every accepted prefix, for error messages.
const knownPrefixes = "google (or google-gla), anthropic, openai (or openai-chat, openai-responses), ollama, openrouter, deepseek, groq, lmstudio"

// ParseModelString parses a model string of agent.json:
//
//	gemini-3-flash-preview             a bare name is a Gemini model
//	google:gemini-3-flash-preview      also google-gla: (pydantic-ai's name)
//	openai:gpt-5                       OPENAI_API_KEY, OPENAI_BASE_URL; also
//	                                   openai-chat: and openai-responses:
//	                                   (pydantic-ai's names), both through
//	                                   the chat completions API
//	ollama:qwen3                       OLLAMA_BASE_URL, default localhost:11434
//	openrouter:…, deepseek:…, groq:…, lmstudio:…
//	http://host:8000/v1#served-model   any OpenAI-compatible server
//	anthropic:claude-sonnet-4-5        ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL
func ParseModelString(s string) (Spec, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Spec{}, fmt.Errorf("model string is empty: set \"model\" in agent.json, e.g. \"google:gemini-3-flash-preview\"")
	}
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
		base, name, ok := strings.Cut(s, "#")
		if !ok || name == "" {
			return Spec{}, fmt.Errorf("model %q: put the model name after the base URL, e.g. %q", s, base+"#my-model")
		}
		if u, err := url.ParseRequestURI(base); err != nil || u.Host == "" {
			return Spec{}, fmt.Errorf("model %q: %q is not a base URL like http://host:8000/v1", s, base)
		}
		// No key variable: a server of the user's own gets only the key
		// assigned to it (provider_settings), never OPENAI_API_KEY.
		return Spec{Provider: "url", Name: name, BaseURL: strings.TrimRight(base, "/")}, nil
	}
	prefix, name, ok := strings.Cut(s, ":")
	if !ok {
		return Spec{Provider: "google", Name: s, KeyEnv: "GEMINI_API_KEY"}, nil
	}
	if name == "" {
		return Spec{}, fmt.Errorf("model %q: the model name after %q is missing", s, prefix+":")
	}
	switch prefix {
	case "google", "google-gla":
		return Spec{Provider: "google", Name: name, KeyEnv: "GEMINI_API_KEY"}, nil
	case "google-vertex":
		return Spec{}, fmt.Errorf("model %q: Vertex AI (google-vertex) is not supported: use google:%s with a Gemini API key", s, name)
	case "openai-chat", "openai-responses":
		prefix = "openai"
	case "anthropic":
		return Spec{Provider: "anthropic", Name: name, BaseURL: "https://api.anthropic.com", BaseURLEnv: "ANTHROPIC_BASE_URL", KeyEnv: "ANTHROPIC_API_KEY", KeyRequired: true}, nil
	}
	preset, ok := openAIPreset(prefix)
	if !ok {
		return Spec{}, fmt.Errorf("model %q: unknown provider %q (known: %s, or an OpenAI-compatible base URL like http://host:8000/v1#model)", s, prefix, knownPrefixes)
	}
	preset.Provider, preset.Name = prefix, name
	return preset, nil
}
