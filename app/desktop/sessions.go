package desktop

import (
	"errors"

	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/session"
)

// RenameSession gives a saved session a title of its own; "" goes back
// to its first prompt.
func (d *Desktop) RenameSession(id, title string) error {
	ws, err := d.current()
	if err != nil {
		return err
	}
	return session.Rename(ws.cfg.SessionsDir(), id, title)
}

// DeleteSession removes a saved session. Deleting the open conversation
// starts a new one first.
func (d *Desktop) DeleteSession(id string) error {
	ws, err := d.current()
	if err != nil {
		return err
	}
	ws.mu.Lock()
	open, busy := ws.status.SessionID == id, ws.turn != nil
	ws.mu.Unlock()
	if open {
		if busy {
			return errors.New("a turn is running in this conversation: stop it before deleting it")
		}
		if err := d.NewSession(); err != nil {
			return err
		}
	}
	// Its agent, kept running out of view, stops first (it has the
	// session open).
	if err := d.dropLive(id); err != nil {
		return err
	}
	return session.Delete(ws.open.AppDirs().Locks(), ws.cfg.SessionsDir(), id)
}

// SearchSessions finds the saved sessions whose prompts or replies
// contain query (ignoring case), with a snippet each.
func (d *Desktop) SearchSessions(query string) ([]session.Match, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	found, err := session.Search(ws.cfg.SessionsDir(), query, history.SessionText)
	return skipUnreadable(d.log, found, err, "search sessions")
}
