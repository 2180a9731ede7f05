package agent

import (
	"context"
	"errors"
	"fmt"
	"github.com/freeact/desktop/agent/ckpt"
	"os"
	"path/filepath"

	"github.com/freeact/desktop/agent/checkpoint"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/permission"
)

// WithCheckpointRoot keeps checkpoints under root instead of the app's
// data folder (appdirs.Dirs.Checkpoints).
func WithCheckpointRoot(root string) Option { return func(o *options) { o.checkpointRoot = root } }

// turnInfo is the running turn, for checkpoint records.
type turnInfo struct {
	id     string
	number int
	prompt string
}

// errRemoteCheckpoints is why a remote workspace has no checkpoints.
var errRemoteCheckpoints = errors.New("the workspace is on the Jupyter server (jupyter_url), and checkpoints cover workspaces on this machine only")

// checkpointStore returns the store while checkpoints is on; nil when it
// is off or failed (a Notice says so once).
func (a *Agent) checkpointStore(emit func(Event)) *checkpoint.Store {
	if !a.cfg.Options.Checkpoints || a.ckpt == nil {
		return nil
	}
	if a.remote != nil {
		// The workspace is on the server: a snapshot of the local folder
		// would record nothing the code changed.
		if emit != nil && a.ckpt.TurnOff(errRemoteCheckpoints) {
			a.checkpointsFailed(emit, errRemoteCheckpoints)
		}
		return nil
	}
	s, err := a.ckpt.Open(a.cfg.Options, a.checkpointOptions())
	if err != nil {
		if emit != nil && a.ckpt.TurnOff(err) {
			a.checkpointsFailed(emit, err)
		}
		return nil
	}
	return s
}

// checkpointOptions returns the store options of the agent's workspace.
func (a *Agent) checkpointOptions() checkpoint.Options {
	return CheckpointOptions(a.cfg, a.opts.perm)
}

// CheckpointOptions names, for the checkpoint store of cfg's workspace,
// the files whose content the store never keeps (those the FileRead ask
// rules of perm name, besides .env) and the protected files a revert asks
// for (besides .freeact's, the file sandbox_config names when it lies in
// the workspace). perm may be nil.
func CheckpointOptions(cfg *config.Config, perm *permission.Manager) checkpoint.Options {
	o := checkpoint.Options{MaxFileBytes: cfg.Options.CheckpointMaxFileBytes}
	rel := func(p string) (string, bool) {
		if !filepath.IsAbs(p) {
			return filepath.ToSlash(p), true
		}
		r, err := filepath.Rel(cfg.Dir, p)
		if err != nil || !filepath.IsLocal(r) {
			return "", false
		}
		return filepath.ToSlash(r), true
	}
	if perm != nil {
		for _, r := range perm.Rules().Ask {
			if r.Type != permission.TypeFileRead || r.Path == "" {
				continue
			}
			if p, ok := rel(r.Path); ok {
				o.Secret = append(o.Secret, p)
			}
		}
	}
	if p, ok := rel(sandboxConfig(cfg)); ok && p != "" {
		o.Protected = append(o.Protected, p)
	}
	return o
}

func (a *Agent) checkpointsFailed(emit func(Event), err error) {
	emit(&Notice{Meta: Meta{AgentID: a.id}, Text: "Checkpoints are off for the rest of this session, so changes cannot be reverted: " + err.Error()})
}

// wroteOwn tells the checkpoint store that the app itself just wrote file
// (a rule saved with Always): the action running meanwhile did not change
// it, so its record and its revert leave the file alone.
func (a *Agent) wroteOwn(file string) {
	s := a.checkpointStore(nil)
	if s == nil {
		return
	}
	rel, err := filepath.Rel(a.cfg.Dir, file)
	if err != nil || !filepath.IsLocal(rel) {
		return
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return
	}
	s.Wrote(rel, data)
}

