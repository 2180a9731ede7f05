package agent

import (
	"context"
	"fmt"
	"github.com/freeact/desktop/agent/history"
	"iter"
	"os"
	"path/filepath"
	"strings"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/notebook"
)

// maxSavedOutput bounds the saved output of one notebook cell that the
// model is shown.
const maxSavedOutput = 2000

// ReadNotebook reads the notebook at path as the cells OpenNotebook gives
// the model: markdown and code cells (raw cells are left out) with the
// text of their saved outputs.
func ReadNotebook(path string) ([]NotebookCell, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open notebook: %w", err)
	}
	defer f.Close()
	nb, err := notebook.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var cells []NotebookCell
	for i, c := range nb.Cells {
		if c.CellType == notebook.Raw {
			continue
		}
		id := c.ID
		if id == "" || !history.IsNoteCellID(id) {
			id = fmt.Sprintf("cell-%d", i+1)
		}
		cells = append(cells, NotebookCell{ID: id, Type: c.CellType, Source: c.Source, Output: savedOutput(c.Outputs)})
	}
	return cells, nil
}

// savedOutput is the text of a cell's saved outputs, cut to
// maxSavedOutput characters.
func savedOutput(outs []notebook.Output) string {
	var b strings.Builder
	for _, o := range outs {
		switch o.OutputType {
		case notebook.Stream:
			b.WriteString(o.Text)
		case notebook.ExecuteResult, notebook.DisplayData:
			if t, ok := o.Data["text/plain"]; ok && !strings.HasPrefix(t, "<Figure") {
				b.WriteString(strings.TrimRight(t, "\n") + "\n")
			} else if len(o.Data) > 0 {
				b.WriteString("[image]\n")
			}
		case notebook.Error:
			b.WriteString(o.Ename + ": " + o.Evalue + "\n")
		}
	}
	s := b.String()
	if r := []rune(s); len(r) > maxSavedOutput {
		s = string(r[:maxSavedOutput]) + "\n… (cut)"
	}
	return s
}

// OpenNotebook starts from the notebook at path: its cells become context
// the model sees (the conversation records them, with the text of their
// saved outputs), and RunNotebook runs its code. It is meant for the start
// of a session, and fails while a turn runs.
func (a *Agent) OpenNotebook(path string) ([]NotebookCell, error) {
	cells, err := ReadNotebook(path)
	if err != nil {
		return nil, err
	}
	if len(cells) == 0 {
		return nil, fmt.Errorf("%s has no markdown or code cells", path)
	}
	shown := path
	if rel, err := filepath.Rel(a.cfg.Dir, path); err == nil && filepath.IsLocal(rel) {
		shown = rel
	}
	err = a.claim(func() error {
		msg := model.Message{Role: model.RoleUser, Parts: []model.Part{{Text: history.NotebookNote(shown, cells)}}}
		if err := a.record(msg); err != nil {
			return err
		}
		a.sync()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return cells, nil
}

// RunNotebook runs the code cells of the notebook opened last, in order,
// as RunCells does: each is approved as a code action before it runs (its
// shell commands and tool calls are asked one by one), a "no" or Cancel
// stops the rest, and what ran is recorded for the model.
func (a *Agent) RunNotebook(ctx context.Context) iter.Seq[Event] {
	var opened *Note
	for _, m := range a.History() {
		for _, p := range m.Parts {
			if n, ok := ParseNote(NoteText(p)); ok && n.Kind == NoteNotebook && m.Role == model.RoleUser {
				opened = &n
			}
		}
	}
	if opened == nil {
		return func(yield func(Event) bool) {
			yield(&Failed{Meta: Meta{AgentID: a.id}, Error: "no notebook was opened in this session"})
		}
	}
	var cells []UserCell
	for _, c := range opened.Cells {
		if c.Type == notebook.Code && strings.TrimSpace(c.Source) != "" {
			cells = append(cells, UserCell{Code: c.Source, Source: CellNotebook, Of: c.ID, Ask: true})
		}
	}
	return a.RunCells(ctx, cells)
}
