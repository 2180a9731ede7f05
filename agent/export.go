package agent

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/notebook"
	"github.com/freeact/desktop/agent/session"
)

// Export formats.
const (
	FormatNotebook = "ipynb" // a Jupyter notebook (nbformat 4.5)
	FormatMarkdown = "md"
	FormatHTML     = "html" // one self-contained page
)

// Who ran a code cell, as exports say it.
const (
	byEditedText = "edited by the user"
	byUserText   = "run by the user"
)

// Transcript turns a conversation into what exports render: prompts,
// answers and thoughts, the code that ran (the user's edits and own cells
// included) with its output, other tool calls in a line, and notes on the
// kernel's state. dir is the workspace, against which image paths resolve.
func Transcript(history []model.Message, title, dir string) *notebook.Transcript {
	t := &notebook.Transcript{Title: title, Dir: dir}
	add := func(e notebook.Entry) { t.Entries = append(t.Entries, e) }
	calls := map[string]model.FunctionCall{}
	for _, m := range history {
		if m.Role == model.RoleModel {
			for _, p := range m.Parts {
				switch {
				case p.FunctionCall != nil:
					calls[p.FunctionCall.ID] = *p.FunctionCall
				case p.Thought && p.Text != "":
					add(notebook.Entry{Kind: notebook.KindThought, Text: p.Text})
				case p.Text != "":
					add(notebook.Entry{Kind: notebook.KindAnswer, Text: p.Text})
				}
			}
			continue
		}
		var prompt []string
		flush := func() {
			if len(prompt) > 0 {
				add(notebook.Entry{Kind: notebook.KindPrompt, Text: strings.Join(prompt, "\n\n")})
				prompt = nil
			}
		}
		for _, p := range m.Parts {
			switch {
			case p.FunctionResponse != nil && p.FunctionResponse.Name == ExecuteTool:
				r := p.FunctionResponse
				e := notebook.Entry{Kind: notebook.KindCode, Code: callCode(calls[r.ID].Args), Output: r.Output, Error: r.IsError}
				if code, out, ok := EditedCode(r.Output); ok {
					e.Code, e.Output, e.By = code, out, byEditedText
				}
				add(e)
			case p.FunctionResponse != nil:
				r := p.FunctionResponse
				line := fmt.Sprintf("`%s`%s", r.Name, argsSummary(calls[r.ID].Args))
				if r.IsError {
					line += " (failed)"
				}
				add(notebook.Entry{Kind: notebook.KindTool, Text: line})
			case p.Image != nil:
				prompt = append(prompt, "*(an image was attached)*")
			case p.Text != "":
				if note, ok := taggedNote(p.Text); ok {
					// What the model was told: the files the user
					// reverted, a reply cut, a turn that failed.
					flush()
					add(notebook.Entry{Kind: notebook.KindNote, Text: note})
					continue
				}
				n, ok := ParseNote(p.Text)
				if !ok {
					prompt = append(prompt, p.Text)
					continue
				}
				switch n.Kind {
				case NoteUserCell:
					flush()
					add(notebook.Entry{Kind: notebook.KindCode, Code: n.Code, Output: n.Output, Error: n.Error, By: byUserText})
				case NoteKernelState:
					flush()
					add(notebook.Entry{Kind: notebook.KindNote, Text: n.Text})
				case NoteNotebook:
					flush()
					add(notebook.Entry{Kind: notebook.KindNote, Text: fmt.Sprintf("The session started from the notebook %s (%d cells).", n.Path, len(n.Cells))})
				}
			}
		}
		flush()
	}
	return t
}

// argsSummary shows a tool call's arguments in a line: " (key: value, ...)".
func argsSummary(args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil || len(m) == 0 {
		return ""
	}
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		v, _ := json.Marshal(m[k])
		s := string(v)
		if str, ok := m[k].(string); ok {
			s = str
		}
		s = strings.ReplaceAll(s, "\n", " ")
		if r := []rune(s); len(r) > 60 {
			s = string(r[:59]) + "…"
		}
		parts[i] = k + ": " + s
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// Render renders a transcript in format (FormatNotebook, FormatMarkdown or
// FormatHTML).
func Render(t *notebook.Transcript, format string, opts notebook.Options) ([]byte, error) {
	switch format {
	case FormatNotebook:
		return t.Notebook(opts).Marshal()
	case FormatMarkdown:
		return []byte(t.Markdown(opts)), nil
	case FormatHTML:
		s, err := t.HTML(opts)
		return []byte(s), err
	}
	return nil, fmt.Errorf("unknown export format %q: use %s, %s or %s", format, FormatNotebook, FormatMarkdown, FormatHTML)
}

// ExportSession renders the saved session id of the workspace cfg in
// format, titled "freeact session <id>".
func ExportSession(cfg *config.Config, id, format string, opts notebook.Options) ([]byte, error) {
	if _, err := Render(&notebook.Transcript{}, format, opts); err != nil {
		return nil, err
	}
	st, err := session.Open(cfg.SessionsDir(), id, freeactSessions)
	if err != nil {
		return nil, fmt.Errorf("export session: %w", err)
	}
	if !st.Exists() {
		return nil, fmt.Errorf("export session: no session %q in %s: the session list (freeact's window, or the folder) has the ids", id, cfg.SessionsDir())
	}
	hist, err := st.Load(MainAgent)
	if err != nil {
		return nil, fmt.Errorf("export session %s: %w", id, err)
	}
	return Render(Transcript(hist, "freeact session "+id, cfg.Dir), format, opts)
}
