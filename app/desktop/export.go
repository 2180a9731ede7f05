package desktop

import (
	"fmt"

	"github.com/freeact/desktop/agent/session"
	"github.com/freeact/desktop/app/adapter"
)

// ExportSession asks where to save the current session and writes it as a
// Jupyter notebook ("ipynb"), Markdown ("md") or an HTML page ("html"),
// with the model's thoughts when thoughts is set. It returns the path
// written, or "" when the dialog was cancelled.
func (d *Desktop) ExportSession(format string, thoughts bool) (string, error) {
	ext, ok := adapter.ExportExt[format]
	if !ok {
		return "", fmt.Errorf("unknown export format %q: want ipynb, md or html", format)
	}
	ws, err := d.current()
	if err != nil {
		return "", err
	}
	// The conversation the window shows, read from its session file: it
	// needs no running agent (right after a fork, or a restart, the new
	// one is still starting).
	ws.mu.Lock()
	id, cfg := ws.session, ws.cfg
	if ws.agent != nil && ws.agent.SessionID() != "" {
		id = ws.agent.SessionID()
	}
	ws.mu.Unlock()
	if id == "" || !adapter.SessionExists(cfg, id) {
		return "", fmt.Errorf("there is no session to export yet: send a prompt first (or turn enable_persistence on)")
	}
	data, err := adapter.Export(cfg, id, format, thoughts, d.build.Dirs)
	if err != nil {
		return "", err
	}
	name := "session-" + id[:min(8, len(id))]
	if list, err := session.List(cfg.SessionsDir(), adapter.SessionTitle); err == nil {
		for _, s := range list {
			if s.ID == id {
				name = adapter.ExportName(s.Title, name)
			}
		}
	}
	return d.saveAs("Export the session", ws.dir, name+ext, data, "export")
}
