package ckpt

import (
	"context"
	"fmt"

	"github.com/freeact/desktop/agent/checkpoint"
	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/session"
)

// Recover completes in s the records of the actions a freeact process
// that died left running, and says so: a Notice each, and for the actions
// of sessionID a FilesChanged marked Late. It returns a revert that was
// cut short, nil when there is none.
func Recover(ctx context.Context, s *checkpoint.Store, sessionID string) ([]event.Event, *checkpoint.Interrupted, error) {
	var evs []event.Event
	done, err := s.Recover(ctx)
	for _, r := range done {
		evs = append(evs, &event.Notice{Meta: event.Meta{AgentID: session.MainAgent}, Text: fmt.Sprintf(
			"freeact stopped while an action was running (turn %d: %s). What it changed in %d files was recorded now, "+
				"with the files as they are now; review it or revert checkpoint %s.", r.Turn, r.Label, len(r.Changes), r.ID)})
		if r.Session == sessionID {
			evs = append(evs, &event.FilesChanged{Meta: event.Meta{AgentID: r.Agent, CorrelationID: r.Call}, Checkpoint: r.ID, TurnID: r.TurnID, Files: r.Changes, Late: true})
		}
	}
	if err != nil {
		return evs, nil, err
	}
	in, err := s.InterruptedRevert()
	return evs, in, err
}

// FinishRevert completes a revert of s that was cut short.
func FinishRevert(ctx context.Context, s *checkpoint.Store) (*event.Reverted, error) {
	if s == nil {
		return nil, ErrOff
	}
	r, err := s.FinishRevert(ctx)
	if err != nil || r == nil {
		return nil, err
	}
	return RevertedEvent(r, checkpoint.Plan{}, true), nil
}

// PlanRevert says what reverting the checkpoint id of s would do now.
func PlanRevert(ctx context.Context, s *checkpoint.Store, id string) (checkpoint.Plan, error) {
	if s == nil {
		return checkpoint.Plan{}, ErrOff
	}
	rs, err := s.Find(id)
	if err != nil {
		return checkpoint.Plan{}, err
	}
	return s.PlanRevert(ctx, rs)
}

// Revert takes back the changes of checkpoint id of s (see
// agent.Agent.Revert).
func Revert(ctx context.Context, s *checkpoint.Store, id string, force bool, deleteUnkept []string) (*event.Reverted, checkpoint.Plan, error) {
	rs, err := s.Find(id)
	if err != nil {
		return nil, checkpoint.Plan{}, err
	}
	r, plan, err := s.Revert(ctx, rs, checkpoint.Info{Session: rs[0].Session, Agent: session.MainAgent, Turn: rs[0].Turn, DeleteUnkept: deleteUnkept}, force)
	if err != nil || r == nil {
		return nil, plan, err
	}
	return RevertedEvent(r, plan, force), plan, nil
}

// LastTurn returns the id of the latest turn of sessionID in s that
// changed files; "" when there is none.
func LastTurn(s *checkpoint.Store, sessionID string) string {
	if s == nil {
		return ""
	}
	rs, err := s.Records()
	if err != nil {
		return ""
	}
	return checkpoint.LastTurn(rs, sessionID)
}

// NoteFor tells the model about the reverts of s it has not heard of
// (RevertNote); "" when there are none.
func (c *Shared) NoteFor(s *checkpoint.Store) (string, []string) {
	if s == nil {
		return "", nil
	}
	rs, err := s.Records()
	if err != nil {
		return "", nil
	}
	return c.RevertNote(rs)
}
