package model

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/freeact/desktop/internal/bounds"
)

// Families of providers, by the model settings they use: Gemini,
// Anthropic's Messages API, and every OpenAI-compatible server.
const (
	FamilyGoogle    = "google"
	FamilyAnthropic = "anthropic"
	FamilyOpenAI    = "openai"
)

// Family returns the settings family of a parsed model string.
func (s Spec) Family() string {
	switch s.Provider {
	case "google":
		return FamilyGoogle
	case "anthropic":
		return FamilyAnthropic
	}
	return FamilyOpenAI
}

// SettingKey describes one model setting of model_settings for settings
// forms, and bounds its value. A new setting is a field of Settings and one
// entry of settingKeys: the forms and the checks pick it up.
type SettingKey struct {
	// Path is the key in model_settings; a dot names a field of an
	// object setting ("google_thinking_config.thinking_level").
	Path string `json:"path"`
	// Kind is "integer", "number", "bool", "enum" or "list" (of strings).
	Kind        string `json:"kind"`
	Label       string `json:"label"`
	Description string `json:"description"`
	// Number bounds integer and number settings.
	Number bounds.Number `json:"number"`
	// Choices are the values of an enum setting.
	Choices []string `json:"choices,omitempty"`
	// Families are the providers that use the setting (FamilyGoogle, ...);
	// the others ignore it.
	Families []string `json:"families"`
	// Models, when set, is a regular expression that the names of the
	// family's models having the setting match, and NotModels one that
	// the names of those without it match (written so that Go and
	// JavaScript read them alike). Unset: every model of the family.
	Models    string `json:"models,omitempty"`
	NotModels string `json:"not_models,omitempty"`
	// Want says what a valid value looks like, in the words of the
	// errors (filled in by SettingKeys).
	Want string `json:"want"`
	// Advanced settings are shown folded away.
	Advanced bool `json:"advanced,omitempty"`
	// Unset says, by family, what leaving the setting unset gives where
	// that differs between providers; forms show the words of the
	// conversation's provider only.
	Unset map[string]string `json:"unset,omitempty"`

	// get returns the value set (*int, *float64, *bool, string, []string;
	// nil or "" when unset).
	get func(s *Settings) any
	// foldCase compares an enum's choices without regard to case.
	foldCase bool
}

var allFamilies = []string{FamilyGoogle, FamilyAnthropic, FamilyOpenAI}

// Which models have the thinking settings, by name: Gemini before 3 has
// no thinking levels (a budget instead); Claude before 3.7 does not think;
// of OpenAI-compatible models only the reasoning ones take an effort
// (OpenAI's o-series and GPT-5, and gpt-oss, wherever served). A custom
// model of a server is assumed to have none.
const (
	beforeGemini3         = `^(?:models/)?gemini-(?:1|2)(?:[.-]|$)`
	claudeWithoutThinking = `^claude-(?:instant|2|3-(?:opus|sonnet|haiku|5-))`
	openAIReasoning       = `(?:^|/)(?:o[1-9]|gpt-5|gpt-oss)(?:[-.:]|$)`
)

// For reports whether the setting applies to the model of spec: its
// family uses it, and the model has it.
func (k SettingKey) For(spec Spec) bool {
	if !slices.Contains(k.Families, spec.Family()) {
		return false
	}
	if k.Models != "" && !regexp.MustCompile(k.Models).MatchString(spec.Name) {
		return false
	}
	return k.NotModels == "" || !regexp.MustCompile(k.NotModels).MatchString(spec.Name)
}

