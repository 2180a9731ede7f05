package longsession

import (
	"errors"
	"fmt"
	"github.com/freeact/desktop/agent/history"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/session"
)

// ForkSession starts a new session of the workspace cfg with the main
// conversation of session src before its prompt number turn (from 1), and
// returns the new session's id and that prompt, for the user to send again
// or change. The source session is not changed. Resume the new id with
// WithSessionID; its kernel starts fresh.
func ForkSession(cfg *config.Config, src string, turn int) (string, history.Prompt, error) {
	if !cfg.Options.EnablePersistence {
		return "", history.Prompt{}, errors.New("sessions cannot be forked: enable_persistence is false")
	}
	st, err := session.Open(cfg.SessionsDir(), src, history.SessionFormat)
	if err != nil {
		return "", history.Prompt{}, err
	}
	if !st.Exists() {
		return "", history.Prompt{}, fmt.Errorf("no session %q in %s", src, cfg.SessionsDir())
	}
	msgs, err := st.Load(session.MainAgent)
	if err != nil {
		return "", history.Prompt{}, fmt.Errorf("fork session %s: %w", src, err)
	}
	n := 0
	for i, m := range msgs {
		if !history.IsPrompt(m) {
			continue
		}
		if n++; n < turn {
			continue
		}
		id := session.NewID()
		if err := st.Fork(id, i); err != nil {
			return "", history.Prompt{}, err
		}
		return id, promptOf(m), nil
	}
	return "", history.Prompt{}, fmt.Errorf("fork session %s: it has %d prompts, not %d", src, n, turn)
}

// CopySession starts a new session of the workspace cfg with all of
// session src's main conversation, for continuing it while src is open in
// another process, and returns the new id.
func CopySession(cfg *config.Config, src string) (string, error) {
	st, err := session.Open(cfg.SessionsDir(), src, history.SessionFormat)
	if err != nil {
		return "", err
	}
	msgs, err := st.Load(session.MainAgent)
	if err != nil {
		return "", fmt.Errorf("copy session %s: %w", src, err)
	}
	if len(msgs) == 0 {
		return "", fmt.Errorf("no session %q in %s", src, cfg.SessionsDir())
	}
	id := session.NewID()
	if err := st.Fork(id, len(msgs)); err != nil {
		return "", err
	}
	return id, nil
}

// promptOf returns what the user sent in a prompt message, without what
// the agent added (a note on reverted files).
func promptOf(m model.Message) history.Prompt {
	var p history.Prompt
	for _, part := range m.Parts {
		switch {
		case part.Image != nil:
			p.Images = append(p.Images, *part.Image)
		case part.Text != "" && !part.Thought && !history.IsAgentNote(history.NoteText(part)):
			if p.Text != "" {
				p.Text += "\n"
			}
			p.Text += part.Text
		}
	}
	return p
}
