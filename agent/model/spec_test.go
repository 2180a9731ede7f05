package model

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseModelString(t *testing.T) {
	tests := []struct {
		in                       string
		provider, name, base, ke string
		canonical                string
	}{
		{"gemini-3-flash-preview", "google", "gemini-3-flash-preview", "", "GEMINI_API_KEY", "google:gemini-3-flash-preview"},
		{"google:gemini-2.5-pro", "google", "gemini-2.5-pro", "", "GEMINI_API_KEY", "google:gemini-2.5-pro"},
		{"google-gla:gemini-2.5-flash", "google", "gemini-2.5-flash", "", "GEMINI_API_KEY", "google:gemini-2.5-flash"},
		{"openai:gpt-5", "openai", "gpt-5", "https://api.openai.com/v1", "OPENAI_API_KEY", "openai:gpt-5"},
		{"openai-responses:gpt-5", "openai", "gpt-5", "https://api.openai.com/v1", "OPENAI_API_KEY", "openai:gpt-5"},
		{"openai-chat:gpt-4.1", "openai", "gpt-4.1", "https://api.openai.com/v1", "OPENAI_API_KEY", "openai:gpt-4.1"},
		{"ollama:qwen3:8b", "ollama", "qwen3:8b", "http://localhost:11434/v1", "OLLAMA_API_KEY", "ollama:qwen3:8b"},
		{"openrouter:anthropic/claude-sonnet-4", "openrouter", "anthropic/claude-sonnet-4", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", "openrouter:anthropic/claude-sonnet-4"},
		{"anthropic:claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5", "https://api.anthropic.com", "ANTHROPIC_API_KEY", "anthropic:claude-sonnet-4-5"},
		{"lmstudio:local", "lmstudio", "local", "http://localhost:1234/v1", "LMSTUDIO_API_KEY", "lmstudio:local"},
		{" http://gpu-box:8000/v1/#Qwen/Qwen3-8B ", "url", "Qwen/Qwen3-8B", "http://gpu-box:8000/v1", "", "http://gpu-box:8000/v1#Qwen/Qwen3-8B"},
	}
	for _, tt := range tests {
		s, err := ParseModelString(tt.in)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if s.Provider != tt.provider || s.Name != tt.name || s.BaseURL != tt.base || s.KeyEnv != tt.ke || s.String() != tt.canonical {
			t.Errorf("%q parsed to %+v (%s)", tt.in, s, s)
		}
		again, err := ParseModelString(s.String())
		if err != nil || again != s {
			t.Errorf("%q: canonical form %q does not parse back (%+v, %v)", tt.in, s, again, err)
		}
	}
}

func TestParseModelStringErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `set "model" in agent.json`},
		{"mistral:large", `unknown provider "mistral" (known: google (or google-gla), anthropic, openai (or openai-chat, openai-responses), ollama`},
		{"google-vertex:gemini-3-flash-preview", "use google:gemini-3-flash-preview with a Gemini API key"},
		{"openai:", "model name after \"openai:\" is missing"},
		{"http://localhost:8000/v1", `e.g. "http://localhost:8000/v1#my-model"`},
	}
	for _, tt := range tests {
		_, err := ParseModelString(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want one containing %q", tt.in, err, tt.want)
		}
	}
}

func FuzzParseModelString(f *testing.F) {
	for _, s := range []string{"gemini-3-flash-preview", "google:x", "ollama:qwen3:8b", "http://h:1/v1#m", "a:b", ":", "https://#"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseModelString(s)
		if err != nil {
			return
		}
		if spec.Name == "" {
			t.Fatalf("%q parsed with an empty name", s)
		}
		again, err := ParseModelString(spec.String())
		if err != nil || again != spec {
			t.Fatalf("%q -> %q does not parse back: %+v, %v", s, spec, again, err)
		}
	})
}

func TestSettings(t *testing.T) {
	// model_settings as the Python freeact writes it.
	s, err := ParseSettings([]byte(`{"google_thinking_config": {"thinking_level": "high", "include_thoughts": true}, "temperature": 0.2, "max_tokens": 8192}`))
	if err != nil {
		t.Fatal(err)
	}
	g := s.GoogleThinking
	if g == nil || g.ThinkingLevel != "high" || g.IncludeThoughts == nil || !*g.IncludeThoughts || *s.Temperature != 0.2 || *s.MaxTokens != 8192 {
		t.Errorf("settings = %+v / %+v", s, g)
	}

	// The default thinking level is freeact's: medium.
	d, _ := json.Marshal(DefaultSettings())
	if string(d) != `{"google_thinking_config":{"include_thoughts":true,"thinking_level":"medium"},"anthropic_thinking":{"type":"enabled","budget_tokens":8192}}` {
		t.Errorf("default settings = %s", d)
	}

	// Keys of pydantic-ai's settings: timeout is used, the others are kept
	// aside as ignored; a misspelt key is still an error.
	s, err = ParseSettings([]byte(`{"timeout": 120, "logit_bias": {"50256": -100}, "google_safety_settings": [], "temperature": 0.5}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Timeout == nil || *s.Timeout != 120 || *s.Temperature != 0.5 {
		t.Errorf("settings = %+v", s)
	}
	if got := strings.Join(s.IgnoredKeys(), ","); got != "google_safety_settings,logit_bias" {
		t.Errorf("ignored keys = %s", got)
	}

	for _, tt := range []struct{ in, want string }{
		{`{"temprature": 1}`, `unknown key "temprature" (known top-level keys: max_tokens, temperature`},
		{`{"google_thinking_config": {"thinking_level": "extreme"}}`, `thinking_level "extreme": want minimal, low, medium or high`},
		{`{"openai_reasoning_effort": "max"}`, `openai_reasoning_effort "max"`},
		{`{"anthropic_thinking": {"type": "enabled", "budget_tokens": 100}}`, "budget_tokens 100: want a whole number of tokens, 1024 or more"},
		{`{"anthropic_thinking": {"budget_tokens": 2048}}`, "anthropic_thinking.type is missing"},
		{`{"temperature": 3}`, "model_settings: temperature 3: want a number between 0 and 2"},
		{`{"top_p": -0.5}`, "top_p -0.5: want a number between 0 and 1"},
		{`{"google_thinking_config": {"thinking_budget": "lots"}}`, "google_thinking_config.thinking_budget is a string: want a whole number of tokens, -1 or more"},
		{`{"anthropic_thinking": {"type": "on"}}`, `anthropic_thinking.type "on"`},
		{`{"max_tokens": "many"}`, "model_settings: max_tokens is a string: want a whole number of tokens, 1 or more"},
		{`{"timeout": 0}`, "timeout 0: want a positive number of seconds"},
		{`{"logit_bias": {}, "temprature": 1}`, `unknown key "temprature"`},
	} {
		_, err := ParseSettings([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want one containing %q", tt.in, err, tt.want)
		}
	}
}
