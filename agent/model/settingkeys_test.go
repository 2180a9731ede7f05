package model

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Every field of Settings (and of its thinking objects) is described by a
// SettingKey, whose getter reads that field: a new setting cannot be left
// out of the forms or the checks.
func TestSettingKeysCoverSettings(t *testing.T) {
	var paths []string
	for f := range reflect.TypeFor[Settings]().Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if ft := f.Type; ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
			for sub := range ft.Elem().Fields() {
				subName, _, _ := strings.Cut(sub.Tag.Get("json"), ",")
				paths = append(paths, name+"."+subName)
			}
			continue
		}
		paths = append(paths, name)
	}
	var keyed []string
	for _, k := range SettingKeys() {
		keyed = append(keyed, k.Path)
	}
	slices.Sort(paths)
	slices.Sort(keyed)
	if !slices.Equal(paths, keyed) {
		t.Fatalf("Settings fields %v\ndiffer from SettingKeys %v", paths, keyed)
	}
	for _, k := range SettingKeys() {
		if len(k.Families) == 0 || k.Label == "" || k.Description == "" {
			t.Errorf("%s: needs families, a label and a description", k.Path)
		}
		var sample any
		switch k.Kind {
		case "enum":
			sample = k.Choices[len(k.Choices)-1]
		case "bool":
			sample = true
		case "list":
			sample = []string{"END"}
		default:
			sample = 2048 // valid for every number setting but temperature and top_p
			if k.Number.Max != nil {
				sample = *k.Number.Max
			}
		}
		obj := map[string]any{}
		head, tail, nested := strings.Cut(k.Path, ".")
		if nested {
			inner := map[string]any{tail: sample}
			if head == "anthropic_thinking" && tail != "type" {
				inner["type"] = "enabled"
			}
			obj[head] = inner
		} else {
			obj[head] = sample
		}
		data, _ := json.Marshal(obj)
		s, err := ParseSettings(data)
		if err != nil {
			t.Errorf("%s: %s does not parse: %v", k.Path, data, err)
			continue
		}
		if v := reflect.ValueOf(k.get(&s)); v.IsZero() {
			t.Errorf("%s: the getter does not read the field set by %s", k.Path, data)
		}
	}
}

// Each kind of invalid value is an error naming its setting.
func TestSettingErrorsNameTheSetting(t *testing.T) {
	for in, path := range map[string]string{
		`{"temperature": 2.5}`:                "temperature",
		`{"max_tokens": 0}`:                   "max_tokens",
		`{"seed": "x"}`:                       "seed",
		`{"timeout": -1}`:                     "timeout",
		`{"openai_reasoning_effort": "lots"}`: "openai_reasoning_effort",
		`{"tool_choice": "always"}`:           "tool_choice",
		`{"google_thinking_config": {"thinking_level": "max"}}`:           "google_thinking_config.thinking_level",
		`{"anthropic_thinking": {"type": "enabled", "budget_tokens": 5}}`: "anthropic_thinking.budget_tokens",
		`{"presence_penalty": 9}`:                                         "presence_penalty",
		`{"temprature": 1}`:                                               "",
	} {
		_, err := ParseSettings([]byte(in))
		var se *SettingError
		if !errors.As(err, &se) || se.Path != path {
			t.Errorf("%s: err = %#v, want a SettingError for %q", in, err, path)
		}
	}
}

// Every provider of the picker parses with each of its models, into its own
// prefix, and names the key the model string asks for.
func TestProviders(t *testing.T) {
	for _, p := range Providers() {
		for _, m := range p.Models {
			spec, err := ParseModelString(p.ID + ":" + m)
			if err != nil {
				t.Errorf("%s:%s: %v", p.ID, m, err)
				continue
			}
			if spec.Provider != p.ID || spec.Name != m || spec.KeyEnv != p.KeyEnv || spec.Family() != p.Family {
				t.Errorf("%s:%s parses to %+v, picker says %+v", p.ID, m, spec, p)
			}
		}
	}
	if p := Providers()[0]; p.ID != "google" || p.KeyEnv != "GEMINI_API_KEY" || !p.KeyRequired || p.Models[0] != "gemini-3-flash-preview" {
		t.Errorf("first provider = %+v, want Gemini with the default model first", p)
	}
}

