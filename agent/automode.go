package agent

import (
	"context"
	"errors"
	"sync"

	"github.com/freeact/desktop/agent/approval"
	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/judge"
	"github.com/freeact/desktop/agent/longsession"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/modelopen"
	"github.com/freeact/desktop/agent/session"
)

// ApprovalMode is how approvals are answered: approval.Rules (the
// default), approval.Ask or approval.Auto (see docs/permissions.md).
type ApprovalMode = approval.Mode

// The approval modes (approval.Mode).
const (
	ModeRules = approval.Rules
	ModeAsk   = approval.Ask
	ModeAuto  = approval.Auto
)

// WithApprovalMode starts the agent in mode m.
func WithApprovalMode(m approval.Mode) Option { return func(o *options) { o.approvalMode = m } }

// SetApprovalMode sets the conversation's approval mode; its subagents
// share it. Setting approval.Auto again resumes auto mode after its
// breaker paused it.
func (a *Agent) SetApprovalMode(m approval.Mode) { a.approvals.State.SetMode(m) }

// ApprovalMode returns the conversation's approval mode.
func (a *Agent) ApprovalMode() approval.Mode { return a.approvals.State.Mode() }

// AutoPaused reports whether auto mode's breaker paused it.
func (a *Agent) AutoPaused() bool { return a.approvals.State.Paused() }

// autoState is the approval state of a new main agent: the sandbox and
// checkpoints as they are when a call is asked, the judge, and its
// usage on a line of its own.
func (a *Agent) autoState(m approval.Mode) *approval.State {
	st := &approval.State{
		Structure: a.structure,
		Judge:     &agentJudge{a: a},
		Usage: func(emit func(event.Event), name string, u model.Usage) {
			cost := a.priceOf(name, u)
			a.costs.AddJudge(cost, u)
			if a.store != nil {
				// No message records a judge's call: the session keeps
				// what it cost, so a resumed session counts it.
				if err := a.store.AppendSpent(session.Spent{Agent: a.id, Model: name, Usage: longsession.UsageJSON([]model.Usage{u}), Judge: true}); err != nil {
					emit(&event.Notice{Meta: Meta{AgentID: a.id}, Text: "Recording what auto mode's judge cost failed, so a resumed session will not count it: " + err.Error()})
				}
			}
			emit(&Usage{Meta: Meta{AgentID: a.id}, Model: name, Usage: u, Cost: cost, Judge: true})
			emit(a.SessionUsage())
		},
		Budget: a.judgeBudget,
	}
	st.SetMode(m)
	return st
}

// judgeBudget asks, as before any model call, whether the judge's call
// for call fits the session's budget; over it, the user is asked to
// raise it (a BudgetRequest), and a no leaves the call to the user.
func (a *Agent) judgeBudget(ctx context.Context, emit func(event.Event), call event.ToolCall) (bool, string) {
	budget := a.cfg.Options.MaxCostPerSession
	if budget == nil {
		return true, ""
	}
	req := judge.Request(judge.UserTexts(a.History()), call)
	size := len(req.System)
	for _, m := range req.Messages {
		size += len(m.Text())
	}
	name := a.modelName()
	if n := a.cfg.Options.JudgeModel; n != nil && *n != "" {
		name = *n
	}
	next := 0.0
	if c := a.priceOf(name, model.Usage{InputTokens: size/4 + 1, OutputTokens: judgeOutputTokens}); c != nil {
		next = *c
	}
	if ok, _ := a.costs.CheckBudget(ctx, emit, a.id, budget, next); !ok {
		return false, "the session's budget (max_cost_per_session) is spent."
	}
	return true, ""
}

// judgeOutputTokens is about what a verdict takes: a line of JSON.
const judgeOutputTokens = 100

// structure reports whether the kernel runs in the sandbox and
// checkpoints record what it changes.
func (a *Agent) structure() approval.Structure {
	a.mu.Lock()
	o := a.cfg.Options
	a.mu.Unlock()
	return approval.Structure{Sandbox: o.Sandbox, Checkpoints: o.Checkpoints && !a.ckpt.Off()}
}

// agentJudge is the judge of an agent's conversation: the model
// judge_model names, else the conversation's, with the user's prompts.
type agentJudge struct {
	a *Agent

	mu    sync.Mutex
	name  string
	model model.Model
}

func (j *agentJudge) Judge(ctx context.Context, call event.ToolCall) (approval.JudgeVerdict, error) {
	m, err := j.judgeModel(ctx)
	if err != nil {
		return approval.JudgeVerdict{}, err
	}
	jj := &judge.Judge{Model: m, UserMessages: func() []string { return judge.UserTexts(j.a.History()) }}
	return jj.Judge(ctx, call)
}

// judgeModel opens the model judge_model names (once per name), or
// returns the conversation's.
func (j *agentJudge) judgeModel(ctx context.Context) (model.Model, error) {
	j.a.mu.Lock()
	cfg := *j.a.cfg
	j.a.mu.Unlock()
	if cfg.Options.JudgeModel == nil || *cfg.Options.JudgeModel == "" {
		if m := j.a.currentModel(); m != nil {
			return m, nil
		}
		return nil, errors.New("the conversation has no model yet")
	}
	name := *cfg.Options.JudgeModel
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.model != nil && j.name == name {
		return j.model, nil
	}
	cfg.Options.Model = name
	m, err := modelopen.Open(ctx, &cfg)
	if err != nil {
		return nil, err
	}
	j.name, j.model = name, m
	return m, nil
}
