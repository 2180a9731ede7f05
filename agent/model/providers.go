package model

// Provider is a model provider as the settings' model picker offers it: its
// model-string prefix, the models known to be current there, and the API
// key it reads (from ParseModelString, the one place that knows).
type Provider struct {
	// ID is the prefix of the model string ("google", "anthropic", ...),
	// or "url" for any OpenAI-compatible server given by its base URL.
	ID    string `json:"id"`
	Label string `json:"label"`
	// Family says which model settings apply (FamilyGoogle, ...).
	Family string `json:"family"`
	// KeyEnv is the variable holding the API key; KeyRequired is set when
	// the provider refuses requests without one.
	KeyEnv      string `json:"key_env"`
	KeyRequired bool   `json:"key_required"`
	// Models are the provider's current models, the recommended first; a
	// local server's are examples of names to pull.
	Models []string `json:"models"`
	// Local providers run on this machine (Ollama, LM Studio).
	Local bool `json:"local"`
}

// providers lists the providers of the model picker. Model names change:
// a name not listed is entered as a custom one.
var providers = []struct {
	id, label string
	models    []string
	local     bool
}{
	{"google", "Google Gemini", []string{
		"gemini-3-flash-preview", "gemini-3-pro-preview", "gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite",
	}, false},
	{"anthropic", "Anthropic Claude", []string{
		"claude-sonnet-4-5", "claude-opus-4-5", "claude-haiku-4-5", "claude-opus-4-1", "claude-sonnet-4",
	}, false},
	{"openai", "OpenAI", []string{
		"gpt-5.1", "gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-4.1", "gpt-4.1-mini", "o3", "o4-mini",
	}, false},
	{"openrouter", "OpenRouter", []string{
		"anthropic/claude-sonnet-4.5", "google/gemini-3-pro-preview", "openai/gpt-5.1", "deepseek/deepseek-chat-v3.1", "qwen/qwen3-coder",
	}, false},
	{"deepseek", "DeepSeek", []string{"deepseek-chat", "deepseek-reasoner"}, false},
	{"groq", "Groq", []string{"openai/gpt-oss-120b", "moonshotai/kimi-k2-instruct-0905", "llama-3.3-70b-versatile"}, false},
	{"ollama", "Ollama (local)", []string{"qwen3", "gpt-oss:20b", "llama3.3", "qwen2.5-coder"}, true},
	{"lmstudio", "LM Studio (local)", []string{"qwen/qwen3-8b", "openai/gpt-oss-20b"}, true},
	{"url", "Other OpenAI-compatible server", nil, false},
}

// Providers returns the providers the model picker offers, in its order.
func Providers() []Provider {
	out := make([]Provider, 0, len(providers))
	for _, p := range providers {
		probe := p.id + ":x"
		if p.id == "url" {
			probe = "http://localhost:8000/v1#x"
		}
		spec, err := ParseModelString(probe)
		if err != nil {
			panic("model: provider " + p.id + " is not a model string prefix: " + err.Error())
		}
		out = append(out, Provider{
			ID: p.id, Label: p.label, Family: spec.Family(), KeyEnv: spec.KeyEnv, KeyRequired: spec.KeyRequired || spec.Gemini(),
			Models: append([]string{}, p.models...), Local: p.local, // [] for none: the window reads its length
		})
	}
	return out
}
