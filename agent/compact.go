package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/freeact/desktop/agent/longsession"
	"slices"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/session"
)

// Compaction and the estimates it is based on live in agent/longsession;
// the agent keeps its compactions (cuts) and the last measure (est) under
// its lock, with the history they cut.

// view returns the messages the model sees: the history, or the latest
// summary and what came after it.
func (a *Agent) view() []model.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return longsession.View(a.history, longsession.Last(a.cuts))
}

// requestTokens estimates the request the view makes: what the last call
// measured, plus the messages since, or an estimate of it all.
func (a *Agent) requestTokens(view []model.Message) int {
	a.mu.Lock()
	est := a.est
	a.mu.Unlock()
	return est.Tokens(view, a.estimateAll)
}

// estimateAll estimates a request with view from its characters: the
// system prompt, the tool declarations and the messages.
func (a *Agent) estimateAll(view []model.Message) int {
	return longsession.RequestTokens(a.system, a.tools, view)
}

// measured records a call's usage: the view it was sent with, plus its
// reply, is input+output tokens.
func (a *Agent) measured(viewLen int, u model.Usage) {
	a.mu.Lock()
	a.est = longsession.Measured(viewLen, u)
	a.mu.Unlock()
}

// compact summarises older messages so that the model sees the summary
// instead; the session records it. It reports through emit and returns
// ErrNothingToCompact when there is nothing old enough.
func (a *Agent) compact(ctx context.Context, emit func(Event), reason string) error {
	a.mu.Lock()
	hist := append([]model.Message(nil), a.history...)
	prev, start := "", 0
	last := longsession.Last(a.cuts)
	if last != nil {
		prev, start = last.Summary, last.Upto
		cc := *last
		last = &cc
	}
	a.mu.Unlock()
	view := longsession.View(hist, last)
	before := a.requestTokens(view)
	_, compactAt := a.window()
	keep := compactAt / 2
	if keep == 0 {
		keep = before * 2 / 5
	}
	k := longsession.SplitPoint(hist, start, keep, reason)
	if k <= start {
		return ErrNothingToCompact
	}
	a.preCompactHooks(ctx, emit, reason)
	emit(&Compacting{Meta: Meta{AgentID: a.id}, Reason: reason, Messages: k - start})
	summary, usages, err := a.summarise(ctx, emit, prev, hist[start:k])
	if err != nil {
		return a.compactFailed(reason, len(hist), usages, fmt.Errorf("compact the conversation: %w", err))
	}
	if reason != CompactManual && !longsession.HasPromptAfter(hist, k) {
		// The running turn is cut in the middle: its request, word for
		// word, so nothing of it is lost to the summary.
		for i := k - 1; i >= start; i-- {
			if IsPrompt(hist[i]) {
				summary += "\n\n## The user's current request, word for word\n\n" + hist[i].Text()
				break
			}
		}
	}
	c := longsession.Cut{Upto: k, Summary: summary, Model: a.modelName(), Usages: usages}
	after := a.estimateAll(longsession.View(hist, &c))
	c.Event = Compacted{Meta: Meta{AgentID: a.id}, Reason: reason, Summary: summary, Messages: k - start, TokensBefore: before, TokensAfter: after}
	if a.store != nil {
		err := a.store.AppendCompaction(a.id, session.Compaction{
			Upto: a.fileIndex(k), Summary: summary, Reason: reason, Model: a.modelName(), Usage: longsession.UsageJSON(usages),
			TokensBefore: before, TokensAfter: after,
		})
		if err != nil {
			return a.compactFailed(reason, len(hist), usages, fmt.Errorf("compact the conversation: %w", err))
		}
	}
	a.mu.Lock()
	a.cuts = append(a.cuts, c)
	a.est = longsession.Estimate{}
	a.mu.Unlock()
	if a.id == MainAgent {
		a.updateContext(after)
	}
	ev := c.Event
	emit(&ev)
	emit(a.SessionUsage())
	return nil
}

// compactFailed records a compaction that failed after its summarising
// calls were paid (and counted): the session keeps what they cost, so a
// resumed session costs the same, and a "Compact now" keeps its failure
// where it happened, with its calls, as the conversation showed it. It
// returns err.
func (a *Agent) compactFailed(reason string, at int, usages []model.Usage, err error) error {
	if a.store == nil || len(usages) == 0 {
		return err
	}
	sp := session.Spent{Agent: a.id, Model: a.modelName(), Usage: longsession.UsageJSON(usages)}
	if reason == CompactManual {
		f := a.compactFailure(err)
		fc := FailedCompaction{Index: at, Failed: *f, Model: sp.Model, Usage: usages}
		sp.At = a.fileIndex(at)
		sp.Failed, _ = json.Marshal(f) // a Failed always encodes
		a.mu.Lock()
		a.failedCompactions = append(a.failedCompactions, fc)
		a.mu.Unlock()
	}
	if serr := a.store.AppendSpent(sp); serr != nil {
		return fmt.Errorf("%w (and recording what it cost failed: %v)", err, serr)
	}
	return err
}

// fileIndex turns a history index into the index of the same message in
// the session file, which lacks the results answerDangling added.
func (a *Agent) fileIndex(i int) int {
	n := i
	for _, s := range a.synthetic {
		if s < i {
			n--
		}
	}
	return n
}

// summarise asks the model for a summary of msgs, continuing prev (an
// earlier summary), counting its calls.
func (a *Agent) summarise(ctx context.Context, emit func(Event), prev string, msgs []model.Message) (string, []model.Usage, error) {
	window, _ := a.window()
	return longsession.Summarise(ctx, a.currentModel(), window, prev, msgs, func(u model.Usage) {
		a.recordUsage(emit, a.modelName(), u)
	})
}

// ask makes one call without tools and returns its answer text; an
// answer cut at the output token limit is a *SummaryCutError.
func (a *Agent) ask(ctx context.Context, system, prompt string) (string, *model.Usage, error) {
	return longsession.Ask(ctx, a.currentModel(), system, prompt)
}

// compactFailure is the Failed of a compaction the user asked for.
func (a *Agent) compactFailure(err error) *Failed {
	f := a.failure(err)
	f.Action = ActionCompact
	if f.Summary == "" {
		f.Summary = "The conversation could not be compacted."
		f.Fix = "Try again; the conversation is unchanged."
	}
	return f
}

// Compactions lists the compactions of the conversation, oldest first.
func (a *Agent) Compactions() []HistoryCompaction {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]HistoryCompaction, 0, len(a.cuts))
	for _, c := range a.cuts {
		out = append(out, HistoryCompaction{Index: c.Upto, Event: c.Event, Model: c.Model, Usage: c.Usages})
	}
	return out
}

// FailedCompactions lists the conversation's failed "Compact now"s,
// oldest first.
func (a *Agent) FailedCompactions() []FailedCompaction {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.failedCompactions)
}
