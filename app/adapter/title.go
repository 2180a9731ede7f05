package adapter

import (
	"encoding/json"
	"strings"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/model"
)

// SessionTitle is a session's title in every front end's session list
// (session.List's title function): its first user prompt, or the notebook
// the session started from.
func SessionTitle(raw json.RawMessage) (string, bool) {
	m, ok, err := history.DecodeSessionMessage(raw)
	if err != nil || !ok || m.Role != model.RoleUser || len(m.FunctionResponses()) > 0 {
		return "", false
	}
	var text []string
	for _, p := range m.Parts {
		if p.Text == "" || p.Image != nil {
			continue
		}
		n, ok := history.ParseNote(agent.NoteText(p))
		switch {
		case !ok:
			text = append(text, p.Text)
		case n.Kind == history.NoteNotebook:
			return "Notebook " + n.Path, true
		}
	}
	t := strings.TrimSpace(strings.Join(text, ""))
	if t == "" {
		return "", false
	}
	return t, true
}
