package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/freeact/desktop/agent/checkpoint"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/files"
	"github.com/freeact/desktop/agent/model"
)

// WithCheckpointRoot keeps checkpoints under root instead of the app's
// data folder (checkpoint.DefaultRoot).
func WithCheckpointRoot(root string) Option { return func(o *options) { o.checkpointRoot = root } }

// checkpoints is the checkpoint store of the agent's workspace, opened at
// the first action while checkpoints is on. The main agent and its
// subagents share it.
type checkpoints struct {
	root, ws string

	mu    sync.Mutex
	store *checkpoint.Store
	off   string          // why checkpoints stopped for this run ("" while working)
	told  map[string]bool // revert records the model knows of
	bg    sync.WaitGroup  // the first snapshot, taken in the background
	stop  context.CancelFunc
}

// turnInfo is the running turn, for checkpoint records.
type turnInfo struct {
	id     string
	number int
	prompt string
}

// open opens the store (once) and takes a first snapshot in the
// background, so that the first action's is quick.
func (c *checkpoints) open(o config.Options) (*checkpoint.Store, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.off != "" {
		return nil, errors.New(c.off)
	}
	if c.store != nil {
		c.store.SetMaxFileBytes(o.CheckpointMaxFileBytes)
		return c.store, nil
	}
	s, err := checkpoint.Open(checkpoint.Dir(c.root, c.ws), c.ws, checkpoint.Options{MaxFileBytes: o.CheckpointMaxFileBytes})
	if err != nil {
		c.off = err.Error()
		return nil, err
	}
	c.store = s
	// Reverts made before this run were told to the model in their time.
	c.told = map[string]bool{}
	if rs, err := s.Records(); err == nil {
		for _, r := range rs {
			if r.Kind == checkpoint.KindRevert {
				c.told[r.ID] = true
			}
		}
	}
	ctx, stop := context.WithCancel(context.Background())
	c.stop = stop
	c.bg.Add(1)
	go func() {
		defer c.bg.Done()
		_, _ = s.Snapshot(ctx)
	}()
	return s, nil
}

// turnOff stops checkpoints for this run after err; it reports whether
// they were on.
func (c *checkpoints) turnOff(err error) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.off != "" {
		return false
	}
	c.off = err.Error()
	return true
}

func (c *checkpoints) close() error {
	c.mu.Lock()
	if c.stop != nil {
		c.stop() // a first snapshot still running is not needed any more
	}
	c.mu.Unlock()
	c.bg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.store == nil {
		return nil
	}
	return c.store.Close()
}

// flush saves the store's stat cache at a turn's end.
func (c *checkpoints) flush() {
	c.mu.Lock()
	s := c.store
	c.mu.Unlock()
	if s != nil {
		_ = s.Flush()
	}
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
		if emit != nil && a.ckpt.turnOff(errRemoteCheckpoints) {
			a.checkpointsFailed(emit, errRemoteCheckpoints)
		}
		return nil
	}
	s, err := a.ckpt.open(a.cfg.Options)
	if err != nil {
		if emit != nil && a.ckpt.turnOff(err) {
			a.checkpointsFailed(emit, err)
		}
		return nil
	}
	return s
}

func (a *Agent) checkpointsFailed(emit func(Event), err error) {
	emit(&Notice{Meta: Meta{AgentID: a.id}, Text: "Checkpoints are off for the rest of this session, so changes cannot be reverted: " + err.Error()})
}

// checkpointBefore snapshots the workspace before an action; nil when
// checkpoints are off.
func (a *Agent) checkpointBefore(ctx context.Context, emit func(Event)) *checkpoint.Snapshot {
	s := a.checkpointStore(emit)
	if s == nil {
		return nil
	}
	snap, err := s.Snapshot(context.WithoutCancel(ctx))
	if err != nil {
		if a.ckpt.turnOff(err) {
			a.checkpointsFailed(emit, err)
		}
		return nil
	}
	return &snap
}

