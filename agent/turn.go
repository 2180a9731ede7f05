package agent

import (
	"context"
	"errors"
	"fmt"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/longsession"
	"slices"
	"sync"

	"github.com/freeact/desktop/agent/failure"
	"github.com/freeact/desktop/agent/files"
	"github.com/freeact/desktop/agent/model"
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
// resume marks the carrying on of a turn that failed after its actions
// ran (Continue): user is then the agent's note asking for it.
func (a *Agent) runTurn(ctx context.Context, user model.Message, maxTurns int, emit func(Event), resume bool) turnResult {
	meta := Meta{AgentID: a.id}
	a.mu.Lock()
	start, cuts := len(a.history), len(a.long.Cuts)
	m := a.model
	a.mu.Unlock()
	mark, markErr := a.markSession()
	var told []string // reverts the note tells of
	if a.id == MainAgent {
		if resume {
			a.beginUserCheckpoints(history.LastPromptText(a.History()))
		} else {
			a.beginCheckpointTurn(user)
		}
		a.ckpt.BeginTurn()
		var note string
		if note, told = a.revertNote(); note != "" {
			user.Parts = append([]model.Part{{Text: note}}, user.Parts...)
		}
	}
	defer a.ckpt.Flush()
	// A failed turn goes back out of the history and the session file
	// alike, so that resuming the session gives the history the agent has.
	// Once actions ran, though, the kernel and the files went through
	// them: the turn stays, with a note saying how it ended, so that the
	// model's history matches what happened.
	// A resumed turn that fails before any action of its own leaves the
	// history as the failure before it did: kept, and to carry on again.
	fail := func(err error) turnResult {
		if a.actionsRan(start) {
			if rerr := a.record(model.UserText(history.FailedNote(failure.Clip(err.Error(), 300)))); rerr != nil {
				err = fmt.Errorf("%w (and noting it in the session failed: %v)", err, rerr)
			}
			f := a.failure(err)
			f.Kept = true
			emit(f)
			return turnResult{failed: err}
		}
		a.ckpt.Untell(told) // the prompt that told them is taken back
		a.mu.Lock()
		dropped := slices.Clone(a.history[start:])
		a.history = a.history[:start]
		// Compactions of the turn's own messages go with them.
		for len(a.long.Cuts) > cuts && a.long.Cuts[len(a.long.Cuts)-1].Upto > start {
			a.long.Cuts = a.long.Cuts[:len(a.long.Cuts)-1]
		}
		a.long.Est = longsession.Estimate{}
		a.mu.Unlock()
		if markErr == nil {
			if rerr := a.rollbackSession(mark, dropped); rerr != nil {
				err = fmt.Errorf("%w (and taking the turn back out of the session failed: %v)", err, rerr)
			}
		}
		f := a.failure(err)
		f.Kept = resume
		emit(f)
		return turnResult{failed: err}
	}
	if markErr != nil {
		return fail(markErr)
	}
	cancelled := func(phase string) turnResult {
		a.sync()
		emit(&Cancelled{Meta: meta, Phase: phase})
		return turnResult{cancelled: true}
	}
	if m == nil {
		return fail(a.modelErr)
	}
	if err := a.record(user); err != nil {
		return fail(err)
	}
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
		reply, stop, err := a.callModel(ctx, emit)
		msg := reply.Message
		if stop != "" {
			emit(&Response{Meta: meta, Text: stop})
			a.sync()
			return turnResult{response: stop}
		}
		if err != nil {
			if ctx.Err() == nil {
				return fail(err)
			}
			// Keep what the model had said; calls it had not finished
			// never ran, so they are left out.
			if partial, ok := model.PartialMessage(err); ok {
				partial.Parts = withoutCalls(partial.Parts)
				if len(partial.Parts) > 0 {
					if err := a.record(partial); err != nil {
						return fail(err)
					}
				}
			}
			return cancelled(PhaseStreaming)
		}
		if err := a.record(msg); err != nil {
			return fail(err)
		}
		if t := msg.Thoughts(); t != "" {
			emit(&Thoughts{Meta: meta, Text: t})
		}
		calls := msg.FunctionCalls()
		if t := msg.Text(); t != "" || len(calls) == 0 && len(reply.Cut) == 0 {
			last = t
			emit(&Response{Meta: meta, Text: t})
		}
		if msg.Cut() {
			emit(a.replyCut(msg, reply.Cut))
		}
		if len(calls) == 0 && len(reply.Cut) == 0 {
			a.sync()
			return turnResult{response: last}
		}
		results, rejected := a.runTools(ctx, calls, emit)
		next := model.ToolResults(results...)
		if msg.Cut() {
			// The model must learn that the calls it began were not run,
			// or it takes their effects for done.
			next.Parts = append(next.Parts, model.Part{Text: history.CutNote(msg, reply.Cut, a.cfg.Options.ModelSettings.MaxTokens)})
		}
		if err := a.record(next); err != nil {
			return fail(err)
		}
		if rejected {
			emit(&Response{Meta: meta, Text: RejectedText})
			a.sync()
			return turnResult{response: RejectedText, rejected: true}
		}
		if ctx.Err() != nil {
			return cancelled(PhaseTools)
		}
	}
}

