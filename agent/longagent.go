package agent

import (
	"context"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/longsession"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/session"
)

// longAgent is the agent as its long session sees it (longsession.Agent).
type longAgent struct{ *Agent }

func (a longAgent) Lock()   { a.mu.Lock() }
func (a longAgent) Unlock() { a.mu.Unlock() }
func (a longAgent) Held() ([]model.Message, *longsession.State) {
	return a.history, &a.long
}
func (a longAgent) Model() model.Model                   { return a.currentModel() }
func (a longAgent) Config() *config.Config               { return a.cfg }
func (a longAgent) Costs() *longsession.Costs            { return a.costs }
func (a longAgent) Store() *session.Store[model.Message] { return a.store }
func (a longAgent) Failure(err error) *Failed            { return a.failure(err) }
func (a longAgent) PreCompact(ctx context.Context, emit func(Event), why string) {
	a.hooks.PreCompact(ctx, emit, why == longsession.CompactManual)
}
func (a longAgent) Compacted(ctx context.Context) { a.hooks.Compacted(ctx) }
func (a longAgent) RequestSize(view []model.Message) int {
	return longsession.RequestTokens(a.system, a.tools, view)
}

// currentModel returns the agent's model (Reconfigure may replace it), nil
// while it has none (no API key yet).
func (a *Agent) currentModel() model.Model {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.model
}

// CostOf returns what a call of modelName counted by u cost by the
// catalog and agent.json's models; nil when the price is unknown.
func (a *Agent) CostOf(modelName string, u model.Usage) *float64 { return a.cfg.PriceOf(modelName, u) }

// SessionUsage returns where the session stands: its cost and the main
// conversation's size against the model's window.
func (a *Agent) SessionUsage() *SessionUsage { return longsession.UsageOf(longAgent{a}) }

// Compactions lists the compactions of the conversation, oldest first.
func (a *Agent) Compactions() []longsession.HistoryCompaction {
	return longsession.Compactions(longAgent{a})
}

// FailedCompactions lists the conversation's failed "Compact now"s,
// oldest first.
func (a *Agent) FailedCompactions() []longsession.FailedCompaction {
	return longsession.FailedCompactions(longAgent{a})
}
