package export

import (
	"encoding/json"
	"errors"
	"fmt"
	hist "github.com/freeact/desktop/agent/history"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/freeact/desktop/agent/checkpoint"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/notebook"
	"github.com/freeact/desktop/agent/seal"
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

// SessionRecord is what a session keeps besides its messages, for
// Transcript.
type SessionRecord struct {
	// Times are when each message of the history was saved; nil leaves
	// the turns' durations out.
	Times []time.Time
	// Compactions are the summaries that replaced the history before
	// them for the model.
	Compactions []session.Compaction
	// Changes are the files each action changed, by call id.
	Changes map[string][]checkpoint.Change
	// Price is what a model call cost; nil leaves costs out.
	Price func(modelName string, u model.Usage) *float64
	// Sealed checks the records of code that ran: a cell the user ran
	// lists the files its run changed only when its record is sealed
	// whole, so an edit of the session file cannot point it at another
	// action's files. Nil lists none.
	Sealed hist.SealChecker
}

// Stores are the app's folders an export reads besides the workspace.
type Stores struct {
	// Checkpoints is the root of the checkpoint stores
	// (appdirs.Dirs.Checkpoints); "" leaves the files actions changed out.
	Checkpoints string
	// Keys is the folder of the workspace's seal key (appdirs.Dirs.Config,
	// the agent's key folder); "" lists no files for cells the user ran.
	Keys string
}

// Transcript turns a conversation into what exports render: prompts,
// answers and thoughts, the code that ran (the user's edits and own cells
// included) with its output and the files it changed, other tool calls in
// a line, notes on the kernel's state, the summaries that replaced history,
// and after each turn its duration and cost. dir is the workspace, against
// which image paths resolve.
func Transcript(history []model.Message, title, dir string, rec SessionRecord) *notebook.Transcript {
	t := &notebook.Transcript{Title: title, Dir: dir}
	add := func(e notebook.Entry) { t.Entries = append(t.Entries, e) }
	calls := map[string]model.FunctionCall{}
	files := func(id string) []notebook.FileChange {
		var out []notebook.FileChange
		for _, c := range rec.Changes[id] {
			out = append(out, notebook.FileChange{Path: c.Path, Status: c.Status})
		}
		return out
	}
	summaries := map[int][]session.Compaction{}
	for _, c := range rec.Compactions {
		summaries[c.Upto] = append(summaries[c.Upto], c)
	}
	turns := turnSpans(history, rec)
	// before adds what comes before message i: the end of the turn before
	// it, and the summaries that replaced the messages before it.
	before := func(i int) {
		if turn, ok := turns[i]; ok {
			add(turn)
		}
		for _, c := range summaries[i] {
			add(notebook.Entry{Kind: notebook.KindSummary, Text: c.Reason})
			add(notebook.Entry{Kind: notebook.KindNote, Text: c.Summary})
		}
	}
	for i, m := range history {
		before(i)
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
			case p.FunctionResponse != nil && p.FunctionResponse.Name == hist.ExecuteTool:
				r := p.FunctionResponse
				e := notebook.Entry{Kind: notebook.KindCode, Code: hist.CallCode(calls[r.ID].Args), Output: r.Output, Error: r.IsError, Files: files(r.ID)}
				if code, out, ok := hist.EditedCode(*r); ok {
					e.Code, e.Output, e.By = code, out, byEditedText
				}
				add(e)
			case p.FunctionResponse != nil:
				r := p.FunctionResponse
				line := fmt.Sprintf("`%s`%s", r.Name, argsSummary(calls[r.ID].Args))
				if r.IsError {
					line += " (failed)"
				}
				add(notebook.Entry{Kind: notebook.KindTool, Text: line, Files: files(r.ID)})
			case p.Image != nil:
				prompt = append(prompt, "*(an image was attached)*")
			case p.Text != "":
				if note, ok := hist.TaggedNote(hist.NoteText(p)); ok {
					// What the model was told: the files the user
					// reverted, a reply cut, a turn that failed.
					flush()
					add(notebook.Entry{Kind: notebook.KindNote, Text: note})
					continue
				}
				n, ok := hist.ParseNote(hist.NoteText(p))
				if !ok {
					prompt = append(prompt, p.Text)
					continue
				}
				switch n.Kind {
				case hist.NoteUserCell:
					flush()
					// The run's files come from its sealed record only:
					// neither output nor an edit of the session file can
					// write it (the note's own run= is text).
					var changed []notebook.FileChange
					if p.Ran != nil && p.Ran.Run != "" && rec.Sealed != nil && rec.Sealed.Whole(*p.Ran, "") {
						changed = files(p.Ran.Run)
					}
					add(notebook.Entry{Kind: notebook.KindCode, Code: n.Code, Output: n.Output, Error: n.Error, By: byUserText, Files: changed})
				case hist.NoteKernelState:
					flush()
					add(notebook.Entry{Kind: notebook.KindNote, Text: n.Text})
				case hist.NoteNotebook:
					flush()
					add(notebook.Entry{Kind: notebook.KindNote, Text: fmt.Sprintf("The session started from the notebook %s (%d cells).", n.Path, len(n.Cells))})
				}
			}
		}
		flush()
	}
	before(len(history))
	return t
}

