package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"github.com/freeact/desktop/agent/ckpt"
	"github.com/freeact/desktop/agent/history"
	"iter"
	"strings"
	"time"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/internal/redact"
)

// UserCell is code the user runs in the main agent's kernel themselves:
// a past cell again (as it was or edited), or a notebook cell.
type UserCell struct {
	Code string
	// Source is CellRerun or CellNotebook.
	Source string
	// Of is the id of the cell run again (a code action's call id), or
	// the notebook cell's id.
	Of string
	// Ask approves the cell as a code action before it runs (permission
	// rules for code actions apply), as for notebook cells the user did
	// not write; a cell the user typed or chose to run again is not asked.
	// The shell commands and tool calls inside a cell are asked either way.
	Ask bool
}

// RunCells runs cells in the kernel as the user's own action: no model
// call, one after another, each announced by a CellStarted event and
// followed by its output like a code action's, the batch ended by
// CellsFinished. Each cell that ran is recorded in the conversation with
// its output, so the next model call sees what the user ran. A "no" (to a
// cell that asks, or to a command inside one) or Cancel stops the batch.
// It takes the place of a turn: only one of them runs at a time.
func (a *Agent) RunCells(ctx context.Context, cells []UserCell) iter.Seq[Event] {
	return a.exclusive(ctx, func(ctx context.Context, emit func(Event)) {
		a.runCells(ctx, cells, emit)
	})
}

func (a *Agent) runCells(ctx context.Context, cells []UserCell, emit func(Event)) {
	source := CellRerun
	if len(cells) > 0 {
		source = cells[0].Source
	}
	done := &CellsFinished{Meta: Meta{AgentID: a.id}, Source: source, Total: len(cells)}
	a.beginUserCheckpoints(userCellsWhat(source, len(cells)))
	defer func() {
		a.ckpt.Flush()
		a.sync()
		emit(done)
	}()
	for i, c := range cells {
		if ctx.Err() != nil {
			done.Stopped = true
			return
		}
		corr := newRunID()
		meta := Meta{AgentID: a.id, CorrelationID: corr}
		emit(&CellStarted{Meta: meta, Code: c.Code, Source: c.Source, Of: c.Of, Index: i + 1, Total: len(cells)})
		original := ""
		if c.Ask {
			ok, edited, err := a.approvals.AskEditable(ctx, emit, corr, CodeAction{ToolName: ExecuteTool, Code: c.Code}, 0)
			if !ok {
				why := stopTextFor(err)
				emit(&CodeExecutionOutput{Meta: meta, Text: why, Error: true, ErrorText: why})
				done.Stopped = true
				return
			}
			a.logRuleError(err)
			if edited != "" && edited != c.Code {
				original, c.Code = c.Code, edited
				emit(&CodeEdited{Meta: meta, Code: edited})
			}
		}
		// Its time as the window counts it, from the approval; at least
		// 1 ms, since 0 means not recorded.
		start := time.Now()
		out, refused := a.execUserCell(ctx, emit, corr, c.Code)
		elapsed := max(time.Since(start).Milliseconds(), 1)
		a.ranFor(corr) // drops the start its approvals set
		done.Ran++
		failed := out.Error || refused != nil
		if failed {
			done.Failed++
		}
		output, _ := a.offload(refusedOutput(out.Text, refused))
		note := history.UserCellNote(c.Source, c.Of, corr, c.Code, output, failed)
		ran := &model.Ran{By: c.Source, Of: c.Of, Code: c.Code, Error: failed,
			Run: corr, Original: original, Images: out.Images, ElapsedMS: elapsed}
		a.seal.Sign(ran, "") // whole: after every field is set
		if err := a.record(model.Message{Role: model.RoleUser, Parts: []model.Part{{Text: note, Ran: ran}}}); err != nil {
			emit(&Failed{Meta: Meta{AgentID: a.id}, Error: redact.Text(err.Error())})
			done.Stopped = true
			return
		}
		if refused != nil || ctx.Err() != nil {
			done.Stopped = i < len(cells)-1 || ctx.Err() != nil
			return
		}
	}
}

// execUserCell runs a cell of the user's like a code action of the
// model's: checkpointed before and after, so what it changed is reported
// (FilesChanged) and can be reviewed and reverted.
func (a *Agent) execUserCell(ctx context.Context, emit func(Event), corr, code string) (*CodeExecutionOutput, *refusal) {
	call := model.FunctionCall{ID: corr, Name: ExecuteTool}
	p := a.checkpointBefore(ctx, emit, call, ckpt.ActionLabel(call, code))
	out, refused := a.execCell(ctx, emit, corr, code)
	a.checkpointAfter(ctx, emit, p)
	return out, refused
}

// userCellsWhat says what the user did, as the prompt of its checkpoint
// records.
func userCellsWhat(source string, n int) string {
	switch source {
	case CellNotebook:
		return "Ran " + Plural(n, "notebook cell")
	case CellReplay:
		return "Replayed " + Plural(n, "cell") + " to restore the kernel"
	default:
		return "Ran a cell again"
	}
}

// refusedOutput is a cell's output as its note records it: after a "no",
// what came before and the line saying what was rejected.
func refusedOutput(text string, r *refusal) string {
	if r == nil {
		return text
	}
	return strings.TrimSpace(text + "\n" + r.text() + "\n" + RejectedText)
}

// stopTextFor says why a cell that asked did not run: a "no", or the
// batch ended while it waited.
func stopTextFor(err error) string {
	if err == nil {
		return RejectedText
	}
	return interruptedText
}

// newRunID returns the id of a cell the user runs: "run-" and eight hex
// digits.
func newRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "run-" + hex.EncodeToString(b[:])
}
