package desktop

import (
	"errors"
	"github.com/freeact/desktop/agent/longsession"
	"strings"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/checkpoint"
	"github.com/freeact/desktop/agent/session"
	"github.com/freeact/desktop/app/adapter"
)

// The window's long-session bindings: compacting, the budget, checkpoint
// diffs and reverts, and forks.

// nextTurn returns the number the agent's next prompt gets.
func nextTurn(a *agent.Agent) int {
	n := 1
	for _, m := range a.History() {
		if agent.IsPrompt(m) {
			n++
		}
	}
	return n
}

// CompactNow summarises the older turns of the conversation ("Compact
// now"). It runs in the background like a turn; its events (Compacting,
// Compacted with the summary, Usage) arrive as EventAgent batches.
func (d *Desktop) CompactNow() error {
	ws, err := d.current()
	if err != nil {
		return err
	}
	a, t, err := ws.claim()
	if err != nil {
		return err
	}
	ws.push(queued{raw: adapter.MustJSON(turnMarker{Type: "TurnStarted", AgentID: agent.MainAgent})})
	ws.setStatus(KernelStatus{State: KernelBusy, Message: "Compacting…", Progress: -1})
	go ws.run(t, a.Compact(ws.d.host.context()))
	return nil
}

// ContinueBudget answers a BudgetRequest: ok raises the budget by
// max_cost_per_session and makes the call; no stops the turn.
func (d *Desktop) ContinueBudget(id string, ok bool) error {
	req, err := takeRequest[*agent.BudgetRequest](d, id, "budget request")
	if err != nil {
		return err
	}
	req.Continue(ok)
	return nil
}

// checkpoints returns the running agent and its checkpoint store.
func (ws *workspace) checkpoints() (*agent.Agent, *checkpoint.Store, error) {
	ws.mu.Lock()
	a := ws.agent
	ws.mu.Unlock()
	if a == nil {
		return nil, nil, errors.New("the kernel is still starting: wait for \"Kernel ready\"")
	}
	s := a.Checkpoints()
	if s == nil {
		return nil, nil, errors.New("checkpoints are off: turn them on in the settings (checkpoints)")
	}
	return a, s, nil
}

// CheckpointDiff returns the files a checkpoint changed (an action's, a
// turn's or a revert's id), each with its unified diff.
func (d *Desktop) CheckpointDiff(id string) ([]checkpoint.FileDiff, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	_, s, err := ws.checkpoints()
	if err != nil {
		return nil, err
	}
	rs, err := s.Find(id)
	if err != nil {
		return nil, err
	}
	diffs, err := s.Diff(ws.d.host.context(), rs)
	if diffs == nil {
		diffs = []checkpoint.FileDiff{}
	}
	return diffs, err
}

// PlanRevert says what reverting checkpoint id would do: the files it
// restores, those changed since (conflicts) and those too large to have
// been kept.
func (d *Desktop) PlanRevert(id string) (checkpoint.Plan, error) {
	ws, err := d.current()
	if err != nil {
		return checkpoint.Plan{}, err
	}
	a, _, err := ws.checkpoints()
	if err != nil {
		return checkpoint.Plan{}, err
	}
	return a.PlanRevert(ws.d.host.context(), id)
}

// Revert takes back checkpoint id (an action, a turn, or a revert, which
// redoes what it reverted); force also reverts files changed since and
// protected files (after the dialog showed their warning). deleteUnkept
// are the files of the plan's Unkept the user ticked; the others stay. A
// Reverted event reports it in the conversation; the model hears of it
// with the next prompt. Not while a turn runs.
func (d *Desktop) Revert(id string, force bool, deleteUnkept []string) error {
	ws, err := d.idle("a turn is running: revert when it has ended")
	if err != nil {
		return err
	}
	a, _, err := ws.checkpoints()
	if err != nil {
		return err
	}
	rev, _, err := a.Revert(ws.d.host.context(), id, force, deleteUnkept...)
	if err != nil {
		return err
	}
	if rev == nil {
		return errors.New("nothing to revert: the files are already as they were")
	}
	ws.push(queued{ev: rev})
	return nil
}

// ForkResult is a new session forked from the open one.
type ForkResult struct {
	SessionID string `json:"sessionId"`
	// Prompt is the text of the prompt the fork was made at, for the
	// prompt box.
	Prompt string `json:"prompt"`
}

// ForkSession starts a new session with the conversation before prompt
// number turn of the open session, and switches the window to it (the
// kernel starts afresh); the original session stays as it is. With edited
// set, that text is sent as the fork's first prompt once the agent is
// ready ("edit a past prompt").
func (d *Desktop) ForkSession(turn int, edited string) (ForkResult, error) {
	ws, err := d.current()
	if err != nil {
		return ForkResult{}, err
	}
	ws.mu.Lock()
	busy, sid, cfg := ws.turn != nil, ws.status.SessionID, ws.cfg
	ws.mu.Unlock()
	if busy {
		return ForkResult{}, errors.New("a turn is running: stop it before forking")
	}
	if sid == "" {
		return ForkResult{}, errors.New("this session has nothing to fork yet")
	}
	id, prompt, err := longsession.ForkSession(cfg, sid, turn)
	if err != nil {
		return ForkResult{}, err
	}
	ws.nameFork(sid, id)
	if edited != "" {
		ws.mu.Lock()
		ws.queuedPrompt = edited
		ws.mu.Unlock()
	}
	ws.show(id)
	ws.restart(id)
	return ForkResult{SessionID: id, Prompt: prompt.Text}, nil
}

// nameFork titles fork after its source ("Fork of …"), so that the two
// differ in the session list. A fork before the first prompt has no
// messages to keep a title with yet: it keeps its own.
func (ws *workspace) nameFork(source, fork string) {
	list, err := session.List(ws.cfg.SessionsDir(), adapter.SessionTitle)
	for _, s := range list {
		if s.ID == source && s.Title != "" {
			err = session.Rename(ws.cfg.SessionsDir(), fork, forkTitle(s.Title))
		}
	}
	if err != nil {
		ws.d.log.Info("the fork keeps its own title", "session", fork, "err", err)
	}
}

// forkTitle is the title of a fork of a session titled title, within
// the length a title may have.
func forkTitle(title string) string {
	t := "Fork of " + strings.TrimPrefix(title, "Fork of ")
	if r := []rune(t); len(r) > 200 {
		t = string(r[:199]) + "…"
	}
	return t
}

// sendQueued sends the prompt a fork was made with, once its agent is
// ready.
func (ws *workspace) sendQueued() {
	ws.mu.Lock()
	p := ws.queuedPrompt
	ws.queuedPrompt = ""
	ws.mu.Unlock()
	if p == "" {
		return
	}
	if err := ws.d.Send(p, nil); err != nil {
		ws.push(queued{raw: adapter.MustJSON(map[string]string{"type": "Failed", "agent_id": agent.MainAgent, "error": "the edited prompt was not sent: " + err.Error()})})
	}
}