// checkpointAfter snapshots the workspace after an action and records
// what it changed, reporting it as FilesChanged.
func (a *Agent) checkpointAfter(ctx context.Context, emit func(Event), before *checkpoint.Snapshot, call model.FunctionCall, label string) {
	if before == nil {
		return
	}
	s := a.checkpointStore(emit)
	if s == nil {
		return
	}
	ctx = context.WithoutCancel(ctx) // the change happened, cancelled or not
	after, err := s.Snapshot(ctx)
	if err != nil {
		if a.ckpt.turnOff(err) {
			a.checkpointsFailed(emit, err)
		}
		return
	}
	t := a.currentTurn()
	r, err := s.Record(ctx, checkpoint.Info{
		Session: a.SessionID(), Agent: a.id, TurnID: t.id, Turn: t.number, Prompt: t.prompt,
		Call: call.ID, Tool: call.Name, Label: label,
	}, *before, after)
	if err != nil {
		if a.ckpt.turnOff(err) {
			a.checkpointsFailed(emit, err)
		}
		return
	}
	if r != nil {
		emit(&FilesChanged{Meta: Meta{AgentID: a.id, CorrelationID: call.ID}, Checkpoint: r.ID, TurnID: r.TurnID, Files: r.Changes})
	}
}

func (a *Agent) currentTurn() turnInfo {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.turn
}

// actionLabel says in one line what a code action or file call does.
func actionLabel(call model.FunctionCall, args any) string {
	switch v := args.(type) {
	case string: // the code of a cell: its first line of code
		lines := strings.Split(strings.TrimSpace(v), "\n")
		for i, l := range lines {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				if i < len(lines)-1 {
					l += " …"
				}
				return l
			}
		}
		return "code action"
	case files.WriteArgs:
		return "write " + v.FilePath()
	case files.EditArgs:
		return "edit " + v.FilePath()
	}
	return call.Name
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
// nothing left to revert.
func (a *Agent) Revert(ctx context.Context, id string, force bool) (*Reverted, checkpoint.Plan, error) {
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
	r, plan, err := s.Revert(ctx, rs, checkpoint.Info{Session: rs[0].Session, Agent: MainAgent, Turn: rs[0].Turn}, force)
	if err != nil || r == nil {
		return nil, plan, err
	}
	return revertedEvent(r, plan, force), plan, nil
}

func revertedEvent(r *checkpoint.Record, plan checkpoint.Plan, force bool) *Reverted {
	rev := &Reverted{Meta: Meta{AgentID: MainAgent}, Checkpoint: r.ID, Reverts: r.Reverts, Label: r.Label, Files: r.Changes, Unrestorable: plan.Unrestorable}
	if !force {
		for _, c := range plan.Conflicts {
			rev.Kept = append(rev.Kept, c.Path)
		}
	}
	return rev
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
	a.ckpt.mu.Lock()
	defer a.ckpt.mu.Unlock()
	var b strings.Builder
	var ids []string
	for _, r := range rs {
		if r.Kind != checkpoint.KindRevert || a.ckpt.told[r.ID] {
			continue
		}
		a.ckpt.told[r.ID] = true
		ids = append(ids, r.ID)
		fmt.Fprintf(&b, "- %s:", r.Label)
		for _, c := range r.Changes {
			fmt.Fprintf(&b, " %s (%s)", c.Path, c.Status)
		}
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		return "", nil
	}
	return RevertNotePrefix + "The user reverted changes to the workspace's files since your last turn. " +
		"In parentheses, what the revert did to each file; variables in the Python kernel were not changed:\n" +
		b.String() + "</workspace-revert>", ids
}

// untell forgets that the model heard of reverts, after the turn that
// told it failed and was taken back.
func (c *checkpoints) untell(ids []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		delete(c.told, id)
	}
}

// RevertNotePrefix starts the part of a prompt that tells the model about
// reverted files; front ends leave it out of the prompt they show.
const RevertNotePrefix = "<workspace-revert>\n"

// newTurnID names a turn in checkpoint records: eight hex digits, like a
// record's id.
func newTurnID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
