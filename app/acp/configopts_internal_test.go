package acp

import (
	"testing"

	"github.com/freeact/desktop/agent/model"
)

// The thinking option sets the setting of the model's family, and
// "default" takes it out.
func TestThinkingOptionSetsTheFamilysSetting(t *testing.T) {
	for _, tc := range []struct {
		model, value, path string
	}{
		{"gemini-3-flash-preview", "high", "google_thinking_config.thinking_level"},
		{"openai:gpt-5", "low", "openai_reasoning_effort"},
		{"anthropic:claude-sonnet-4-5", "disabled", "anthropic_thinking.type"},
	} {
		t.Run(tc.model, func(t *testing.T) {
			spec, err := model.ParseModelString(tc.model)
			if err != nil {
				t.Fatal(err)
			}
			k, ok := thinkingKey(spec)
			if !ok || k.Path != tc.path {
				t.Fatalf("thinking key of %s: %q, %v; want %q", tc.model, k.Path, ok, tc.path)
			}
			s, err := withSetting(model.DefaultSettings(), k.Path, tc.value)
			if err != nil {
				t.Fatalf("set %s: %v", tc.value, err)
			}
			if got := settingValue(s, k.Path); got != tc.value {
				t.Errorf("%s = %q, want %q", k.Path, got, tc.value)
			}
			s, err = withSetting(s, k.Path, unsetValue)
			if err != nil || settingValue(s, k.Path) != "" {
				t.Errorf("default left %q (%v)", settingValue(s, k.Path), err)
			}
		})
	}
	if _, ok := thinkingKey(model.Spec{Provider: "google", Name: "gemini-2.5-flash"}); ok {
		t.Error("Gemini 2.5 has no thinking level, yet one is offered")
	}
}
