package agent

import (
	"context"
	"errors"

	"github.com/freeact/desktop/agent/checkpoint"
	"github.com/freeact/desktop/agent/ckpt"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/model"
)

// Checkpoints around actions live in agent/ckpt; the agent tells it the
// running turn and the workspace's settings (ckptAgent).

// WithCheckpointRoot keeps checkpoints under root instead of the app's
// data folder (appdirs.Dirs.Checkpoints).
func WithCheckpointRoot(root string) Option { return func(o *options) { o.checkpointRoot = root } }

// ckptAgent is the agent as its checkpoints see it (ckpt.Agent).
type ckptAgent struct{ *Agent }

func (a ckptAgent) CheckpointTurn() ckpt.Turn {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.turn
}

func (a ckptAgent) CheckpointSettings() (config.Options, bool) { return a.cfg.Options, a.remote != nil }

func (a ckptAgent) CheckpointStoreOptions() checkpoint.Options {
	return ckpt.StoreOptions(a.cfg, a.opts.perm)
}

// checkpointBefore begins the record of an action (ckpt.Shared.Before).
func (a *Agent) checkpointBefore(ctx context.Context, emit func(Event), call model.FunctionCall, label string) *ckpt.Pending {
	return a.ckpt.Before(ctx, ckptAgent{a}, emit, call, label)
}

// checkpointAfter completes the record of an action (ckpt.Shared.After).
func (a *Agent) checkpointAfter(ctx context.Context, emit func(Event), p *ckpt.Pending) {
	a.ckpt.After(ctx, ckptAgent{a}, emit, p)
}

// beginUserCheckpoints names a batch of the user's own cells (Run again,
// a notebook's cells, a replay) for checkpoint records, as a turn of its
// own: a new id, so the batch can be reverted as one, the number of the
// session's last prompt, and what the user did as its prompt.
func (a *Agent) beginUserCheckpoints(what string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.turn = ckpt.NewTurn(a.history, what, 0)
}

// Recover finishes what a freeact process that died left, and says so:
// lines of the resumed session a crash cut off (dropped at Start, a
// Notice each, once), and in the workspace's checkpoints each action that
// was running, whose record is completed now (a Notice, and for this
// session's actions a FilesChanged marked Late), so its changes can be
// reviewed and reverted. A revert that was cut short is returned, to be
// finished (FinishRevert) or rolled back (RollbackRevert); nil when there
// is none. Front ends call it at start.
func (a *Agent) Recover(ctx context.Context) ([]Event, *checkpoint.Interrupted, error) {
	var evs []Event
	a.mu.Lock()
	repairs := a.repairs
	a.repairs = nil
	a.mu.Unlock()
	for _, r := range repairs {
		evs = append(evs, &Notice{Meta: Meta{AgentID: MainAgent}, Text: r.String()})
	}
	s := a.Checkpoints()
	if s == nil {
		return evs, nil, nil
	}
	more, in, err := ckpt.Recover(ctx, s, a.SessionID())
	return append(evs, more...), in, err
}

// FinishRevert completes a revert that was cut short, recording it so
// that its Undo restores all it changed.
func (a *Agent) FinishRevert(ctx context.Context) (*Reverted, error) {
	return ckpt.FinishRevert(ctx, a.Checkpoints())
}

// RollbackRevert puts back the files a revert that was cut short changed.
func (a *Agent) RollbackRevert(ctx context.Context) error {
	s := a.Checkpoints()
	if s == nil {
		return ckpt.ErrOff
	}
	return s.RollbackRevert(ctx)
}

// Checkpoints returns the workspace's checkpoint store; nil when
// checkpoints are off.
func (a *Agent) Checkpoints() *checkpoint.Store { return a.ckpt.Store(ckptAgent{a}, nil) }

// PlanRevert says what reverting the checkpoint id (an action, a turn, or
// a revert) would do now.
func (a *Agent) PlanRevert(ctx context.Context, id string) (checkpoint.Plan, error) {
	return ckpt.PlanRevert(ctx, a.Checkpoints(), id)
}

// Revert takes back the changes of checkpoint id: an action's, a turn's,
// or a revert's (which redoes what it reverted). Files changed since are
// conflicts, reverted only with force; without it the others are. The model is told at the next
// prompt. No turn may run meanwhile. The result is nil when there was
// nothing left to revert. Files the changes created whose content was not
// kept (Plan.Unkept) are deleted only when deleteUnkept names them.
func (a *Agent) Revert(ctx context.Context, id string, force bool, deleteUnkept ...string) (*Reverted, checkpoint.Plan, error) {
	s := a.Checkpoints()
	if s == nil {
		return nil, checkpoint.Plan{}, ckpt.ErrOff
	}
	a.mu.Lock()
	busy := a.cancel != nil
	a.mu.Unlock()
	if busy {
		return nil, checkpoint.Plan{}, errors.New("a turn is running: revert when it has ended")
	}
	return ckpt.Revert(ctx, s, id, force, deleteUnkept)
}

// LastTurnCheckpoint returns the id of the latest turn of this session
// that changed files, for /undo; "" when there is none.
func (a *Agent) LastTurnCheckpoint() string { return ckpt.LastTurn(a.Checkpoints(), a.SessionID()) }

// revertNote tells the model about reverts it has not heard of: the files
// the user took back since its last turn, and the reverts it names. ""
// when there are none.
func (a *Agent) revertNote() (string, []string) { return a.ckpt.NoteFor(a.Checkpoints()) }