// actionsRan reports whether the history from start holds results of
// calls, which ran (or were refused) in this turn.
func (a *Agent) actionsRan(start int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range a.history[start:] {
		if len(m.FunctionResponses()) > 0 {
			return true
		}
	}
	return false
}

// ErrNothingToContinue is why Continue refuses: the conversation does not
// end with a turn that failed after its actions ran.
var ErrNothingToContinue = errors.New("there is no failed turn to continue: only a turn that failed after some of its actions ran (its failure says they were kept) can be continued; send a new prompt instead")

// callModel streams one model call, emitting chunks as they come. Before
// it, older turns are compacted when the request would pass
// compaction_threshold of the window, and the budget is checked (stop is
// then the text that ends the turn); a request the provider refuses as too
// large is compacted and sent once more.
func (a *Agent) callModel(ctx context.Context, emit func(Event)) (reply model.Done, stop string, err error) {
	view, stop, err := longsession.BeforeCall(ctx, longAgent{a}, emit)
	if err != nil || stop != "" {
		return model.Done{}, stop, err
	}
	reply, err = a.streamModel(ctx, emit, view)
	if err == nil || !model.IsContextOverflow(err) || ctx.Err() != nil {
		return reply, "", err
	}
	if n := model.OverflowWindow(err); n > 0 {
		longsession.LearnWindow(longAgent{a}, n)
	}
	if cerr := longsession.Compact(ctx, longAgent{a}, emit, longsession.CompactOverflow); cerr != nil {
		return model.Done{}, "", fmt.Errorf("%w; compacting the conversation to fit failed: %v", err, cerr)
	}
	reply, err = a.streamModel(ctx, emit, longsession.ViewOf(longAgent{a}))
	return reply, "", err
}

