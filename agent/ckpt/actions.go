package ckpt

import (
	"context"
	"errors"
	"fmt"
	"github.com/freeact/desktop/agent/sandboxcfg"
	"os"
	"path/filepath"

	"github.com/freeact/desktop/agent/checkpoint"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/permission"
)

// Turn names the running turn in checkpoint records.
type Turn struct {
	ID     string
	Number int
	Prompt string
}

// NewTurn names a turn: a new id, the number of the prompts of hist plus
// add (1 for a turn a new prompt starts, 0 for a batch of the user's own
// cells, which counts as the session's last prompt), and prompt.
func NewTurn(hist []model.Message, prompt string, add int) Turn {
	n := add
	for _, m := range hist {
		if history.IsPrompt(m) {
			n++
		}
	}
	return Turn{ID: NewTurnID(), Number: n, Prompt: prompt}
}

// Agent is what the checkpoints of an agent's actions need of the agent.
type Agent interface {
	// ID names the agent ("main", "sub-xxxx").
	ID() string
	// SessionID names the session its actions belong to.
	SessionID() string
	// CheckpointTurn is the running turn.
	CheckpointTurn() Turn
	// CheckpointSettings are the workspace's options and whether the
	// workspace is on a remote Jupyter server.
	CheckpointSettings() (o config.Options, remote bool)
	// CheckpointStoreOptions are the options of the workspace's store.
	CheckpointStoreOptions() checkpoint.Options
}

// ErrRemote is why a remote workspace has no checkpoints.
var ErrRemote = errors.New("the workspace is on the Jupyter server (jupyter_url), and checkpoints cover workspaces on this machine only")

// ErrOff answers revert and diff calls with checkpoints off.
var ErrOff = errors.New("checkpoints are off: set \"checkpoints\": true in .freeact/agent.json")

// Store returns the store of a's workspace while checkpoints is on; nil
// when it is off or failed (a Notice through emit says so once; emit may
// be nil).
func (c *Shared) Store(a Agent, emit func(event.Event)) *checkpoint.Store {
	if c == nil {
		return nil
	}
	o, remote := a.CheckpointSettings()
	if !o.Checkpoints {
		return nil
	}
	if remote {
		// The workspace is on the server: a snapshot of the local folder
		// would record nothing the code changed.
		if emit != nil && c.TurnOff(ErrRemote) {
			failed(a, emit, ErrRemote)
		}
		return nil
	}
	s, err := c.Open(o, a.CheckpointStoreOptions())
	if err != nil {
		if emit != nil && c.TurnOff(err) {
			failed(a, emit, err)
		}
		return nil
	}
	return s
}

// stopped turns checkpoints off after err and says so once.
func (c *Shared) stopped(a Agent, emit func(event.Event), err error) {
	if c.TurnOff(err) {
		failed(a, emit, err)
	}
}

func failed(a Agent, emit func(event.Event), err error) {
	emit(&event.Notice{Meta: event.Meta{AgentID: a.ID()}, Text: "Checkpoints are off for the rest of this session, so changes cannot be reverted: " + err.Error()})
}

// StoreOptions names, for the checkpoint store of cfg's workspace, the
// files whose content the store never keeps (those the FileRead ask rules
// of perm name, besides .env) and the protected files a revert asks for
// (besides .freeact's, the file sandbox_config names, when it lies in the
// workspace). perm may be nil.
func StoreOptions(cfg *config.Config, perm *permission.Manager) checkpoint.Options {
	sandboxConfig := sandboxcfg.ConfigFile(cfg)
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
	if p, ok := rel(sandboxConfig); ok && p != "" {
		o.Protected = append(o.Protected, p)
	}
	return o
}

// WroteOwn tells the store that the app itself just wrote file (a rule
// saved with Always) in the workspace dir: the action running meanwhile
// did not change it, so its record and its revert leave the file alone.
func (c *Shared) WroteOwn(a Agent, dir, file string) {
	s := c.Store(a, nil)
	if s == nil {
		return
	}
	rel, err := filepath.Rel(dir, file)
	if err != nil || !filepath.IsLocal(rel) {
		return
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return
	}
	s.Wrote(rel, data)
}

// Pending is an action whose record was begun: its snapshot before, and
// its pending record's id.
type Pending struct {
	before  checkpoint.Snapshot
	id      string
	info    checkpoint.Info
	call    string
	release func() // the action lock
}

// Before snapshots the workspace before a's action call and writes its
// pending record, so that no action runs unrecorded; nil when checkpoints
// are off.
func (c *Shared) Before(ctx context.Context, a Agent, emit func(event.Event), call model.FunctionCall, label string) *Pending {
	s := c.Store(a, emit)
	if s == nil {
		return nil
	}
	release, err := s.LockActions(ctx, func(pid int) {
		emit(&event.Notice{Meta: event.Meta{AgentID: a.ID()}, Text: fmt.Sprintf("Waiting for an action of another freeact process on this workspace (pid %d) to end, so that each action's changes are recorded apart.", pid)})
	})
	if err != nil {
		if ctx.Err() == nil {
			c.stopped(a, emit, err)
		}
		return nil // cancelled while waiting: the action does not run either
	}
	ctx = context.WithoutCancel(ctx)
	snap, err := s.Snapshot(ctx)
	if err != nil {
		release()
		c.stopped(a, emit, err)
		return nil
	}
	t := a.CheckpointTurn()
	p := &Pending{before: snap, call: call.ID, release: release, info: checkpoint.Info{
		Session: a.SessionID(), Agent: a.ID(), TurnID: t.ID, Turn: t.Number, Prompt: t.Prompt,
		Call: call.ID, Tool: call.Name, Label: label,
	}}
	if p.id, err = s.Begin(ctx, p.info, snap); err != nil {
		release()
		c.stopped(a, emit, err)
		return nil
	}
	return p
}

// After snapshots the workspace after an action and completes its
// record, reporting what it changed as FilesChanged.
func (c *Shared) After(ctx context.Context, a Agent, emit func(event.Event), p *Pending) {
	if p == nil {
		return
	}
	defer p.release()
	s := c.Store(a, emit)
	if s == nil {
		return
	}
	ctx = context.WithoutCancel(ctx) // the change happened, cancelled or not
	after, err := s.Snapshot(ctx)
	if err != nil {
		c.stopped(a, emit, err)
		return
	}
	r, err := s.Record(ctx, p.id, p.info, p.before, after)
	if err != nil {
		c.stopped(a, emit, err)
		return
	}
	if r != nil {
		emit(&event.FilesChanged{Meta: event.Meta{AgentID: a.ID(), CorrelationID: p.call}, Checkpoint: r.ID, TurnID: r.TurnID, Files: r.Changes})
	}
}
