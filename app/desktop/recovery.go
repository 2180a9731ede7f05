package desktop

import (
	"errors"
	"fmt"
	"github.com/freeact/desktop/agent/longsession"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/checkpoint"
)

// What a freeact process that died or still runs left for the window: a
// revert cut short, to finish or roll back; a conversation another process
// writes, to continue in a copy.

// setInterrupted records the revert cut short (nil: none) for the status.
func (ws *workspace) setInterrupted(in *checkpoint.Interrupted) {
	var r *InterruptedRevert
	if in != nil {
		r = &InterruptedRevert{Label: in.Label, Files: in.Files, Time: in.Time.UTC().Format(time.RFC3339)}
	}
	ws.mu.Lock()
	ws.interrupted = r
	ws.mu.Unlock()
}

// afterRecovery records what is left interrupted once a finish or a
// rollback ended, well or not, and sends the status with it.
func (ws *workspace) afterRecovery(s *checkpoint.Store) {
	in, err := s.InterruptedRevert()
	if err != nil {
		ws.d.log.Warn("read the interrupted revert", "err", err)
	}
	ws.setInterrupted(in)
	ws.mu.Lock()
	st := ws.status
	ws.mu.Unlock()
	ws.setStatus(st)
}

// recovering returns the agent and store of the open workspace, idle,
// with a revert cut short to act on.
func (d *Desktop) recovering() (*workspace, *agent.Agent, *checkpoint.Store, error) {
	ws, err := d.idle("a turn is running: finish or roll back the revert when it has ended")
	if err != nil {
		return nil, nil, nil, err
	}
	a, s, err := ws.checkpoints()
	if err != nil {
		return nil, nil, nil, err
	}
	return ws, a, s, nil
}

// FinishRevert completes the revert a freeact process that died left cut
// short: the files end as the revert makes them, and its Reverted (whose
// Undo restores all it changed) goes to the conversation.
func (d *Desktop) FinishRevert() error {
	ws, a, s, err := d.recovering()
	if err != nil {
		return err
	}
	defer ws.afterRecovery(s)
	rev, err := a.FinishRevert(ws.d.host.context())
	if err != nil {
		return fmt.Errorf("finish the interrupted revert: %w", err)
	}
	if rev == nil {
		ws.push(queued{ev: &agent.Notice{Meta: agent.Meta{AgentID: agent.MainAgent}, Text: "The interrupted revert is finished; it changed nothing."}})
		return nil
	}
	ws.push(queued{ev: rev})
	return nil
}

// RollbackRevert puts the files a revert cut short changed back as they
// were before it.
func (d *Desktop) RollbackRevert() error {
	ws, a, s, err := d.recovering()
	if err != nil {
		return err
	}
	defer ws.afterRecovery(s)
	if err := a.RollbackRevert(ws.d.host.context()); err != nil {
		return fmt.Errorf("roll back the interrupted revert: %w", err)
	}
	ws.push(queued{ev: &agent.Notice{Meta: agent.Meta{AgentID: agent.MainAgent}, Text: "The interrupted revert was rolled back: the files are as they were before it."}})
	return nil
}

// ForkBusySession continues the conversation another process has open
// (the start failed with Problem "busy") in a copy, and opens the copy.
func (d *Desktop) ForkBusySession() (string, error) {
	ws, err := d.current()
	if err != nil {
		return "", err
	}
	ws.mu.Lock()
	src, cfg, busy := ws.session, ws.cfg, ws.status.Problem == "busy"
	ws.mu.Unlock()
	if !busy || src == "" {
		return "", errors.New("this conversation is not open in another window: nothing to fork")
	}
	id, err := longsession.CopySession(cfg, src)
	if err != nil {
		return "", fmt.Errorf("fork the conversation: %w", err)
	}
	ws.nameFork(src, id)
	ws.show(id)
	ws.restart(id)
	return id, nil
}
