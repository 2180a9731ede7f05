package agent

import (
	"context"
	"errors"
	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/longsession"
	"iter"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/internal/redact"
)

// errStreamClosed is the cause of a turn whose consumer stopped reading.
var errStreamClosed = errors.New("the event stream was closed")

// Stream runs one turn: it sends prompt to the model, runs the tool calls of
// each reply after their approval, and yields what happens as events. Answer
// each *ApprovalRequest (and *InputRequest) as it comes, from the loop or from
// another goroutine. Breaking out of the loop cancels the turn and rejects
// pending approvals. A prompt of the form "/skill args" naming a known skill
// is sent as a skill invocation.
func (a *Agent) Stream(ctx context.Context, prompt Prompt) iter.Seq[Event] {
	return a.exclusive(ctx, func(ctx context.Context, emit func(Event)) {
		text := config.ExpandSkillCommand(prompt.Text, a.cfg.Skills)
		msg := model.UserMessage(text, prompt.Images...)
		if len(msg.Parts) > 0 && msg.Parts[0].Image == nil {
			msg.Parts[0].User = true // never read as a note (NoteText)
		}
		// Notes go with the prompt: what the user did not restore, and the
		// variables the prompt mentions.
		notes := a.variableNotes(ctx, prompt.Text)
		if note := a.dropOffer(emit); note != "" {
			notes = append([]string{note}, notes...)
		}
		for _, note := range notes {
			msg.Parts = append(msg.Parts, model.Part{Text: note})
		}
		if !a.hooks.Prompt(ctx, emit, &msg, prompt.Text) {
			return
		}
		a.turnWithStopHooks(ctx, msg, emit)
	})
}

// Continue carries on with the last turn when it failed after some of its
// actions ran (its Failed had Kept set), as Retry does in the window: the
// model is called again with the history as it stands, the actions and
// their results included, and a note asking it to go on from there. No
// prompt is sent again, so nothing that ran runs twice. Without such a
// turn it yields a Failed wrapping ErrNothingToContinue. If the carrying
// on fails before an action of its own, the conversation stays as it was,
// to be continued again.
func (a *Agent) Continue(ctx context.Context) iter.Seq[Event] {
	return a.exclusive(ctx, func(ctx context.Context, emit func(Event)) {
		if !history.KeptFailure(a.History()) {
			emit(a.failure(ErrNothingToContinue))
			return
		}
		a.runTurn(ctx, model.UserText(history.ResumeNote), a.opts.maxTurns, emit, true)
	})
}

// exclusive runs work in the place of a turn (a turn, a compaction, the
// user's cells, a replay), with its events as a stream: Cancel stops it,
// breaking out of the loop cancels work's context and returns once work
// has ended, and nothing else of the kind runs meanwhile.
func (a *Agent) exclusive(ctx context.Context, work func(ctx context.Context, emit func(Event))) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		if err := a.beginTurn(cancel); err != nil {
			yield(&Failed{Meta: Meta{AgentID: a.id}, Error: redact.Text(err.Error())})
			return
		}
		defer a.endTurn()
		q := event.NewQueue()
		go func() {
			defer a.turns.Done()
			defer q.Close()
			work(ctx, q.Push)
		}()
		for {
			batch, ok := q.Next()
			if !ok {
				return
			}
			for _, ev := range batch {
				if !yield(ev) {
					cancel(errStreamClosed)
					for _, ok := q.Next(); ok; _, ok = q.Next() {
					}
					return
				}
			}
		}
	}
}

func (a *Agent) beginTurn(cancel context.CancelCauseFunc) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case !a.started || a.kern == nil:
		return errors.New("the agent is not started: call Start first")
	case a.stopped:
		return errors.New("the agent is stopped")
	case a.cancel != nil:
		return errors.New("a turn is already running: wait for it to end or cancel it")
	}
	a.cancel = cancel
	a.turns.Add(1)
	// Between turns the user and the app's settings may change the
	// protected files: what they hold now is the record (agent/protect).
	a.guard.Accept()
	return nil
}

func (a *Agent) endTurn() {
	a.mu.Lock()
	a.cancel = nil
	a.mu.Unlock()
}

// Compact summarises the older turns now ("Compact now", /compact),
// keeping the last turn when it is small. It runs like a turn (no turn
// may run meanwhile) and yields Compacting, Usage, Compacted and
// SessionUsage, or Failed.
func (a *Agent) Compact(ctx context.Context) iter.Seq[Event] {
	return a.exclusive(ctx, func(ctx context.Context, emit func(Event)) {
		// A new try takes the place of the ones that failed before it.
		a.mu.Lock()
		for i := range a.long.Failed {
			a.long.Failed[i].Retried = true
		}
		a.mu.Unlock()
		if err := longsession.Compact(ctx, longAgent{a}, emit, longsession.CompactManual); err != nil {
			emit(longsession.CompactFailure(longAgent{a}, err))
		}
	})
}
