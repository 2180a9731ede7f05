package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/freeact/desktop/agent/model"
)

// Texts the model (and the user) see for calls that did not run to the end.
const (
	rejectedText    = "Tool call rejected"
	interruptedText = "Interrupted by user"
)

// turnResult is how a turn ended, for subagents that report it upward.
type turnResult struct {
	response  string // the last Response text
	failed    error
	cancelled bool
	rejected  bool
}

// runTurn runs one turn: user message, then model calls and tool calls until
// a reply without calls, max_turns, a rejection, a cancel or a failure.
func (a *Agent) runTurn(ctx context.Context, user model.Message, maxTurns int, emit func(Event)) turnResult {
	meta := Meta{AgentID: a.id}
	a.mu.Lock()
	start := len(a.history)
	m := a.model
	a.mu.Unlock()
	fail := func(err error) turnResult {
		a.mu.Lock()
		a.history = a.history[:start]
		a.mu.Unlock()
		emit(a.failure(err))
		return turnResult{failed: err}
	}
	// The prompt goes into the session file with the model's first reply:
	// a turn whose first model call fails leaves the session as it was,
	// so trying it again does not repeat the prompt there. record writes
	// messages already remembered.
	unsaved := []model.Message{user}
	record := func(msgs ...model.Message) error {
		err := a.persist(append(unsaved, msgs...)...)
		unsaved = nil
		return err
	}
	cancelled := func(phase string) turnResult {
		if len(unsaved) > 0 {
			if err := a.persist(unsaved...); err != nil {
				a.opts.log.Warn("session not written", "err", err)
			}
		}
		a.sync()
		emit(&Cancelled{Meta: meta, Phase: phase})
		return turnResult{cancelled: true}
	}
	if m == nil {
		return fail(a.modelErr)
	}
	a.remember(user)
	var last string
	for step := 0; ; step++ {
		if ctx.Err() != nil {
			return cancelled(PhaseBetween)
		}
		if maxTurns > 0 && step >= maxTurns {
			text := fmt.Sprintf("Stopped after %d model calls (max_turns). Send another message to continue.", maxTurns)
			emit(&Response{Meta: meta, Text: text})
			a.sync()
			return turnResult{response: text}
		}
		msg, err := a.callModel(ctx, emit)
		if err != nil {
			if ctx.Err() == nil {
				return fail(err)
			}
			// Keep what the model had said; calls it had not finished
			// never ran, so they are left out.
			if partial, ok := model.PartialMessage(err); ok {
				partial.Parts = withoutCalls(partial.Parts)
				if len(partial.Parts) > 0 {
					a.remember(partial)
					if err := record(partial); err != nil {
						return fail(err)
					}
				}
			}
			return cancelled(PhaseStreaming)
		}
		a.remember(msg)
		if err := record(msg); err != nil {
			return fail(err)
		}
		if t := msg.Thoughts(); t != "" {
			emit(&Thoughts{Meta: meta, Text: t})
		}
		calls := msg.FunctionCalls()
		if t := msg.Text(); t != "" || len(calls) == 0 {
			last = t
			emit(&Response{Meta: meta, Text: t})
		}
		if len(calls) == 0 {
			a.sync()
			return turnResult{response: last}
		}
		results, rejected := a.runTools(ctx, calls, emit)
		res := model.ToolResults(results...)
		a.remember(res)
		if err := record(res); err != nil {
			return fail(err)
		}
		if rejected {
			emit(&Response{Meta: meta, Text: rejectedText})
			a.sync()
			return turnResult{response: rejectedText, rejected: true}
		}
		if ctx.Err() != nil {
			return cancelled(PhaseTools)
		}
	}
}

// remember appends messages to the history.
func (a *Agent) remember(msgs ...model.Message) {
	a.mu.Lock()
	a.history = append(a.history, msgs...)
	a.mu.Unlock()
}

// persist appends messages to the session file.
func (a *Agent) persist(msgs ...model.Message) error {
	if a.store == nil {
		return nil
	}
	if err := a.store.Append(a.id, msgs...); err != nil {
		return &sessionError{err: fmt.Errorf("write session: %w", err)}
	}
	return nil
}

// sessionError is a failure to write the session file.
type sessionError struct{ err error }

func (e *sessionError) Error() string { return e.err.Error() }
func (e *sessionError) Unwrap() error { return e.err }

// sync flushes the session at a turn boundary.
func (a *Agent) sync() {
	if a.store == nil {
		return
	}
	if err := a.store.Sync(); err != nil {
		a.opts.log.Warn("session not synced", "err", err)
	}
}

