// Package ckpt owns the agent's use of the checkpoint store around
// actions: one store per run shared with subagents, opened at the first
// action with a first snapshot in the background and turned off for the
// run at the first failure, each action's record before and after it
// (actions.go), recovering, planning and running reverts (revert.go), the
// reverts the model has been told of, the label of an action and the id
// of a turn in its records. It sees the agent through Agent.
package ckpt

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
	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/files"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/session"
)

// New is the store of the workspace ws kept under root, not yet opened.
func New(root, ws string) *Shared { return &Shared{root: root, ws: ws} }

// Root is the folder the stores are kept under.
func (c *Shared) Root() string { return c.root }

// Shared is the checkpoint store of the agent's workspace, opened at
// the first action while checkpoints is on. The main agent and its
// subagents share it.
type Shared struct {
	root, ws string

	mu    sync.Mutex
	store *checkpoint.Store
	off   string          // why checkpoints stopped for this run ("" while working)
	told  map[string]bool // revert records the model knows of
	bg    sync.WaitGroup  // the first snapshot, taken in the background
	stop  context.CancelFunc
}

// Open opens the store (once) and takes a first snapshot in the
// background, so that the first action's is quick.
func (c *Shared) Open(o config.Options, opts checkpoint.Options) (*checkpoint.Store, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.off != "" {
		return nil, errors.New(c.off)
	}
	if c.store != nil {
		c.store.SetMaxFileBytes(o.CheckpointMaxFileBytes)
		return c.store, nil
	}
	opts.MaxFileBytes = o.CheckpointMaxFileBytes
	s, err := checkpoint.Open(checkpoint.Dir(c.root, c.ws), c.ws, opts)
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

// BeginTurn tells the store that a turn begins: a .gitignore the turn
// writes hides nothing from its later records.
func (c *Shared) BeginTurn() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.store != nil {
		c.store.BeginTurn()
	}
}

// TurnOff stops checkpoints for this run after err; it reports whether
// they were on.
func (c *Shared) TurnOff(err error) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.off != "" {
		return false
	}
	c.off = err.Error()
	return true
}

func (c *Shared) Close() error {
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

// Flush saves the store's stat cache at a turn's end.
func (c *Shared) Flush() {
	c.mu.Lock()
	s := c.store
	c.mu.Unlock()
	if s != nil {
		_ = s.Flush()
	}
}

// Untell forgets that the model heard of reverts, after the turn that
// told it failed and was taken back.
func (c *Shared) Untell(ids []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		delete(c.told, id)
	}
}

// ActionLabel says in one line what a code action or file call does.
func ActionLabel(call model.FunctionCall, args any) string {
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

func RevertedEvent(r *checkpoint.Record, plan checkpoint.Plan, force bool) *event.Reverted {
	rev := &event.Reverted{Meta: event.Meta{AgentID: session.MainAgent}, Checkpoint: r.ID, Reverts: r.Reverts, Label: r.Label, Files: r.Changes, Unrestorable: plan.Unrestorable}
	if !force {
		for _, c := range plan.Conflicts {
			rev.Kept = append(rev.Kept, c.Path)
		}
	}
	return rev
}

// NewTurnID names a turn in checkpoint records: eight hex digits, like a
// record's id.
func NewTurnID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// RevertNote tells the model about the reverts of rs it has not heard
// of, and marks them heard: the files the user took back since its last
// turn, and the reverts it names. "" when there are none.
func (c *Shared) RevertNote(rs []checkpoint.Record) (string, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	var ids []string
	for _, r := range rs {
		if r.Kind != checkpoint.KindRevert || c.told[r.ID] {
			continue
		}
		c.told[r.ID] = true
		ids = append(ids, r.ID)
		fmt.Fprintf(&b, "- %s:", r.Label)
		for _, ch := range r.Changes {
			fmt.Fprintf(&b, " %s (%s)", ch.Path, ch.Status)
		}
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		return "", nil
	}
	return history.RevertNotePrefix + "The user reverted changes to the workspace's files since your last turn. " +
		"In parentheses, what the revert did to each file; variables in the Python kernel were not changed:\n" +
		b.String() + "</workspace-revert>", ids
}

// Off reports whether checkpoints stopped for this run (an error turned
// them off), so nothing the agent does now can be reverted.
func (c *Shared) Off() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.off != ""
}
