package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/modelopen"
)

// Config options a session offers: the model (of the provider agent.json
// names, whose key freeact has) and, for a model that has thinking levels,
// the level. They change this session only; agent.json stays as it is.
const (
	OptionModel    = "model"
	OptionThinking = "thinking_level"
)

// thinkingPaths are the model settings OptionThinking sets, one a family:
// the first that applies to the model is offered.
var thinkingPaths = []string{"google_thinking_config.thinking_level", "anthropic_thinking.type", "openai_reasoning_effort"}

// unsetValue is the option's value for a setting left unset (the
// provider's default).
const unsetValue = "default"

// thinkingKey is the thinking setting of the model of spec.
func thinkingKey(spec model.Spec) (model.SettingKey, bool) {
	for _, k := range model.SettingKeys() {
		if slices.Contains(thinkingPaths, k.Path) && k.Kind == "enum" && k.For(spec) {
			return k, true
		}
	}
	return model.SettingKey{}, false
}

// settingValue is the value of the dotted path in s; "" when unset.
func settingValue(s model.Settings, path string) string {
	m := map[string]any{}
	if b, err := json.Marshal(s); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		sub, _ := m[k].(map[string]any)
		m = sub
	}
	v, _ := m[keys[len(keys)-1]].(string)
	return v
}

// withSetting is s with the dotted path set to value (unsetValue: taken
// out), checked as agent.json's model_settings are.
func withSetting(s model.Settings, path, value string) (model.Settings, error) {
	m := map[string]any{}
	b, err := json.Marshal(s)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return s, err
	}
	keys := strings.Split(path, ".")
	at := m
	for _, k := range keys[:len(keys)-1] {
		sub, ok := at[k].(map[string]any)
		if !ok {
			sub = map[string]any{}
			at[k] = sub
		}
		at = sub
	}
	if last := keys[len(keys)-1]; value == unsetValue {
		delete(at, last)
	} else {
		at[last] = value
	}
	if b, err = json.Marshal(m); err != nil {
		return s, err
	}
	next, err := model.ParseSettings(b)
	if err != nil && value == unsetValue && len(keys) > 1 {
		// An object that needs the key (anthropic_thinking's type) goes
		// as a whole.
		delete(m, keys[0])
		if b, err = json.Marshal(m); err != nil {
			return s, err
		}
		next, err = model.ParseSettings(b)
	}
	if err != nil {
		return s, fmt.Errorf("%s %q: %w", path, value, err)
	}
	next.Ignored = s.Ignored
	return next, nil
}

// modelValue is how a model of spec's provider is written in agent.json:
// Gemini's bare, the others with their provider.
func modelValue(provider, name string) string {
	if provider == "google" {
		return name
	}
	return provider + ":" + name
}

// sessionConfig is the workspace's configuration with the options the
// client set in this session.
func (ss *acpSession) sessionConfig() (*config.Config, error) {
	ss.mu.Lock()
	set := maps.Clone(ss.options)
	ss.mu.Unlock()
	next := *ss.cfg
	if v, ok := set[OptionModel]; ok {
		next.Options.Model = v
	}
	if v, ok := set[OptionThinking]; ok {
		if spec, err := model.ParseModelString(next.Options.Model); err == nil {
			if k, ok := thinkingKey(spec); ok {
				ms, err := withSetting(next.Options.ModelSettings, k.Path, v)
				if err != nil {
					return &next, err
				}
				next.Options.ModelSettings = ms
			}
		}
	}
	return &next, nil
}

// configOptions are the session's options with their current values.
func (ss *acpSession) configOptions() []sdk.SessionConfigOption {
	cfg, _ := ss.sessionConfig() // a value that does not fit is never kept
	cur := cfg.Options.Model
	spec, err := model.ParseModelString(cur)
	if err != nil {
		return []sdk.SessionConfigOption{}
	}
	values := []string{cur}
	for _, n := range model.CatalogModels(spec.Provider) {
		if v := modelValue(spec.Provider, n); !slices.Contains(values, v) && v != spec.String() {
			values = append(values, v)
		}
	}
	cat := sdk.SessionConfigOptionCategoryModel
	desc := "the model of this session (agent.json's model stays as it is)"
	opts := []sdk.SessionConfigOption{{Select: &sdk.SessionConfigOptionSelect{
		Id: OptionModel, Name: "Model", Description: &desc, Category: &cat, Type: "select",
		CurrentValue: sdk.SessionConfigValueId(cur), Options: selectOptions(values),
	}}}
	if k, ok := thinkingKey(spec); ok {
		level := settingValue(cfg.Options.ModelSettings, k.Path)
		if level == "" {
			level = unsetValue
		}
		values := append([]string{}, k.Choices...)
		if !slices.Contains(values, level) {
			values = append([]string{level}, values...)
		}
		tcat := sdk.SessionConfigOptionCategoryThoughtLevel
		tdesc := k.Description
		opts = append(opts, sdk.SessionConfigOption{Select: &sdk.SessionConfigOptionSelect{
			Id: OptionThinking, Name: k.Label, Description: &tdesc, Category: &tcat, Type: "select",
			CurrentValue: sdk.SessionConfigValueId(level), Options: selectOptions(values),
		}})
	}
	return opts
}

func selectOptions(values []string) sdk.SessionConfigSelectOptions {
	list := sdk.SessionConfigSelectOptionsUngrouped{}
	for _, v := range values {
		list = append(list, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(v), Name: v})
	}
	return sdk.SessionConfigSelectOptions{Ungrouped: &list}
}

// setConfig changes one option between turns: the agent takes the changed
// configuration from its next turn on.
func (ss *acpSession) setConfig(ctx context.Context, id, value string) error {
	valid := false
	for _, o := range ss.configOptions() {
		if o.Select == nil || string(o.Select.Id) != id {
			continue
		}
		for _, v := range *o.Select.Options.Ungrouped {
			valid = valid || string(v.Value) == value
		}
		if !valid {
			return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("%s %q is not offered: use one of the options session/new listed", id, value)})
		}
	}
	if !valid {
		return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown config option %q: use %q or %q (for a model with thinking levels)", id, OptionModel, OptionThinking)})
	}
	ss.mu.Lock()
	old, had := ss.options[id]
	if ss.options == nil {
		ss.options = map[string]string{}
	}
	ss.options[id] = value
	ss.mu.Unlock()
	undo := func() {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		if had {
			ss.options[id] = old
		} else {
			delete(ss.options, id)
		}
	}
	next, err := ss.sessionConfig()
	if err != nil {
		undo()
		return sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	if err := modelopen.Check(next); err != nil {
		undo()
		return authRequired(err)
	}
	if _, err := ss.a.Reconfigure(ctx, next); err != nil {
		undo()
		return sdk.NewInvalidRequest(map[string]any{"error": err.Error()})
	}
	return nil
}

// SetSessionConfigOption changes the session's model or thinking level
// (between turns) and answers with every option's value.
func (s *Server) SetSessionConfigOption(ctx context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	if p.ValueId == nil {
		return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "freeact's options take a value id (a string), not a boolean"})
	}
	ss, err := s.session(p.ValueId.SessionId)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	if err := ss.setConfig(ctx, string(p.ValueId.ConfigId), string(p.ValueId.Value)); err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: ss.configOptions()}, nil
}
