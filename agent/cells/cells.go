// Package cells owns the kernel workflow the user drives besides the
// model's turns: running cells of their own (a past cell again, a
// notebook's cells), the kernel state the agent's kernel lost and the
// offer to replay the session's cells to restore it, and the notebooks
// opened as context. It reaches the agent through Agent: the executor
// (checkpointed), approvals, the conversation and the session file. What
// the agent knows of a kernel's variables without running a cell is
// agent/variables.
package cells

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/seal"
	"github.com/freeact/desktop/internal/redact"
)

// Agent is what the kernel workflow needs of the agent whose kernel it
// runs.
type Agent interface {
	// ID names the agent.
	ID() string
	// History is a copy of the conversation so far.
	History() []model.Message
	// Seal signs and checks the records of code that ran.
	Seal() *seal.Key
	// AskCell asks for the user's cell corr as a code action; edited is
	// the code approved, when the approval changed it. When it is not
	// approved, why is what its output says.
	AskCell(ctx context.Context, emit func(event.Event), corr, code string) (ok bool, edited, why string)
	// ExecCell runs code in the kernel as the user's own action,
	// checkpointed before and after. refused is what a shell command or
	// tool call in it the user rejected adds to its output, "" when none
	// was.
	ExecCell(ctx context.Context, emit func(event.Event), corr, code string) (out *event.CodeExecutionOutput, refused string)
	// RanFor drops the start (and who approved it) corr's approvals set.
	RanFor(corr string)
	// Offload keeps a long output aside, returning what the model sees.
	Offload(text string) string
	// Record appends a message to the conversation and the session file.
	Record(m model.Message) error
	// Sync flushes the session file.
	Sync()
	// BeginCheckpoints names a batch of the user's cells for checkpoint
	// records, as what; FlushCheckpoints ends it.
	BeginCheckpoints(what string)
	FlushCheckpoints()
}

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

// Run runs cells in a's kernel as the user's own action (see
// agent.Agent.RunCells).
func Run(ctx context.Context, a Agent, emit func(event.Event), cells []UserCell) {
	source := history.CellRerun
	if len(cells) > 0 {
		source = cells[0].Source
	}
	done := &event.CellsFinished{Meta: event.Meta{AgentID: a.ID()}, Source: source, Total: len(cells)}
	a.BeginCheckpoints(what(source, len(cells)))
	defer func() {
		a.FlushCheckpoints()
		a.Sync()
		emit(done)
	}()
	for i, c := range cells {
		if ctx.Err() != nil {
			done.Stopped = true
			return
		}
		corr := newRunID()
		meta := event.Meta{AgentID: a.ID(), CorrelationID: corr}
		emit(&event.CellStarted{Meta: meta, Code: c.Code, Source: c.Source, Of: c.Of, Index: i + 1, Total: len(cells)})
		original := ""
		if c.Ask {
			ok, edited, why := a.AskCell(ctx, emit, corr, c.Code)
			if !ok {
				emit(&event.CodeExecutionOutput{Meta: meta, Text: why, Error: true, ErrorText: why})
				done.Stopped = true
				return
			}
			if edited != "" && edited != c.Code {
				original, c.Code = c.Code, edited
				emit(&event.CodeEdited{Meta: meta, Code: edited})
			}
		}
		// Its time as the window counts it, from the approval; at least
		// 1 ms, since 0 means not recorded.
		start := time.Now()
		out, refused := a.ExecCell(ctx, emit, corr, c.Code)
		elapsed := max(time.Since(start).Milliseconds(), 1)
		a.RanFor(corr) // drops the start its approvals set
		done.Ran++
		failed := out.Error || refused != ""
		if failed {
			done.Failed++
		}
		output := a.Offload(withRefusal(out.Text, refused))
		note := history.UserCellNote(c.Source, c.Of, corr, c.Code, output, failed)
		ran := &model.Ran{By: c.Source, Of: c.Of, Code: c.Code, Error: failed,
			Run: corr, Original: original, Images: out.Images, ElapsedMS: elapsed}
		a.Seal().Sign(ran, "") // whole: after every field is set
		if err := a.Record(model.Message{Role: model.RoleUser, Parts: []model.Part{{Text: note, Ran: ran}}}); err != nil {
			emit(&event.Failed{Meta: event.Meta{AgentID: a.ID()}, Error: redact.Text(err.Error())})
			done.Stopped = true
			return
		}
		if refused != "" || ctx.Err() != nil {
			done.Stopped = i < len(cells)-1 || ctx.Err() != nil
			return
		}
	}
}

// what says what the user did, as the prompt of its checkpoint records.
func what(source string, n int) string {
	switch source {
	case history.CellNotebook:
		return "Ran " + Plural(n, "notebook cell")
	case history.CellReplay:
		return "Replayed " + Plural(n, "cell") + " to restore the kernel"
	default:
		return "Ran a cell again"
	}
}

// withRefusal is a cell's output as its note records it: after a "no",
// what came before and the lines saying what was rejected.
func withRefusal(text, refused string) string {
	if refused == "" {
		return text
	}
	return strings.TrimSpace(text + "\n" + refused)
}

// newRunID returns the id of a cell the user runs: "run-" and eight hex
// digits.
func newRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "run-" + hex.EncodeToString(b[:])
}

// Plural writes n and the noun, with an s unless n is 1: "1 cell", "3
// cells".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