// pendingAction is an action whose record was begun: its snapshot
// before, and its pending record's id.
type pendingAction struct {
	before  checkpoint.Snapshot
	id      string
	info    checkpoint.Info
	call    string
	release func() // the action lock
}

// checkpointBefore snapshots the workspace before an action and writes its
// pending record, so that no action runs unrecorded; nil when checkpoints
// are off.
func (a *Agent) checkpointBefore(ctx context.Context, emit func(Event), call model.FunctionCall, label string) *pendingAction {
	s := a.checkpointStore(emit)
	if s == nil {
		return nil
	}
	release, err := s.LockActions(ctx, func(pid int) {
		emit(&Notice{Meta: Meta{AgentID: a.id}, Text: fmt.Sprintf("Waiting for an action of another freeact process on this workspace (pid %d) to end, so that each action's changes are recorded apart.", pid)})
	})
	if err != nil {
		if ctx.Err() == nil && a.ckpt.TurnOff(err) {
			a.checkpointsFailed(emit, err)
		}
		return nil // cancelled while waiting: the action does not run either
	}
	ctx = context.WithoutCancel(ctx)
	snap, err := s.Snapshot(ctx)
	if err != nil {
		release()
		if a.ckpt.TurnOff(err) {
			a.checkpointsFailed(emit, err)
		}
		return nil
	}
	t := a.currentTurn()
	p := &pendingAction{before: snap, call: call.ID, release: release, info: checkpoint.Info{
		Session: a.SessionID(), Agent: a.id, TurnID: t.id, Turn: t.number, Prompt: t.prompt,
		Call: call.ID, Tool: call.Name, Label: label,
	}}
	if p.id, err = s.Begin(ctx, p.info, snap); err != nil {
		release()
		if a.ckpt.TurnOff(err) {
			a.checkpointsFailed(emit, err)
		}
		return nil
	}
	return p
}

// checkpointAfter snapshots the workspace after an action and completes
// its record, reporting what it changed as FilesChanged.
func (a *Agent) checkpointAfter(ctx context.Context, emit func(Event), p *pendingAction) {
	if p == nil {
		return
	}
	defer p.release()
	s := a.checkpointStore(emit)
	if s == nil {
		return
	}
	ctx = context.WithoutCancel(ctx) // the change happened, cancelled or not
	after, err := s.Snapshot(ctx)
	if err != nil {
		if a.ckpt.TurnOff(err) {
			a.checkpointsFailed(emit, err)
		}
		return
	}
	r, err := s.Record(ctx, p.id, p.info, p.before, after)
	if err != nil {
		if a.ckpt.TurnOff(err) {
			a.checkpointsFailed(emit, err)
		}
		return
	}
	if r != nil {
		emit(&FilesChanged{Meta: Meta{AgentID: a.id, CorrelationID: p.call}, Checkpoint: r.ID, TurnID: r.TurnID, Files: r.Changes})
	}
}

// beginUserCheckpoints names a batch of the user's own cells (Run again,
// a notebook's cells, a replay) for checkpoint records, as a turn of its
// own: a new id, so the batch can be reverted as one, the number of the
// session's last prompt, and what the user did as its prompt.
func (a *Agent) beginUserCheckpoints(what string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, m := range a.history {
		if IsPrompt(m) {
			n++
		}
	}
	a.turn = turnInfo{id: ckpt.NewTurnID(), number: n, prompt: what}
}