var settingKeys = []SettingKey{
	{Path: "google_thinking_config.thinking_level", Kind: "enum", Label: "Thinking level",
		Description: "How much Gemini 3 thinks before it answers.", Choices: []string{"minimal", "low", "medium", "high"},
		Families: []string{FamilyGoogle}, NotModels: beforeGemini3, foldCase: true,
		get: func(s *Settings) any {
			if s.GoogleThinking == nil {
				return ""
			}
			return s.GoogleThinking.ThinkingLevel
		}},
	{Path: "google_thinking_config.include_thoughts", Kind: "bool", Label: "Show thoughts",
		Description: "Gemini sends summaries of its thinking, shown above its answer.", Families: []string{FamilyGoogle},
		get: func(s *Settings) any {
			if s.GoogleThinking == nil {
				return nil
			}
			return s.GoogleThinking.IncludeThoughts
		}},
	{Path: "google_thinking_config.thinking_budget", Advanced: true, Kind: "integer", Label: "Thinking budget",
		Description: "Tokens Gemini 2.5 may think for; -1 lets it decide, 0 turns thinking off where the model allows.",
		Number:      bounds.Number{Min: bounds.V(-1), Integer: true, Unit: "tokens"}, Families: []string{FamilyGoogle},
		get: func(s *Settings) any {
			if s.GoogleThinking == nil {
				return nil
			}
			return s.GoogleThinking.ThinkingBudget
		}},
	{Path: "anthropic_thinking.type", Kind: "enum", Label: "Extended thinking",
		Description: "Whether Claude thinks before it answers.", Choices: []string{"enabled", "disabled"},
		Families: []string{FamilyAnthropic}, NotModels: claudeWithoutThinking,
		get: func(s *Settings) any {
			if s.AnthropicThinking == nil {
				return ""
			}
			return s.AnthropicThinking.Type
		}},
	{Path: "anthropic_thinking.budget_tokens", Kind: "integer", Label: "Thinking budget",
		Description: "Tokens Claude may think for (when thinking is enabled).",
		Number:      bounds.Number{Min: bounds.V(1024), Integer: true, Unit: "tokens"}, Families: []string{FamilyAnthropic}, NotModels: claudeWithoutThinking,
		get: func(s *Settings) any {
			if s.AnthropicThinking == nil || s.AnthropicThinking.Type != "enabled" {
				return nil
			}
			return &s.AnthropicThinking.BudgetTokens
		}},
	{Path: "openai_reasoning_effort", Kind: "enum", Label: "Reasoning effort",
		Description: "How much reasoning models (GPT-5, o3, ...) do before they answer. Unset: the server's default.",
		Choices:     []string{"none", "minimal", "low", "medium", "high"}, Families: []string{FamilyOpenAI}, Models: openAIReasoning,
		get: func(s *Settings) any { return s.OpenAIReasoningEffort }},
	{Path: "temperature", Kind: "number", Label: "Temperature",
		Description: "Randomness of the replies: lower is more focused, higher more varied. Unset: the provider's default.",
		Number:      bounds.Number{Min: bounds.V(0), Max: bounds.V(2)}, Families: allFamilies,
		get: func(s *Settings) any { return s.Temperature }},
	{Path: "max_tokens", Kind: "integer", Label: "Max output tokens",
		Description: "The most tokens one reply may have.",
		Unset: map[string]string{
			FamilyAnthropic: "16,384, plus the thinking budget when thinking is on (Claude's API needs a limit)",
			FamilyGoogle:    "the model's own limit (Gemini's default)",
			FamilyOpenAI:    "the server's default (usually the model's own limit)",
		},
		Number: bounds.Number{Min: bounds.V(1), Integer: true, Unit: "tokens"}, Families: allFamilies,
		get: func(s *Settings) any { return s.MaxTokens }},
	{Path: "top_p", Advanced: true, Kind: "number", Label: "Top p",
		Description: "Nucleus sampling: only the most likely tokens whose probabilities add up to this are considered.",
		Number:      bounds.Number{Min: bounds.V(0), Max: bounds.V(1)}, Families: allFamilies,
		get: func(s *Settings) any { return s.TopP }},
	{Path: "seed", Advanced: true, Kind: "integer", Label: "Seed",
		Description: "Makes sampling repeatable where the provider supports it.",
		Number:      bounds.Number{Integer: true}, Families: []string{FamilyGoogle, FamilyOpenAI},
		get: func(s *Settings) any { return s.Seed }},
	{Path: "presence_penalty", Advanced: true, Kind: "number", Label: "Presence penalty",
		Description: "Positive values make the model more likely to talk about new topics.",
		Number:      bounds.Number{Min: bounds.V(-2), Max: bounds.V(2)}, Families: []string{FamilyGoogle, FamilyOpenAI},
		get: func(s *Settings) any { return s.PresencePenalty }},
	{Path: "frequency_penalty", Advanced: true, Kind: "number", Label: "Frequency penalty",
		Description: "Positive values make the model less likely to repeat itself word for word.",
		Number:      bounds.Number{Min: bounds.V(-2), Max: bounds.V(2)}, Families: []string{FamilyGoogle, FamilyOpenAI},
		get: func(s *Settings) any { return s.FrequencyPenalty }},
	{Path: "stop_sequences", Advanced: true, Kind: "list", Label: "Stop sequences",
		Description: "The reply ends where it would write one of these.", Families: allFamilies,
		get: func(s *Settings) any { return s.StopSequences }},
	{Path: "parallel_tool_calls", Advanced: true, Kind: "bool", Label: "Parallel tool calls",
		Description: "Let one reply call several tools at once. Unset: the server's default.", Families: []string{FamilyOpenAI},
		get: func(s *Settings) any { return s.ParallelToolCalls }},
	{Path: "tool_choice", Advanced: true, Kind: "enum", Label: "Tool choice",
		Description: "Whether a reply may, may not or must call a tool. \"required\" makes every reply a call: a turn then ends only when a call is refused or at max_turns. Unset: the server's default (auto).",
		Choices:     []string{"auto", "none", "required"}, Families: []string{FamilyOpenAI},
		get: func(s *Settings) any { return s.ToolChoice }},
	{Path: "timeout", Advanced: true, Kind: "number", Label: "Request timeout",
		Description: "Seconds a model request may receive nothing before it is retried. Unset: 600.",
		Number:      bounds.Number{Min: bounds.V(0), MinExclusive: true, Unit: "seconds"}, Families: allFamilies,
		get: func(s *Settings) any { return s.Timeout }},
}

