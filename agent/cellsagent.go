package agent

import (
	"context"

	"github.com/freeact/desktop/agent/ckpt"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/seal"
)

// cellsAgent is the agent as its kernel workflow sees it (cells.Agent).
type cellsAgent struct{ *Agent }

func (a cellsAgent) Seal() *seal.Key { return a.seal }

func (a cellsAgent) AskCell(ctx context.Context, emit func(Event), corr, code string) (bool, string, string) {
	ok, edited, err := a.approvals.AskEditable(ctx, emit, corr, CodeAction{ToolName: ExecuteTool, Code: code}, 0)
	if !ok {
		if err == nil {
			return false, "", RejectedText
		}
		return false, "", interruptedText // the batch ended while it waited
	}
	a.logRuleError(err)
	return true, edited, ""
}

// ExecCell runs a cell of the user's like a code action of the model's:
// checkpointed before and after, so what it changed is reported
// (FilesChanged) and can be reviewed and reverted.
func (a cellsAgent) ExecCell(ctx context.Context, emit func(Event), corr, code string) (*CodeExecutionOutput, string) {
	call := model.FunctionCall{ID: corr, Name: ExecuteTool}
	p := a.checkpointBefore(ctx, emit, call, ckpt.ActionLabel(call, code))
	out, refused := a.execCell(ctx, emit, corr, code)
	a.checkpointAfter(ctx, emit, p)
	if refused == nil {
		return out, ""
	}
	return out, refused.Text() + "\n" + RejectedText
}

func (a cellsAgent) RanFor(corr string) { a.ranFor(corr); a.approvals.Badge(corr) }

func (a cellsAgent) Offload(text string) string {
	out, _ := a.offload(text)
	return out
}

func (a cellsAgent) Record(m model.Message) error { return a.record(m) }
func (a cellsAgent) Sync()                        { a.sync() }
func (a cellsAgent) BeginCheckpoints(what string) { a.beginUserCheckpoints(what) }
func (a cellsAgent) FlushCheckpoints()            { a.ckpt.Flush() }

// dropOffer declines an open offer when a turn starts without an answer:
// it returns the note for the turn's user message ("" when no offer was
// open) and emits what the model is told.
func (a *Agent) dropOffer(emit func(Event)) string { return a.kstate.Drop(cellsAgent{a}, emit) }
