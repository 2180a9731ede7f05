package history

import (
	"encoding/json"

	"github.com/freeact/desktop/agent/model"
)

// Cell is one execution of code in the main agent's kernel, as the
// conversation records it.
type Cell struct {
	// ID is the code action's call id; "" for a cell the user ran.
	ID string
	// By says who ran the cell when it was not the model's code as the
	// model wrote it: ByEdited (a code action the user edited before
	// approving it), CellRerun or CellNotebook (the user's own cells).
	By string
	// Of is, for a cell the user ran again, the id of the cell it ran
	// again; for a notebook cell, the cell's id in the notebook.
	Of string
	// Code is the code that ran.
	Code string
	// Output is the output the model saw (offloaded output as the notice
	// that points to its file).
	Output string
	// Error is set when the cell raised, was rejected or interrupted, or
	// its kernel died.
	Error bool
	// Changed: the session's record of the cell is not one this app wrote
	// (the file was edited outside it, or written before records were
	// sealed). Set only where the records are checked (ReplayOffer).
	Changed bool
	// ElapsedMS is how long it ran, in milliseconds (0: not recorded).
	ElapsedMS int64
	// Of a cell the user ran, as it showed (model.Ran): Run is the id it
	// ran under (its events' correlation id, and its checkpoint record's
	// call), Original the code before the user edited it at its approval
	// ("" when not edited), Images the paths of the images it saved. A
	// code action's images are named in its Output. Where the records
	// are checked, they (and ElapsedMS) are set only from a record
	// sealed whole (seal.Key.Whole).
	Run      string
	Original string
	Images   []string
}

// ByEdited marks a code action the user edited before approving it.
const ByEdited = "edited"

// Cells lists the code that ran in the main agent's kernel, in order: the
// model's code actions (with the code that really ran when the user edited
// it) and the cells the user ran.
func Cells(history []model.Message) []Cell {
	var out []Cell
	walkCells(history, nil, func(c Cell) { out = append(out, c) }, func(model.FunctionResponse) {}, func(Note) {})
	return out
}

// SealChecker checks the records of code that ran (*seal.Key): Valid,
// that the code is as the app wrote it; Whole, that every field is.
type SealChecker interface {
	Valid(r model.Ran, callID string) bool
	Whole(r model.Ran, callID string) bool
}

// walkCells calls cell for each cell of the history in order, other for
// every other tool result, and note for every note that is not a cell.
// The code of a cell comes from its record (model.Ran), which no output
// can write; a result without one (a session written before records
// were kept) has the model's code. With sealed, a cell whose record is
// missing or fails the check is Changed, and what a record shows beyond
// its code (Run, Original, Images, ElapsedMS) is kept only when the
// seal covers it (Whole).
func walkCells(history []model.Message, sealed SealChecker, cell func(Cell), other func(model.FunctionResponse), note func(Note)) {
	code := map[string]string{} // by call id
	changed := func(r *model.Ran, id string) bool { return sealed != nil && (r == nil || !sealed.Valid(*r, id)) }
	shown := func(r *model.Ran, id string) bool { return sealed == nil || sealed.Whole(*r, id) }
	for _, m := range history {
		for _, p := range m.Parts {
			switch {
			case p.FunctionCall != nil && p.FunctionCall.Name == ExecuteTool:
				code[p.FunctionCall.ID] = CallCode(p.FunctionCall.Args)
			case p.FunctionResponse != nil && p.FunctionResponse.Name == ExecuteTool:
				r := p.FunctionResponse
				c := Cell{ID: r.ID, Code: code[r.ID], Output: r.Output, Error: r.IsError, Changed: changed(r.Ran, r.ID), ElapsedMS: r.ElapsedMS}
				if r.Ran != nil {
					c.By, c.Code, c.Error = r.Ran.By, r.Ran.Code, r.Ran.Error
				}
				if edited, output, ok := EditedCode(*r); ok {
					c.Code, c.Output = edited, output
				}
				cell(c)
			case p.FunctionResponse != nil:
				other(*p.FunctionResponse)
			case m.Role == model.RoleUser && p.Text != "":
				n, ok := ParseNote(NoteText(p))
				switch {
				case p.Ran != nil:
					c := Cell{By: p.Ran.By, Of: p.Ran.Of, Code: p.Ran.Code, Output: n.Output, Error: p.Ran.Error, Changed: changed(p.Ran, "")}
					if shown(p.Ran, "") {
						c.ElapsedMS, c.Run, c.Original, c.Images = p.Ran.ElapsedMS, p.Ran.Run, p.Ran.Original, p.Ran.Images
					}
					cell(c)
				case !ok:
				case n.Kind == NoteUserCell:
					cell(Cell{By: n.Source, Of: n.Of, Code: n.Code, Output: n.Output, Error: n.Error, Changed: changed(nil, "")})
				default:
					note(n)
				}
			}
		}
	}
}

// CallCode is the code argument of a code action ("" when it has none).
func CallCode(args []byte) string {
	var a struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(args, &a)
	return a.Code
}

// ReplayPlan is the cells whose effects the kernel held before it lost
// its state: the cells that succeeded since the state was last cleared on
// purpose (the model's ipybox_reset, or the user's choice not to restore
// it). A replay keeps the plan, or the part of it that ran when it was
// stopped.
func ReplayPlan(history []model.Message, sealed SealChecker) []Cell {
	var plan []Cell
	walkCells(history, sealed,
		func(c Cell) {
			if !c.Error {
				plan = append(plan, c)
			}
		},
		func(r model.FunctionResponse) {
			if r.Name == ResetTool && !r.IsError {
				plan = nil
			}
		},
		func(n Note) {
			if n.Kind != NoteKernelState {
				return
			}
			switch n.Event {
			case StateSkipped, StateNotRestored:
				plan = nil
			case StateReplayed:
				if n.Ran < n.Planned && n.Ran < len(plan) {
					plan = plan[:n.Ran]
				}
			}
		})
	return plan
}