// turnSpans returns the KindTurn entry of each turn, by the index of the
// message it goes before: a turn runs from a prompt to its last model
// message or tool result, before the next prompt or note. Its duration
// needs rec.Times, its cost rec.Price; without either it has no entry.
func turnSpans(history []model.Message, rec SessionRecord) map[int]notebook.Entry {
	if rec.Price == nil && rec.Times == nil {
		return nil
	}
	out := map[int]notebook.Entry{}
	start, last := -1, -1
	var e notebook.Entry
	end := func(at int) {
		if start < 0 {
			return
		}
		if len(rec.Times) == len(history) && last > start && !rec.Times[start].IsZero() && !rec.Times[last].IsZero() {
			e.Duration = rec.Times[last].Sub(rec.Times[start])
		}
		if e.Duration > 0 || e.Cost != nil || e.Unpriced > 0 {
			out[at] = e
		}
		start, last, e = -1, -1, notebook.Entry{Kind: notebook.KindTurn}
	}
	for i, m := range history {
		switch {
		case hist.IsPrompt(m):
			end(i)
			start, last = i, i
			e = notebook.Entry{Kind: notebook.KindTurn}
		case start < 0:
		case m.Role == model.RoleModel:
			last = i
			if m.Usage != nil && rec.Price != nil {
				if c := rec.Price(m.Model, *m.Usage); c != nil {
					if e.Cost == nil {
						e.Cost = new(float64)
					}
					*e.Cost += *c
				} else {
					e.Unpriced++
				}
			}
		case len(m.FunctionResponses()) > 0:
			last = i
		default: // a note after the turn (a cell the user ran, the kernel's state)
			end(i)
		}
	}
	end(len(history))
	return out
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
// format, titled "freeact session <id>", with each turn's duration and
// cost, the summaries that replaced history, and the files each action
// changed as the checkpoint stores recorded them (stores.Checkpoints; for
// the cells the user ran, only when their records are sealed under the
// key in stores.Keys).
func ExportSession(cfg *config.Config, id, format string, opts notebook.Options, stores Stores) ([]byte, error) {
	if _, err := Render(&notebook.Transcript{}, format, opts); err != nil {
		return nil, err
	}
	st, err := session.Open(cfg.SessionsDir(), id, hist.SessionFormat)
	if err != nil {
		return nil, fmt.Errorf("export session: %w", err)
	}
	if !st.Exists() {
		return nil, fmt.Errorf("export session: no session %q in %s: the session list (freeact's window, or the folder) has the ids", id, cfg.SessionsDir())
	}
	hist, times, err := st.LoadTimed(session.MainAgent)
	if err != nil {
		return nil, fmt.Errorf("export session %s: %w", id, err)
	}
	rec := SessionRecord{Times: times, Price: func(name string, u model.Usage) *float64 { return cfg.PriceOf(name, u) }}
	if rec.Compactions, err = st.Compactions(session.MainAgent); err != nil {
		return nil, fmt.Errorf("export session %s: %w", id, err)
	}
	if rec.Changes, err = sessionChanges(cfg.Dir, stores.Checkpoints, id); err != nil {
		return nil, fmt.Errorf("export session %s: the files its actions changed: %w", id, err)
	}
	if stores.Keys != "" && rec.Changes != nil {
		key, err := seal.Load(stores.Keys, cfg.Dir)
		if err != nil {
			return nil, fmt.Errorf("export session %s: the key that seals its records: %w", id, err)
		}
		rec.Sealed = key
	}
	return Render(Transcript(hist, "freeact session "+id, cfg.Dir, rec), format, opts)
}

// sessionChanges returns the files each action of session id changed, by
// call id, from the workspace's checkpoint store under root; none when
// there is no store.
func sessionChanges(ws, root, id string) (map[string][]checkpoint.Change, error) {
	if root == "" {
		return nil, nil
	}
	dir := checkpoint.Dir(root, ws)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	s, err := checkpoint.Open(dir, ws, checkpoint.Options{})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	rs, err := s.Records()
	if err != nil {
		return nil, err
	}
	out := map[string][]checkpoint.Change{}
	for _, r := range rs {
		if r.Kind == checkpoint.KindAction && r.Session == id && r.Call != "" {
			out[r.Call] = append(out[r.Call], r.Changes...)
		}
	}
	return out, nil
}
