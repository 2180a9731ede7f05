package agent

import (
	"fmt"

	"github.com/freeact/desktop/agent/ckpt"
	"github.com/freeact/desktop/agent/failure"
	"github.com/freeact/desktop/agent/longsession"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/session"
)

// beginCheckpointTurn names the turn for checkpoint records: a new id, the
// prompt's number in the session and its text.
func (a *Agent) beginCheckpointTurn(user model.Message) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.turn = ckpt.NewTurn(a.history, user.Text(), 1)
}

// record appends messages to the history and the session file.
func (a *Agent) record(msgs ...model.Message) error {
	a.mu.Lock()
	a.history = append(a.history, msgs...)
	a.mu.Unlock()
	if a.store == nil {
		return nil
	}
	if err := a.store.Append(a.id, msgs...); err != nil {
		return &failure.SessionError{Err: fmt.Errorf("write session: %w", err)}
	}
	return nil
}

// markSession returns where the agent's session file ends, for
// rollbackSession.
func (a *Agent) markSession() (session.Mark, error) {
	if a.store == nil {
		return session.Mark{}, nil
	}
	m, err := a.store.Mark(a.id)
	if err != nil {
		return m, &failure.SessionError{Err: fmt.Errorf("write session: %w", err)}
	}
	return m, nil
}

// rollbackSession takes the agent's session file back to m, and the
// compactions of the messages taken out with it. What the model calls
// among them cost (dropped, and the compactions' summarising calls) is
// kept in the session, as it is in the agent's costs.
func (a *Agent) rollbackSession(m session.Mark, dropped []model.Message) error {
	if a.store == nil {
		return nil
	}
	comps, err := a.store.Rollback(a.id, m)
	if err != nil {
		return err
	}
	var spent []session.Spent
	for _, msg := range dropped {
		if msg.Role == model.RoleModel && msg.Usage != nil {
			spent = append(spent, session.Spent{Agent: a.id, Model: msg.Model, Usage: longsession.UsageJSON([]model.Usage{*msg.Usage})})
		}
	}
	for _, c := range comps {
		if len(c.Usage) > 0 {
			spent = append(spent, session.Spent{Agent: a.id, Model: c.Model, Usage: c.Usage})
		}
	}
	return a.store.AppendSpent(spent...)
}

// sync flushes the session at a turn boundary.
func (a *Agent) sync() {
	if a.store == nil {
		return
	}
	if err := a.store.Sync(); err != nil {
		a.opts.log.Warn("session not synced", "err", err)
	}
}
