package agent

import (
	"context"
	"errors"
	"sync"

	"github.com/freeact/desktop/agent/approval"
	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/judge"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/modelopen"
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
			a.costs.Add(cost, u)
			emit(&Usage{Meta: Meta{AgentID: a.id}, Model: name, Usage: u, Cost: cost, Judge: true})
			emit(a.SessionUsage())
		},
	}
	st.SetMode(m)
	return st
}

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