// streamModel sends view to the model and streams the reply.
func (a *Agent) streamModel(ctx context.Context, emit func(Event), view []model.Message) (model.Done, error) {
	meta := Meta{AgentID: a.id}
	// Servers still connecting since Start get their tools offered.
	a.mcp.Await(ctx, emit, Meta{AgentID: a.id})
	if v := a.mcp.ToolsVersion(ctx); v != a.jsonToolsVersion {
		// A JSON server changed its tools since they were declared.
		a.tools, a.jsonToolsVersion = a.toolDeclarations(), v
	}
	req := &model.Request{System: a.system, Messages: history.MergeUserTurns(view), Tools: a.tools}
	m := a.currentModel()
	for ch, err := range m.Stream(ctx, req) {
		if err != nil {
			return model.Done{}, err
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
			longsession.RecordCall(longAgent{a}, emit, len(view), m.Name(), c.Usage)
		case model.Retry:
			emit(&ModelRetry{Meta: meta, Attempt: c.Attempt, MaxRetries: c.MaxRetries, DelaySecs: c.Delay.Seconds(), Reason: c.Err.Error()})
		case model.Done:
			return c, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return model.Done{}, err
	}
	return model.Done{}, errors.New("the model stream ended without a message")
}

// runTools runs the calls of one model reply in the model's order and
// returns their results in that order: each call is asked for, run and
// answered before the next begins, because code actions, shell commands
// and file writes change the state the next one sees. File reads and
// subagent tasks (each in its own kernel) change nothing another call
// sees: a run of them in a row is asked for in order, runs in parallel up
// to maxParallelCalls, and reports its results in order. A rejection ends
// the turn: the calls after it do not run.
func (a *Agent) runTools(ctx context.Context, calls []model.FunctionCall, emit func(Event)) ([]model.FunctionResponse, bool) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	results := make([]model.FunctionResponse, len(calls))
	rejected := false
	for i := 0; i < len(calls); {
		j := i + 1
		for a.parallelCall(calls[i]) && j < len(calls) && a.parallelCall(calls[j]) {
			j++
		}
		if ctx.Err() != nil {
			for k := i; k < j; k++ {
				results[k] = a.notRun(ctx, calls[k], emit)
			}
			i = j
			continue
		}
		if a.runBatch(ctx, cancel, calls[i:j], results[i:j], emit) {
			rejected = true
			cancel(errRejected)
		}
		i = j
	}
	return results, rejected
}

// parallelCall reports a call that may run beside its neighbours: a file
// read, or a subagent task, which has a kernel of its own.
func (a *Agent) parallelCall(call model.FunctionCall) bool {
	switch call.Name {
	case files.ReadTextFile, files.ReadMediaFile:
		return true
	case SubagentTool:
		return a.subagentsAllowed()
	}
	return false
}

// runBatch runs calls, one call or a run of parallel ones, into results.
// The approvals of a run are asked in order: each call waits until the
// one before it was answered; so are its results: a call's ToolOutput
// waits for the one before it. A rejection cancels the others, which
// answer as rejected. It reports whether one was rejected.
func (a *Agent) runBatch(ctx context.Context, cancel context.CancelCauseFunc, calls []model.FunctionCall, results []model.FunctionResponse, emit func(Event)) bool {
	if len(calls) == 1 {
		res, rej := a.runTool(ctx, calls[0], emit)
		a.hooks.AfterTool(ctx, emit, &res, RejectedText)
		results[0] = res
		return rej
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		rejected bool
	)
	slots := make(chan struct{}, maxParallelCalls)
	prev, prevOut := make(chan struct{}), make(chan struct{})
	close(prev)
	close(prevOut)
	for i, call := range calls {
		turn, done := prev, make(chan struct{})
		outTurn, out := prevOut, make(chan struct{})
		prev, prevOut = done, out
		var once, outOnce sync.Once
		answered := func() { once.Do(func() { close(done) }) }
		reported := func() { outOnce.Do(func() { close(out) }) }
		emit := func(ev Event) {
			if _, ok := ev.(*ToolOutput); ok && ev.Agent() == a.id && ev.Correlation() == call.ID {
				<-outTurn
				defer reported()
			}
			emit(ev)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer reported()
			defer answered()
			select {
			case <-turn:
			case <-ctx.Done():
				results[i] = a.notRun(ctx, call, emit)
				return
			}
			select {
			case slots <- struct{}{}:
				defer func() { <-slots }()
			case <-ctx.Done():
				results[i] = a.notRun(ctx, call, emit)
				return
			}
			res, rej := a.runTool(withAnswered(ctx, answered), call, emit)
			a.hooks.AfterTool(ctx, emit, &res, RejectedText)
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
	return rejected
}
