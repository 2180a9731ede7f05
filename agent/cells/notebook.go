package cells

import (
	"fmt"
	"os"
	"strings"

	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/notebook"
)

// maxSavedOutput bounds the saved output of one notebook cell that the
// model is shown.
const maxSavedOutput = 2000

// ReadNotebook reads the notebook at path as the cells OpenNotebook gives
// the model: markdown and code cells (raw cells are left out) with the
// text of their saved outputs.
func ReadNotebook(path string) ([]history.NotebookCell, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open notebook: %w", err)
	}
	defer f.Close()
	nb, err := notebook.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var cells []history.NotebookCell
	for i, c := range nb.Cells {
		if c.CellType == notebook.Raw {
			continue
		}
		id := c.ID
		if id == "" || !history.IsNoteCellID(id) {
			id = fmt.Sprintf("cell-%d", i+1)
		}
		cells = append(cells, history.NotebookCell{ID: id, Type: c.CellType, Source: c.Source, Output: savedOutput(c.Outputs)})
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

// NotebookCells returns the code cells of the notebook opened last in
// hist, as cells the user runs, each asked before it runs; ok is false
// when no notebook was opened.
func NotebookCells(hist []model.Message) (cells []UserCell, ok bool) {
	var opened *history.Note
	for _, m := range hist {
		for _, p := range m.Parts {
			if n, ok := history.ParseNote(history.NoteText(p)); ok && n.Kind == history.NoteNotebook && m.Role == model.RoleUser {
				opened = &n
			}
		}
	}
	if opened == nil {
		return nil, false
	}
	for _, c := range opened.Cells {
		if c.Type == notebook.Code && strings.TrimSpace(c.Source) != "" {
			cells = append(cells, UserCell{Code: c.Source, Source: history.CellNotebook, Of: c.ID, Ask: true})
		}
	}
	return cells, true
}
