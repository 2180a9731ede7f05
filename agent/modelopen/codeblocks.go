package modelopen

import (
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/codeblock"
	"github.com/freeact/desktop/agent/model/provider"
)

// codeActions wraps m for a model that writes code actions as fenced
// python blocks (package codeblock): when its entry in the "models" of
// agent.json says code_actions "code_blocks", or, left unset, when a local
// or custom OpenAI-compatible server says its chat template has no tool
// calls.
func codeActions(cfg *config.Config, spec model.Spec, po provider.Options, m model.Model) model.Model {
	o, _ := model.FindOverride(cfg.Options.Model, cfg.Options.Models)
	switch o.CodeActions {
	case model.CodeActionsBlocks:
		return codeblock.Wrap(m, history.ExecuteTool)
	case model.CodeActionsTools:
		return m
	}
	switch spec.Provider {
	case "url", "ollama", "lmstudio":
		base := po.BaseURL
		if base == "" {
			base = spec.BaseURL
		}
		return codeblock.Auto(m, history.ExecuteTool, codeblock.ServerProbe(po.HTTPClient, base, spec.Name))
	}
	return m
}
