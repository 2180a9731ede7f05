package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/freeact/desktop/internal/strictjson"
)

// Settings are the "model_settings" of agent.json. The key names follow
// pydantic-ai's ModelSettings, which the Python freeact writes, so its
// workspaces load unchanged. Settings a provider has no use for are ignored
// by it (google_thinking_config by OpenAI-compatible servers, for example).
type Settings struct {
	MaxTokens         *int     `json:"max_tokens,omitempty"`
	Temperature       *float64 `json:"temperature,omitempty"`
	TopP              *float64 `json:"top_p,omitempty"`
	Seed              *int     `json:"seed,omitempty"`
	PresencePenalty   *float64 `json:"presence_penalty,omitempty"`
	FrequencyPenalty  *float64 `json:"frequency_penalty,omitempty"`
	StopSequences     []string `json:"stop_sequences,omitempty"`
	ParallelToolCalls *bool    `json:"parallel_tool_calls,omitempty"`

	// GoogleThinking configures Gemini's thinking.
	GoogleThinking *GoogleThinking `json:"google_thinking_config,omitempty"`
	// AnthropicThinking configures Claude's extended thinking.
	AnthropicThinking *AnthropicThinking `json:"anthropic_thinking,omitempty"`
	// OpenAIReasoningEffort is sent as reasoning_effort ("minimal", "low",
	// "medium", "high") to OpenAI-compatible servers.
	OpenAIReasoningEffort string `json:"openai_reasoning_effort,omitempty"`
}

// GoogleThinking is Gemini's thinking configuration.
type GoogleThinking struct {
	IncludeThoughts *bool  `json:"include_thoughts,omitempty"`
	ThinkingBudget  *int   `json:"thinking_budget,omitempty"`
	ThinkingLevel   string `json:"thinking_level,omitempty"` // minimal, low, medium, high
}

// AnthropicThinking is Claude's thinking configuration.
type AnthropicThinking struct {
	Type         string `json:"type"`                    // enabled or disabled
	BudgetTokens int    `json:"budget_tokens,omitempty"` // at least 1024 when enabled
}

// DefaultSettings returns the settings used when agent.json has no
// model_settings: thinking on (Gemini at a high level, Claude with an 8192
// token budget), thoughts included.
func DefaultSettings() Settings {
	include := true
	return Settings{
		GoogleThinking:    &GoogleThinking{IncludeThoughts: &include, ThinkingLevel: "high"},
		AnthropicThinking: &AnthropicThinking{Type: "enabled", BudgetTokens: 8192},
	}
}

// ParseSettings decodes the JSON object of "model_settings". An unknown key
// or a bad value is an error that names it.
func ParseSettings(data []byte) (Settings, error) {
	var s Settings
	if err := json.Unmarshal(data, &s); err != nil {
		return Settings{}, err
	}
	return s, nil
}

// UnmarshalJSON decodes settings strictly; see ParseSettings.
func (s *Settings) UnmarshalJSON(data []byte) error {
	type plain Settings
	var v plain
	if err := strictjson.Unmarshal(data, &v); err != nil {
		if uk := (*strictjson.UnknownKeyError)(nil); errors.As(err, &uk) {
			return fmt.Errorf("model_settings: unknown key %q (known top-level keys: %s)", uk.Key, strings.Join(jsonKeys(reflect.TypeFor[Settings]()), ", "))
		}
		return fmt.Errorf("model_settings: %w", err)
	}
	if g := v.GoogleThinking; g != nil && g.ThinkingLevel != "" &&
		!slices.Contains([]string{"minimal", "low", "medium", "high"}, strings.ToLower(g.ThinkingLevel)) {
		return fmt.Errorf("model_settings: google_thinking_config.thinking_level %q: want minimal, low, medium or high", g.ThinkingLevel)
	}
	if e := v.OpenAIReasoningEffort; e != "" &&
		!slices.Contains([]string{"none", "minimal", "low", "medium", "high"}, e) {
		return fmt.Errorf("model_settings: openai_reasoning_effort %q: want none, minimal, low, medium or high", e)
	}
	if a := v.AnthropicThinking; a != nil {
		switch {
		case a.Type != "enabled" && a.Type != "disabled":
			return fmt.Errorf("model_settings: anthropic_thinking.type %q: want enabled or disabled", a.Type)
		case a.Type == "enabled" && a.BudgetTokens < 1024:
			return fmt.Errorf("model_settings: anthropic_thinking.budget_tokens %d: want at least 1024", a.BudgetTokens)
		}
	}
	*s = Settings(v)
	return nil
}

func jsonKeys(t reflect.Type) []string {
	var keys []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		keys = append(keys, name)
	}
	return keys
}
