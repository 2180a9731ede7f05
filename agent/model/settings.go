package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
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
	// ToolChoice is sent as tool_choice ("auto", "none" or "required") to
	// OpenAI-compatible servers with the tools. "required" makes every
	// reply a call, so a turn ends only at a refusal or max_turns: it is
	// for local models that call tools only when a grammar makes them.
	ToolChoice string `json:"tool_choice,omitempty"`

	// GoogleThinking configures Gemini's thinking.
	GoogleThinking *GoogleThinking `json:"google_thinking_config,omitempty"`
	// AnthropicThinking configures Claude's extended thinking.
	AnthropicThinking *AnthropicThinking `json:"anthropic_thinking,omitempty"`
	// OpenAIReasoningEffort is sent as reasoning_effort ("minimal", "low",
	// "medium", "high") to OpenAI-compatible servers.
	OpenAIReasoningEffort string `json:"openai_reasoning_effort,omitempty"`
	// Timeout, in seconds, is how long a model request may go without
	// receiving anything before it fails and is retried (pydantic-ai passes
	// it to httpx, whose read timeout is the same bound); nil means ten
	// minutes.
	Timeout *float64 `json:"timeout,omitempty"`

	// Ignored holds the keys of pydantic-ai's model settings that this app
	// accepts but has no use for (logit_bias, google_safety_settings, ...),
	// with their values, so a workspace of the Python freeact loads.
	Ignored map[string]json.RawMessage `json:"-"`
}

// pydanticAIKeys are the model settings of pydantic-ai (ModelSettings and
// its Google, Anthropic and OpenAI variants, as of pydantic-ai 1.107) that
// Settings has no field for: accepted and ignored.
var pydanticAIKeys = []string{
	"top_k", "logit_bias", "extra_headers", "extra_body", "thinking", "service_tier",
	"google_safety_settings", "google_labels", "google_video_resolution", "google_cached_content",
	"google_logprobs", "google_top_logprobs", "google_cloud_service_tier", "google_vertex_service_tier",
	"google_service_tier",
	"anthropic_metadata", "anthropic_cache_tool_definitions", "anthropic_service_tier",
	"anthropic_cache_instructions", "anthropic_cache_messages", "anthropic_cache", "anthropic_effort",
	"anthropic_task_budget", "anthropic_container", "anthropic_code_execution_tool_version",
	"anthropic_eager_input_streaming", "anthropic_betas", "anthropic_speed", "anthropic_context_management",
	"openai_logprobs", "openai_top_logprobs", "openai_store", "openai_user", "openai_service_tier",
	"openai_prediction", "openai_prompt_cache_key", "openai_prompt_cache_retention",
	"openai_continuous_usage_stats", "openai_native_tools", "openai_reasoning_generate_summary",
	"openai_reasoning_summary", "openai_send_reasoning_ids", "openai_truncation", "openai_text_verbosity",
	"openai_previous_response_id", "openai_conversation_id", "openai_include_code_execution_outputs",
	"openai_include_web_search_sources", "openai_include_file_search_results",
	"openai_include_raw_annotations", "openai_context_management",
}

// IgnoredKeys lists the accepted keys that have no effect here, sorted.
func (s Settings) IgnoredKeys() []string { return slices.Sorted(maps.Keys(s.Ignored)) }

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
// model_settings: thinking on (Gemini at the medium level, as the Python
// freeact sets it; Claude with an 8192 token budget), thoughts included.
func DefaultSettings() Settings {
	include := true
	return Settings{
		GoogleThinking:    &GoogleThinking{IncludeThoughts: &include, ThinkingLevel: "medium"},
		AnthropicThinking: &AnthropicThinking{Type: "enabled", BudgetTokens: 8192},
	}
}

// ParseSettings decodes the JSON object of "model_settings". Keys of
// pydantic-ai's settings that have no effect here are kept in Ignored; any
// other unknown key, or a bad value, is an error that names it.
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
	var all map[string]json.RawMessage
	if err := strictjson.Unmarshal(data, &all); err == nil {
		for k, raw := range all {
			if slices.Contains(pydanticAIKeys, k) {
				if v.Ignored == nil {
					v.Ignored = map[string]json.RawMessage{}
				}
				v.Ignored[k] = raw
				delete(all, k)
			}
		}
		if v.Ignored != nil {
			if data, err = json.Marshal(all); err != nil {
				return fmt.Errorf("model_settings: %w", err)
			}
		}
	}
	if err := strictjson.Unmarshal(data, &v); err != nil {
		if uk := (*strictjson.UnknownKeyError)(nil); errors.As(err, &uk) {
			return &SettingError{Msg: fmt.Sprintf("unknown key %q (known top-level keys: %s)", uk.Key, strings.Join(jsonKeys(reflect.TypeFor[Settings]()), ", "))}
		}
		if te := (*json.UnmarshalTypeError)(nil); errors.As(err, &te) && te.Field != "" {
			msg := "is a " + te.Value
			if k, ok := settingKey(te.Field); ok {
				msg += ": want " + k.want()
			}
			return &SettingError{te.Field, msg}
		}
		return &SettingError{Msg: strings.TrimPrefix(err.Error(), "json: ")}
	}
	if err := (*Settings)(&v).check(); err != nil {
		return err
	}
	*s = Settings(v)
	return nil
}

func jsonKeys(t reflect.Type) []string {
	var keys []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}