// callModel streams one model call, emitting chunks as they come.
func (a *Agent) callModel(ctx context.Context, emit func(Event)) (model.Message, error) {
	meta := Meta{AgentID: a.id}
	req := &model.Request{System: a.system, Messages: a.History(), Tools: a.tools}
	a.mu.Lock()
	m := a.model
	a.mu.Unlock()
	for ch, err := range m.Stream(ctx, req) {
		if err != nil {
			return model.Message{}, err
		}
		switch c := ch.(type) {
		case model.ThoughtDelta:
			if c.Text != "" {
				emit(&ThoughtsChunk{Meta: meta, Text: c.Text})
			}
		case model.TextDelta:
			if c.Text != "" {
				emit(&ResponseChunk{Meta: meta, Text: c.Text})
			}
		case model.UsageChunk:
			emit(&Usage{Meta: meta, Model: m.Name(), Usage: c.Usage})
		case model.Retry:
			emit(&ModelRetry{Meta: meta, Attempt: c.Attempt, MaxRetries: c.MaxRetries, DelaySecs: c.Delay.Seconds(), Reason: c.Err.Error()})
		case model.Done:
			return c.Message, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return model.Message{}, err
	}
	return model.Message{}, errors.New("the model stream ended without a message")
}

// runTools runs the calls of one model reply, in parallel up to
// maxParallelCalls, and returns their results in call order. A rejection cancels
// the calls still waiting or running: the turn ends.
func (a *Agent) runTools(ctx context.Context, calls []model.FunctionCall, emit func(Event)) ([]model.FunctionResponse, bool) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	results := make([]model.FunctionResponse, len(calls))
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		rejected bool
	)
	slots := make(chan struct{}, maxParallelCalls)
	for i, call := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case slots <- struct{}{}:
				defer func() { <-slots }()
			case <-ctx.Done():
				results[i] = a.notRun(ctx, call, emit)
				return
			}
			if ctx.Err() != nil {
				results[i] = a.notRun(ctx, call, emit)
				return
			}
			res, rej := a.runTool(ctx, call, emit)
			results[i] = res
			if rej {
				mu.Lock()
				rejected = true
				mu.Unlock()
				cancel(errRejected)
			}
		}()
	}
	wg.Wait()
	return results, rejected
}

// errRejected is the cause that ends the other calls of a reply when one
// was rejected.
var errRejected = errors.New("a tool call of the same reply was rejected")

// stopText says why a call did not run or finish: rejected, or interrupted.
func stopText(ctx context.Context) string {
	if errors.Is(context.Cause(ctx), errRejected) {
		return rejectedText
	}
	return interruptedText
}

func (a *Agent) notRun(ctx context.Context, call model.FunctionCall, emit func(Event)) model.FunctionResponse {
	return a.result(emit, call, stopText(ctx), true, nil)
}

// result builds the response to a call and reports it as ToolOutput.
func (a *Agent) result(emit func(Event), call model.FunctionCall, text string, isErr bool, images []model.Image) model.FunctionResponse {
	emit(&ToolOutput{Meta: Meta{AgentID: a.id, CorrelationID: call.ID}, ToolName: call.Name, Content: text, IsError: isErr})
	return model.FunctionResponse{ID: call.ID, Name: call.Name, Output: text, IsError: isErr, Images: images}
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

// answerDangling makes a loaded history consistent: a model message whose
// calls have no responses (the process ended while they ran) gets responses
// saying so, so the next request is valid for every provider.
func answerDangling(hist []model.Message, text string) []model.Message {
	var out []model.Message
	for i, m := range hist {
		out = append(out, m)
		calls := m.FunctionCalls()
		if m.Role != model.RoleModel || len(calls) == 0 {
			continue
		}
		answered := map[string]bool{}
		if i+1 < len(hist) {
			for _, r := range hist[i+1].FunctionResponses() {
				answered[r.ID] = true
			}
		}
		var missing []model.FunctionResponse
		for _, c := range calls {
			if !answered[c.ID] {
				missing = append(missing, model.FunctionResponse{ID: c.ID, Name: c.Name, Output: text, IsError: true})
			}
		}
		if len(missing) == 0 {
			continue
		}
		if len(answered) > 0 {
			// Some were answered: add the missing ones to that message.
			next := hist[i+1]
			for _, r := range missing {
				r := r
				next.Parts = append(next.Parts, model.Part{FunctionResponse: &r})
			}
			hist[i+1] = next
			continue
		}
		out = append(out, model.ToolResults(missing...))
	}
	return out
}
