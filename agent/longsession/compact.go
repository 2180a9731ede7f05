package longsession

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/session"
)

// Compact summarises older messages of a's conversation so that the
// model sees the summary instead; the session records it. It reports
// through emit and returns ErrNothingToCompact when there is nothing old
// enough.
func Compact(ctx context.Context, a Agent, emit func(event.Event), reason string) error {
	a.Lock()
	h, st := a.Held()
	hist := append([]model.Message(nil), h...)
	prev, start := "", 0
	last := Last(st.Cuts)
	if last != nil {
		prev, start = last.Summary, last.Upto
		cc := *last
		last = &cc
	}
	a.Unlock()
	view := View(hist, last)
	before := TokensOf(a, view)
	window, compactAt := WindowOf(a)
	keep := compactAt / 2
	if keep == 0 {
		keep = before * 2 / 5
	}
	k := SplitPoint(hist, start, keep, reason)
	if k <= start {
		return ErrNothingToCompact
	}
	a.PreCompact(ctx, emit, reason)
	meta := event.Meta{AgentID: a.ID()}
	emit(&event.Compacting{Meta: meta, Reason: reason, Messages: k - start})
	summary, usages, err := Summarise(ctx, a.Model(), window, prev, hist[start:k], func(u model.Usage) {
		RecordUsage(a, emit, ModelName(a), u, false)
	})
	if err != nil {
		return compactFailed(a, reason, len(hist), usages, fmt.Errorf("compact the conversation: %w", err))
	}
	if reason != CompactManual && !HasPromptAfter(hist, k) {
		// The running turn is cut in the middle: its request, word for
		// word, so nothing of it is lost to the summary.
		for i := k - 1; i >= start; i-- {
			if history.IsPrompt(hist[i]) {
				summary += "\n\n## The user's current request, word for word\n\n" + hist[i].Text()
				break
			}
		}
	}
	c := Cut{Upto: k, Summary: summary, Model: ModelName(a), Usages: usages}
	after := a.RequestSize(View(hist, &c))
	c.Event = event.Compacted{Meta: meta, Reason: reason, Summary: summary, Messages: k - start, TokensBefore: before, TokensAfter: after}
	if store := a.Store(); store != nil {
		err := store.AppendCompaction(a.ID(), session.Compaction{
			Upto: fileIndex(a, k), Summary: summary, Reason: reason, Model: ModelName(a), Usage: UsageJSON(usages),
			TokensBefore: before, TokensAfter: after,
		})
		if err != nil {
			return compactFailed(a, reason, len(hist), usages, fmt.Errorf("compact the conversation: %w", err))
		}
	}
	a.Lock()
	_, st = a.Held()
	st.Cuts = append(st.Cuts, c)
	st.Est = Estimate{}
	a.Unlock()
	if a.ID() == MainAgent {
		UpdateContext(a, after)
	}
	ev := c.Event
	emit(&ev)
	emit(UsageOf(a))
	a.Compacted(ctx)
	return nil
}

// compactFailed records a compaction that failed after its summarising
// calls were paid (and counted): the session keeps what they cost, so a
// resumed session costs the same, and a "Compact now" keeps its failure
// where it happened, with its calls, as the conversation showed it. It
// returns err.
func compactFailed(a Agent, reason string, at int, usages []model.Usage, err error) error {
	store := a.Store()
	if store == nil || len(usages) == 0 {
		return err
	}
	sp := session.Spent{Agent: a.ID(), Model: ModelName(a), Usage: UsageJSON(usages)}
	if reason == CompactManual {
		f := CompactFailure(a, err)
		fc := FailedCompaction{Index: at, Failed: *f, Model: sp.Model, Usage: usages}
		sp.At = fileIndex(a, at)
		sp.Failed, _ = json.Marshal(f) // a Failed always encodes
		a.Lock()
		_, st := a.Held()
		st.Failed = append(st.Failed, fc)
		a.Unlock()
	}
	if serr := store.AppendSpent(sp); serr != nil {
		return fmt.Errorf("%w (and recording what it cost failed: %v)", err, serr)
	}
	return err
}

// fileIndex turns a history index into the index of the same message in
// the session file, which lacks the synthetic results.
func fileIndex(a Agent, i int) int {
	a.Lock()
	_, st := a.Held()
	synthetic := st.Synthetic
	a.Unlock()
	n := i
	for _, s := range synthetic {
		if s < i {
			n--
		}
	}
	return n
}

// CompactFailure is the Failed of a compaction the user asked for.
func CompactFailure(a Agent, err error) *event.Failed {
	f := a.Failure(err)
	f.Action = event.ActionCompact
	if f.Summary == "" {
		f.Summary = "The conversation could not be compacted."
		f.Fix = "Try again; the conversation is unchanged."
	}
	return f
}

// Compactions lists the compactions of a's conversation, oldest first.
func Compactions(a Agent) []HistoryCompaction {
	a.Lock()
	defer a.Unlock()
	_, st := a.Held()
	out := make([]HistoryCompaction, 0, len(st.Cuts))
	for _, c := range st.Cuts {
		out = append(out, HistoryCompaction{Index: c.Upto, Event: c.Event, Model: c.Model, Usage: c.Usages})
	}
	return out
}

// FailedCompactions lists the conversation's failed "Compact now"s,
// oldest first.
func FailedCompactions(a Agent) []FailedCompaction {
	a.Lock()
	defer a.Unlock()
	_, st := a.Held()
	return slices.Clone(st.Failed)
}
