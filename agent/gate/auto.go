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
	}
	st.SetMode(m)
	return st
}

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
