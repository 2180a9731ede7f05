package agent

import (
	"context"

	"log/slog"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/gate"
	"github.com/freeact/desktop/agent/hooks"
	"github.com/freeact/desktop/agent/longsession"
	"github.com/freeact/desktop/agent/model"
)

// WithHooks runs r's hooks at the agent's events (agent/hooks, in Claude
// Code's protocol): PreToolUse for every call the agent approves (a code
// action, each shell command, a file tool, an MCP tool called as a JSON
// tool or from code), PostToolUse and PostToolUseFailure after a call,
// UserPromptSubmit, Stop, SessionStart and SessionEnd. Subagents run the
// same hooks. Go functions are hooks too (hooks.Set.Add). Given more than
// once (Workspace.StartAgent gives the user's and the workspace's), the
// sets add up; the first runner's Dir and settings stay, and the first
// Observe given.
func WithHooks(r *hooks.Runner) Option {
	return func(o *options) { o.hooks = gate.Merge(o.hooks, r) }
}

// gateAgent is the agent as its hooks and auto mode see it (gate.Agent).
type gateAgent struct{ *Agent }

func (a gateAgent) Dir() string          { return a.cfg.Dir }
func (a gateAgent) Subagent() bool       { return a.opts.subagentOnly }
func (a gateAgent) SkipPerms() bool      { return a.opts.skipPerms }
func (a gateAgent) Model() model.Model   { return a.currentModel() }
func (a gateAgent) CheckpointsOff() bool { return a.ckpt.Off() }
func (a gateAgent) Log() *slog.Logger    { return a.opts.log }
func (a gateAgent) Config() config.Config {
	a.mu.Lock()
	defer a.mu.Unlock()
	return *a.cfg
}
func (a gateAgent) MCPServerOf(c event.GenericCall) (server, tool string, ok bool) {
	return a.mcp.ServerOf(c, a.cfg.Options.PTCServers)
}
func (a gateAgent) RecordUsage(emit func(Event), name string, u model.Usage) {
	longsession.RecordUsage(longAgent(a), emit, name, u, true)
}
func (a gateAgent) ModelName() string { return longsession.ModelName(longAgent(a)) }
func (a gateAgent) CheckBudget(ctx context.Context, emit func(Event), next float64) bool {
	ok, _ := a.costs.CheckBudget(ctx, emit, a.id, a.cfg.Options.MaxCostPerSession, next)
	return ok
}

// turnWithStopHooks runs a turn, then the Stop hooks: a hook that blocks
// the stop makes the turn go on with its reason.
func (a *Agent) turnWithStopHooks(ctx context.Context, msg model.Message, emit func(Event)) {
	res := a.runTurn(ctx, msg, a.opts.maxTurns, emit, false)
	for i := 0; a.hooks != nil && res.failed == nil && !res.cancelled && !res.rejected && ctx.Err() == nil; i++ {
		next := a.hooks.Stop(ctx, emit, i)
		if next == nil {
			return
		}
		res = a.runTurn(ctx, *next, a.opts.maxTurns, emit, false)
	}
}
