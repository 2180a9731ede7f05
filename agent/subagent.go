package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/freeact/desktop/agent/approval"
	"github.com/freeact/desktop/agent/gate"
	"github.com/freeact/desktop/agent/hooks"
	"sync"

	"github.com/freeact/desktop/agent/model"
)

// runSubagent runs subagent_task: a fresh agent with its own kernel (from the
// server's warm pool when it keeps one) and no subagent tool, whose events
// go into this agent's stream under its own id. Its last response is the
// result; its failure is an error result, never the end of this turn.
func (a *Agent) runSubagent(ctx context.Context, call model.FunctionCall, emit func(Event)) (model.FunctionResponse, bool) {
	var args struct {
		Prompt   string `json:"prompt"`
		MaxTurns *int   `json:"max_turns"`
	}
	if err := json.Unmarshal(call.Args, &args); err != nil || args.Prompt == "" {
		return a.result(emit, call, `Invalid arguments: `+SubagentTool+` takes {"prompt": "<task>", "max_turns": <n, optional>}.`, true, nil), false
	}
	maxTurns := DefaultMaxTurns
	if args.MaxTurns != nil {
		if *args.MaxTurns < 1 {
			return a.result(emit, call, "Invalid arguments: max_turns must be at least 1.", true, nil), false
		}
		maxTurns = *args.MaxTurns
	}
	var sub *Agent
	var out turnResult
	resp, rejected := a.approveThen(ctx, call, emit, GenericCall{ToolName: SubagentTool, Args: call.Args}, func() (string, bool, []model.Image) {
		select {
		case a.subagents <- struct{}{}:
			defer func() { <-a.subagents }()
		case <-ctx.Done():
			return stopText(ctx), true, nil
		}
		var err error
		sub, err = a.newSubagent(ctx)
		if err != nil {
			return fmt.Sprintf("The subagent could not start: %v", err), true, nil
		}
		defer func() {
			if err := sub.kern.Close(); err != nil {
				a.opts.log.Warn("close subagent kernel", "agent", sub.id, "err", err)
			}
			if err := sub.mcp.Close(); err != nil {
				a.opts.log.Warn("close subagent MCP servers", "agent", sub.id, "err", err)
			}
		}()
		a.hooks.Subagent(ctx, emit, call.ID, hooks.SubagentStart, sub.id)
		out = sub.runTurn(ctx, model.UserText(args.Prompt), maxTurns, emit, false)
		a.hooks.Subagent(ctx, emit, call.ID, hooks.SubagentStop, sub.id)
		switch {
		case out.failed != nil:
			return fmt.Sprintf("The subagent %s failed: %v", sub.id, out.failed), true, nil
		case out.cancelled:
			return stopText(ctx), true, nil
		case out.rejected:
			return fmt.Sprintf("The subagent %s stopped: %s.", sub.id, RejectedText), true, nil
		}
		return out.response, false, nil
	})
	// A "no" inside the subagent ends the subagent's turn and is reported
	// to this agent as an error result; it does not end this agent's turn.
	return resp, rejected
}

// newSubagent makes a subagent sharing this agent's model, workspace,
// permissions and session, with a kernel of its own.
func (a *Agent) newSubagent(ctx context.Context) (*Agent, error) {
	o := a.opts
	o.subagentOnly = true
	sub := &Agent{
		id: newSubagentID(), cfg: a.cfg, opts: o, model: a.model, ws: a.ws,
		store: a.store, offloader: a.offloader, executors: a.executors, remote: a.remote,
		system: a.system, approvalTimeout: a.approvalTimeout, started: true,
		costs: a.costs, ckpt: a.ckpt, turn: ckptAgent{a}.CheckpointTurn(),
	}
	// Grants are the session's: the subagent's and the parent's are one.
	sub.approvals = approval.Approver{Perm: a.approvals.Perm, SkipAll: o.skipPerms, AgentID: sub.id, Began: new(sync.Map), State: a.approvals.State}
	sub.hooks = gate.Wire(gateAgent{sub}, o.hooks, &sub.approvals)
	// The subagent opens its own MCP connections and shares tool search.
	if _, own := a.mcp.Caller(); own {
		sub.opts.toolCaller = nil
	}
	sub.startMCP(ctx, a.mcp.Search())
	sub.tools = sub.toolDeclarations()
	// Subagents are in use: the pool keeps a spare from now on, so the
	// next one starts without waiting for a kernel.
	if w, ok := a.executors.(interface{ Warm() }); ok {
		w.Warm()
	}
	if err := sub.startKernel(ctx); err != nil {
		_ = sub.mcp.Close()
		return nil, err
	}
	return sub, nil
}