// The thinking settings are offered only for the models that have them,
// by provider and model name; a custom OpenAI-compatible model has none.
func TestThinkingSettingsOnlyForModelsWithThem(t *testing.T) {
	cases := []struct {
		model string
		path  string
		want  bool
	}{
		{"google:gemini-3-flash-preview", "google_thinking_config.thinking_level", true},
		{"google:gemini-3-pro-preview", "google_thinking_config.thinking_level", true},
		{"google:gemini-2.5-flash", "google_thinking_config.thinking_level", false},
		{"google:gemini-2.5-flash", "google_thinking_config.thinking_budget", true},
		{"google:gemini-1.5-pro", "google_thinking_config.thinking_level", false},
		{"anthropic:claude-sonnet-4-5", "google_thinking_config.thinking_level", false},
		{"anthropic:claude-sonnet-4-5", "anthropic_thinking.type", true},
		{"anthropic:claude-3-7-sonnet-latest", "anthropic_thinking.type", true},
		{"anthropic:claude-3-5-sonnet-latest", "anthropic_thinking.type", false},
		{"anthropic:claude-3-5-sonnet-latest", "anthropic_thinking.budget_tokens", false},
		{"openai:gpt-5.1", "openai_reasoning_effort", true},
		{"openai:o4-mini", "openai_reasoning_effort", true},
		{"openai:o3", "openai_reasoning_effort", true},
		{"openai:gpt-4.1", "openai_reasoning_effort", false},
		{"openrouter:openai/gpt-5.1", "openai_reasoning_effort", true},
		{"groq:openai/gpt-oss-120b", "openai_reasoning_effort", true},
		{"ollama:gpt-oss:20b", "openai_reasoning_effort", true},
		{"ollama:llama3.3", "openai_reasoning_effort", false},
		{"http://localhost:8000/v1#my-model", "openai_reasoning_effort", false},
		{"http://localhost:8000/v1#my-model", "google_thinking_config.thinking_level", false},
		{"http://localhost:8000/v1#my-model", "temperature", true},
	}
	for _, c := range cases {
		spec, err := ParseModelString(c.model)
		if err != nil {
			t.Fatal(err)
		}
		k, ok := settingKey(c.path)
		if !ok {
			t.Fatalf("no setting %s", c.path)
		}
		if got := k.For(spec); got != c.want {
			t.Errorf("%s for %s = %v, want %v", c.path, c.model, got, c.want)
		}
	}
}

// A setting's description shows for every family it has, so it names no
// provider's default unless the setting is that provider's alone; what
// unset gives where providers differ is in Unset, each family's own.
func TestSettingDescriptionsNameNoOtherProvidersDefault(t *testing.T) {
	for _, k := range SettingKeys() {
		for fam := range k.Unset {
			if !slices.Contains(k.Families, fam) {
				t.Errorf("%s: Unset for %s, which does not use it", k.Path, fam)
			}
		}
		if len(k.Families) == 1 {
			continue
		}
		for _, name := range []string{"Claude", "Gemini", "GPT", "16,384"} {
			if strings.Contains(k.Description, name) {
				t.Errorf("%s: the description every provider reads names %q: %q", k.Path, name, k.Description)
			}
		}
	}
	var maxTokens SettingKey
	for _, k := range SettingKeys() {
		if k.Path == "max_tokens" {
			maxTokens = k
		}
	}
	for _, fam := range allFamilies {
		if maxTokens.Unset[fam] == "" {
			t.Errorf("max_tokens: no words for what unset gives with %s", fam)
		}
	}
}