// execUserCell runs a cell of the user's like a code action of the
// model's: checkpointed before and after, so what it changed is reported
// (FilesChanged) and can be reviewed and reverted.
func (a *Agent) execUserCell(ctx context.Context, emit func(Event), corr, code string) (*CodeExecutionOutput, *refusal) {
	call := model.FunctionCall{ID: corr, Name: ExecuteTool}
	p := a.checkpointBefore(ctx, emit, call, ckpt.ActionLabel(call, code))
	out, refused := a.execCell(ctx, emit, corr, code)
	a.checkpointAfter(ctx, emit, p)
	return out, refused
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
	done, err := s.Recover(ctx)
	for _, r := range done {
		evs = append(evs, &Notice{Meta: Meta{AgentID: MainAgent}, Text: fmt.Sprintf(
			"freeact stopped while an action was running (turn %d: %s). What it changed in %d files was recorded now, "+
				"with the files as they are now; review it or revert checkpoint %s.", r.Turn, r.Label, len(r.Changes), r.ID)})
		if r.Session == a.SessionID() {
			evs = append(evs, &FilesChanged{Meta: Meta{AgentID: r.Agent, CorrelationID: r.Call}, Checkpoint: r.ID, TurnID: r.TurnID, Files: r.Changes, Late: true})
		}
	}
	if err != nil {
		return evs, nil, err
	}
	in, err := s.InterruptedRevert()
	return evs, in, err
}

// FinishRevert completes a revert that was cut short, recording it so
// that its Undo restores all it changed.
func (a *Agent) FinishRevert(ctx context.Context) (*Reverted, error) {
	s := a.Checkpoints()
	if s == nil {
		return nil, errNoCheckpoints
	}
	r, err := s.FinishRevert(ctx)
	if err != nil || r == nil {
		return nil, err
	}
	return ckpt.RevertedEvent(r, checkpoint.Plan{}, true), nil
}

// RollbackRevert puts back the files a revert that was cut short changed.
func (a *Agent) RollbackRevert(ctx context.Context) error {
	s := a.Checkpoints()
	if s == nil {
		return errNoCheckpoints
	}
	return s.RollbackRevert(ctx)
}

func (a *Agent) currentTurn() turnInfo {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.turn
}

// Checkpoints returns the workspace's checkpoint store; nil when
// checkpoints are off.
func (a *Agent) Checkpoints() *checkpoint.Store { return a.checkpointStore(nil) }

// errNoCheckpoints answers revert and diff calls with checkpoints off.
var errNoCheckpoints = errors.New("checkpoints are off: set \"checkpoints\": true in .freeact/agent.json")

// PlanRevert says what reverting the checkpoint id (an action, a turn, or
// a revert) would do now.
func (a *Agent) PlanRevert(ctx context.Context, id string) (checkpoint.Plan, error) {
	s := a.Checkpoints()
	if s == nil {
		return checkpoint.Plan{}, errNoCheckpoints
	}
	rs, err := s.Find(id)
	if err != nil {
		return checkpoint.Plan{}, err
	}
	return s.PlanRevert(ctx, rs)
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
		return nil, checkpoint.Plan{}, errNoCheckpoints
	}
	a.mu.Lock()
	busy := a.cancel != nil
	a.mu.Unlock()
	if busy {
		return nil, checkpoint.Plan{}, errors.New("a turn is running: revert when it has ended")
	}
	rs, err := s.Find(id)
	if err != nil {
		return nil, checkpoint.Plan{}, err
	}
	r, plan, err := s.Revert(ctx, rs, checkpoint.Info{Session: rs[0].Session, Agent: MainAgent, Turn: rs[0].Turn, DeleteUnkept: deleteUnkept}, force)
	if err != nil || r == nil {
		return nil, plan, err
	}
	return ckpt.RevertedEvent(r, plan, force), plan, nil
}

// LastTurnCheckpoint returns the id of the latest turn of this session
// that changed files, for /undo; "" when there is none.
func (a *Agent) LastTurnCheckpoint() string {
	s := a.Checkpoints()
	if s == nil {
		return ""
	}
	rs, err := s.Records()
	if err != nil {
		return ""
	}
	return checkpoint.LastTurn(rs, a.SessionID())
}

// revertNote tells the model about reverts it has not heard of: the files
// the user took back since its last turn, and the reverts it names. ""
// when there are none.
func (a *Agent) revertNote() (string, []string) {
	s := a.Checkpoints()
	if s == nil {
		return "", nil
	}
	rs, err := s.Records()
	if err != nil {
		return "", nil
	}
	return a.ckpt.RevertNote(rs)
}
