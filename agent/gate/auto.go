package gate

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

// AutoState is the approval state of a new main agent in mode m: the
// sandbox and checkpoints as they are when a call is asked, the judge,
// and its usage on a line of its own.
func AutoState(a Agent, m approval.Mode) *approval.State {
	st := &approval.State{
		Structure: func() approval.Structure {
			o := a.Config().Options
			return approval.Structure{Sandbox: o.Sandbox, Checkpoints: o.Checkpoints && !a.CheckpointsOff()}
		},
		Judge: &agentJudge{a: a},
		Usage: a.RecordUsage,
		Budget: func(ctx context.Context, emit func(event.Event), call event.ToolCall) (bool, string) {
			return budget(ctx, a, emit, call)
		},
	}
	st.SetMode(m)
	return st
}

// budget asks, as before any model call, whether the judge's call for
// call fits the session's budget; over it, the user is asked to raise it
// (a BudgetRequest), and a no leaves the call to the user.
func budget(ctx context.Context, a Agent, emit func(event.Event), call event.ToolCall) (bool, string) {
	cfg := a.Config()
	if cfg.Options.MaxCostPerSession == nil {
		return true, ""
	}
	req := judge.Request(judge.UserTexts(a.History()), call)
	size := len(req.System)
	for _, m := range req.Messages {
		size += len(m.Text())
	}
	name := a.ModelName()
	if n := cfg.Options.JudgeModel; n != nil && *n != "" {
		name = *n
	}
	next := 0.0
	if c := cfg.PriceOf(name, model.Usage{InputTokens: size/4 + 1, OutputTokens: judgeOutputTokens}); c != nil {
		next = *c
	}
	if !a.CheckBudget(ctx, emit, next) {
		return false, "the session's budget (max_cost_per_session) is spent."
	}
	return true, ""
}

// judgeOutputTokens is about what a verdict takes: a line of JSON.
const judgeOutputTokens = 100

// agentJudge is the judge of an agent's conversation: the model
// judge_model names, else the conversation's, with the user's prompts.
type agentJudge struct {
	a Agent

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
	cfg := j.a.Config()
	if cfg.Options.JudgeModel == nil || *cfg.Options.JudgeModel == "" {
		if m := j.a.Model(); m != nil {
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
