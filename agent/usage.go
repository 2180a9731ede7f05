package agent

import (
	"context"

	"github.com/freeact/desktop/agent/longsession"
	"github.com/freeact/desktop/agent/modelopen"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/model"
)

// modelInfo returns what the catalog (and agent.json's models) know of the
// agent's model.
func (a *Agent) modelInfo() (model.Info, bool) {
	return model.Lookup(a.modelName(), a.cfg.Options.Models)
}

// currentModel returns the agent's model (Reconfigure may replace it), nil
// while it has none (no API key yet).
func (a *Agent) currentModel() model.Model {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.model
}

// modelName names the agent's model; without one, the model agent.json
// names, which the agent will use once it can.
func (a *Agent) modelName() string {
	if m := a.currentModel(); m != nil {
		return m.Name()
	}
	return a.cfg.Options.Model
}

// priceOf returns what a call of modelName counted by u cost; nil when the
// model's price is unknown.
func (a *Agent) priceOf(modelName string, u model.Usage) *float64 {
	return priceOf(a.cfg, modelName, u)
}

// priceOf prices a call by the catalog and the models of cfg's agent.json.
func priceOf(cfg *config.Config, modelName string, u model.Usage) *float64 {
	return cfg.PriceOf(modelName, u)
}

// CostOf returns what a call of modelName counted by u cost by the
// catalog and agent.json's models; nil when the price is unknown.
func (a *Agent) CostOf(modelName string, u model.Usage) *float64 { return a.priceOf(modelName, u) }

// PriceOf is CostOf by the catalog and the models of cfg's agent.json,
// before an agent runs.
func PriceOf(cfg *config.Config, modelName string, u model.Usage) *float64 {
	return priceOf(cfg, modelName, u)
}

// recordUsage counts a call's tokens and cost and reports them.
func (a *Agent) recordUsage(emit func(Event), modelName string, u model.Usage) {
	cost := a.priceOf(modelName, u)
	a.costs.Add(cost, u)
	emit(&Usage{Meta: Meta{AgentID: a.id}, Model: modelName, Usage: u, Cost: cost})
	if a.id == MainAgent {
		a.updateContext(u.InputTokens + u.OutputTokens)
	}
	emit(a.SessionUsage())
}

// updateContext records the main conversation's size (about) with the
// model's window and compaction point.
func (a *Agent) updateContext(tokens int) {
	window, at := a.window()
	a.costs.SetContext(tokens, window, at)
}

// window returns the model's context window and the request size at
// which older turns are compacted (0 when unknown or off).
func (a *Agent) window() (window, compactAt int) {
	info, _ := a.modelInfo()
	a.mu.Lock()
	served := a.served
	a.mu.Unlock()
	return longsession.Window(info.ContextWindow, served, a.cfg.Options.CompactionThreshold)
}

// askWindow asks the model's server, when it is the user's own, for the
// context window it runs the model with (longsession.ServedWindow); a
// server that does not say leaves the window as the table (or
// agent.json's models) has it.
func (a *Agent) askWindow(ctx context.Context) {
	if a.opts.model != nil || a.currentModel() == nil {
		return
	}
	spec, po, err := modelopen.Options(a.cfg)
	if err != nil {
		return
	}
	n, err := longsession.ServedWindow(ctx, spec, po)
	if err != nil {
		a.opts.log.Info("the model server did not say its context window", "err", err)
		return
	}
	if n > 0 {
		a.learnWindow(n)
	}
}

// learnWindow takes n as the model's context window, as its server
// reported it (in an overflow error or when asked at start).
func (a *Agent) learnWindow(n int) {
	a.mu.Lock()
	a.served = n
	a.mu.Unlock()
}

// SessionUsage returns where the session stands: its cost and the main
// conversation's size against the model's window.
func (a *Agent) SessionUsage() *SessionUsage { return a.costs.Usage(a.cfg.Options.MaxCostPerSession) }

// loadCosts adds up what the stored session cost so far: every agent's
// model messages and every compaction.
func (a *Agent) loadCosts() error {
	return a.costs.Load(a.store, a.id, a.History(), a.priceOf)
}

// checkBudget asks before a model call that would take the session over
// max_cost_per_session: estimate is the call's input, about. It reports
// whether the call may go ahead; stop holds the text that ends the turn
// when not.
func (a *Agent) checkBudget(ctx context.Context, emit func(Event), estimate int) (ok bool, stop string) {
	budget := a.cfg.Options.MaxCostPerSession
	if budget == nil {
		return true, ""
	}
	next := 0.0
	if info, known := a.modelInfo(); known {
		next, _ = info.Cost(model.Usage{InputTokens: estimate, OutputTokens: a.costs.ExpectedOutput()})
	}
	return a.costs.CheckBudget(ctx, emit, a.id, budget, next)
}
