package agent

import (
	"context"
	"errors"
	"github.com/freeact/desktop/agent/history"
	"time"

	"github.com/freeact/desktop/agent/model"
)

// Texts the model (and the user) see for calls that did not run to the end.
const (
	RejectedText    = history.RejectedText
	interruptedText = "Interrupted by user"
)

// answeredKey carries the function approveThen calls once its approval
// was answered, so that the next call of a parallel run may ask.
type answeredKey struct{}

func withAnswered(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, answeredKey{}, f)
}

// approvalAnswered tells a parallel run that this call's approval was
// answered.
func approvalAnswered(ctx context.Context) {
	if f, ok := ctx.Value(answeredKey{}).(func()); ok {
		f()
	}
}

// errRejected is the cause that ends the other calls of a reply when one
// was rejected.
var errRejected = errors.New("a tool call of the same reply was rejected")

// stopText says why a call did not run or finish: rejected, or interrupted.
func stopText(ctx context.Context) string {
	if errors.Is(context.Cause(ctx), errRejected) {
		return RejectedText
	}
	return interruptedText
}

func (a *Agent) notRun(ctx context.Context, call model.FunctionCall, emit func(Event)) model.FunctionResponse {
	return a.result(emit, call, stopText(ctx), true, nil)
}

// result builds the response to a call and reports it as ToolOutput.
func (a *Agent) result(emit func(Event), call model.FunctionCall, text string, isErr bool, images []model.Image) model.FunctionResponse {
	return a.savedResult(emit, call, text, "", isErr, images)
}

// savedResult is result for a call whose whole output was offloaded to
// saved (relative to the workspace; "" when it was not).
func (a *Agent) savedResult(emit func(Event), call model.FunctionCall, text, saved string, isErr bool, images []model.Image) model.FunctionResponse {
	ms := a.ranFor(call.ID)
	emit(&ToolOutput{Meta: Meta{AgentID: a.id, CorrelationID: call.ID}, ToolName: call.Name, Content: text, IsError: isErr, ElapsedMS: ms, SavedPath: saved})
	return model.FunctionResponse{ID: call.ID, Name: call.Name, Output: text, IsError: isErr, Images: images, ElapsedMS: ms, SavedPath: saved, Approved: a.approvals.Badge(call.ID)}
}

// ranFor returns how long the call has run since it was approved, in
// milliseconds (at least 1), and forgets its start; 0 for a call that
// never ran (rejected, or not reached).
func (a *Agent) ranFor(corr string) int64 {
	if a.approvals.Began == nil {
		return 0
	}
	t, ok := a.approvals.Began.LoadAndDelete(corr)
	if !ok {
		return 0
	}
	return max(1, time.Since(t.(time.Time)).Milliseconds())
}

func withoutCalls(parts []model.Part) []model.Part {
	var out []model.Part
	for _, p := range parts {
		if p.FunctionCall == nil {
			out = append(out, p)
		}
	}
	return out
}
