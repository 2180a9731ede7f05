package config

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Every key carries what the forms need: a section, a label, a
// description, choices for an enum, a unit for a number, and nullable
// exactly when its field can hold null.
func TestKeyMetadata(t *testing.T) {
	sections := []string{SectionModel, SectionAgent, SectionKernel, SectionMCP, SectionSandbox}
	for _, k := range OptionKeys() {
		if !slices.Contains(sections, k.Section) || k.Label == "" || k.Description == "" {
			t.Errorf("%s: needs a known section, a label and a description: %+v", k.Name, k)
		}
		var o Options
		dst := reflect.TypeOf(k.dst(&o)).Elem()
		canBeNull := dst.Kind() == reflect.Pointer || dst.Kind() == reflect.Map && dst.Elem().Kind() == reflect.Interface
		if k.Nullable != canBeNull {
			t.Errorf("%s: nullable = %v, but its field is %s", k.Name, k.Nullable, dst)
		}
		if k.Nullable && k.NullLabel == "" {
			t.Errorf("%s: nullable without a label for null", k.Name)
		}
		switch k.Kind {
		case KindEnum:
			if len(k.Choices) < 2 {
				t.Errorf("%s: an enum needs choices", k.Name)
			}
		case KindInteger, KindNumber:
			if k.Number.Unit == "" || k.Number.Min == nil {
				t.Errorf("%s: a number needs a unit and a lower bound", k.Name)
			}
			if (k.Kind == KindInteger) != k.Number.Integer {
				t.Errorf("%s: kind %s but integer = %v", k.Name, k.Kind, k.Number.Integer)
			}
		}
		// null decodes where allowed, and is refused elsewhere.
		errs := CheckValues(map[string]json.RawMessage{k.Name: json.RawMessage("null")})
		if k.Nullable != (len(errs) == 0) {
			t.Errorf("%s: null gives %v", k.Name, errs)
		}
	}
}

// CheckValues checks each value on its own and names key and part.
func TestCheckValues(t *testing.T) {
	tests := []struct {
		name, key, value string
		path, msg        string
	}{
		{"words for seconds", "execution_timeout", `"sixty"`, "", "want a positive number of seconds, or null for no limit"},
		{"zero seconds", "execution_timeout", `0`, "", "value 0 is not valid"},
		{"fraction of subagents", "max_subagents", `1.5`, "", "want a whole number of subagents, 1 or more"},
		{"unknown enum", "tool_search", `"fuzzy"`, "", `want "basic", "hybrid" or "off"`},
		{"bool as text", "enable_subagents", `"yes"`, "", "true or false"},
		{"model", "model", `"nope:x"`, "", `unknown provider "nope"`},
		{"model setting", "model_settings", `{"temperature": 5}`, "temperature", "temperature 5: want a number between 0 and 2"},
		{"nested model setting", "model_settings", `{"google_thinking_config": {"thinking_level": "max"}}`, "google_thinking_config.thinking_level", "minimal, low, medium or high"},
		{"server without command", "mcp_servers", `{"fs": {"args": ["x"]}}`, "fs.command", `server "fs": needs "command"`},
		{"server timeout", "ptc_servers", `{"s": {"command": "x", "read_timeout": -1}}`, "s.read_timeout", "want a positive number of seconds"},
		{"server typo", "mcp_servers", `{"s": {"comand": "x"}}`, "comand", "comand"},
		{"env value not a string", "kernel_env", `{"A": 1}`, "", "it is a number"},
		{"url", "jupyter_url", `"localhost:8888"`, "", "want an http:// or https:// URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := CheckValues(map[string]json.RawMessage{tt.key: json.RawMessage(tt.value), "enable_persistence": json.RawMessage("true")})
			if len(errs) != 1 {
				t.Fatalf("errors = %v, want one", errs)
			}
			e := errs[0]
			if e.Key != tt.key || e.Path != tt.path || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("error = %+v, want key %s, path %q and a message with %q", e, tt.key, tt.path, tt.msg)
			}
			if e.File != "" || !strings.HasPrefix(e.Error(), `key "`+tt.key+`": `) {
				t.Errorf("Error() = %q", e.Error())
			}
		})
	}
	if errs := CheckValues(map[string]json.RawMessage{"execution_timeout": json.RawMessage("60"), "tool-search": json.RawMessage(`"x"`)}); len(errs) != 1 ||
		errs[0].Error() != `unknown key "tool-search" (known keys: `+knownKeys()+")" {
		t.Errorf("unknown key: %v", errs)
	}
}

// A message that sends the user to a setting names the tab it is in.
func TestSettingsTabNamesTheKeysTab(t *testing.T) {
	for key, want := range map[string]string{
		"model":                     "Settings → Model",
		"model_settings.max_tokens": "Settings → Model",
		"python":                    "Settings → Kernel",
		"jupyter_url":               "Settings → Kernel",
		"execution_timeout":         "Settings → Agent",
		"mcp_servers":               "Settings → MCP servers",
		"sandbox":                   "Settings → Sandbox",
		"no_such_key":               "Settings",
	} {
		if got := SettingsTab(key); got != want {
			t.Errorf("SettingsTab(%q) = %q, want %q", key, got, want)
		}
	}
}