// SettingKeys returns the model settings the forms offer, in their order.
func SettingKeys() []SettingKey {
	out := slices.Clone(settingKeys)
	for i := range out {
		out[i].Want = out[i].want()
	}
	return out
}

// SettingError is an invalid model setting: Path names it ("temperature",
// "anthropic_thinking.budget_tokens"; "" for the whole object), Msg says
// what is wrong in words for the form beside it.
type SettingError struct {
	Path string
	Msg  string
}

func (e *SettingError) Error() string {
	if e.Path == "" {
		return "model_settings: " + e.Msg
	}
	return "model_settings: " + e.Path + " " + e.Msg
}

// check validates the settings against the table.
func (s *Settings) check() error {
	if a := s.AnthropicThinking; a != nil && a.Type == "" {
		return &SettingError{"anthropic_thinking.type", `is missing: want "enabled" or "disabled"`}
	}
	for _, k := range settingKeys {
		switch v := k.get(s).(type) {
		case string:
			if v == "" {
				continue
			}
			ok := slices.Contains(k.Choices, v)
			if k.foldCase {
				ok = slices.Contains(k.Choices, strings.ToLower(v))
			}
			if !ok {
				return &SettingError{k.Path, fmt.Sprintf("%q: want %s", v, orList(k.Choices))}
			}
		case *int:
			if v != nil && !k.Number.Contains(float64(*v)) {
				return &SettingError{k.Path, fmt.Sprintf("%d: want %s", *v, k.Number.Want())}
			}
		case *float64:
			if v != nil && !k.Number.Contains(*v) {
				return &SettingError{k.Path, fmt.Sprintf("%v: want %s", *v, k.Number.Want())}
			}
		}
	}
	return nil
}

// settingKey returns the key of path.
func settingKey(path string) (SettingKey, bool) {
	i := slices.IndexFunc(settingKeys, func(k SettingKey) bool { return k.Path == path })
	if i < 0 {
		return SettingKey{}, false
	}
	return settingKeys[i], true
}

// orList joins choices as "a, b or c".
func orList(choices []string) string {
	if len(choices) < 2 {
		return strings.Join(choices, "")
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}

// want says what a valid value of the setting looks like.
func (k SettingKey) want() string {
	switch k.Kind {
	case "enum":
		return orList(k.Choices)
	case "bool":
		return "true or false"
	case "list":
		return `a list of strings, e.g. ["END"]`
	}
	return k.Number.Want()
}
