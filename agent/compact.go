package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/freeact/desktop/agent/longsession"
	"iter"
	"slices"
	"strings"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/session"
)

// cut is a compaction as the agent applies it: the model sees summary in
// place of history[:upto].
type cut struct {
	upto    int
	summary string
	event   Compacted // as it was reported
	// model and usages are those of its summarising calls.
	model  string
	usages []model.Usage
}

// summaryPrefix starts the message that stands for compacted turns.
const summaryPrefix = "<conversation-summary>\nThe earlier part of this conversation was summarised to fit the context window. " +
	"The summary below replaces it; the full history is kept in the session file.\n\n"

// view returns the messages the model sees: the history, or the latest
// summary and what came after it.
func (a *Agent) view() []model.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return viewOf(a.history, a.cut())
}

func (a *Agent) cut() *cut {
	if len(a.cuts) == 0 {
		return nil
	}
	return &a.cuts[len(a.cuts)-1]
}

func viewOf(hist []model.Message, c *cut) []model.Message {
	if c == nil {
		return append([]model.Message(nil), hist...)
	}
	kept := hist[c.upto:]
	out := make([]model.Message, 0, len(kept)+2)
	out = append(out, model.UserText(summaryPrefix+c.summary+"\n</conversation-summary>"))
	if len(kept) == 0 || kept[0].Role == model.RoleUser {
		// Turns alternate: a reply between the summary and the next prompt.
		out = append(out, model.Message{Role: model.RoleModel, Parts: []model.Part{{Text: "Understood: I continue from this summary."}}})
	}
	return append(out, kept...)
}

// tokenEstimate is what the last model call told about the size of the
// conversation: input holds the request and reply of a call whose request
// was the first covered messages of the view.
type tokenEstimate struct {
	input, covered int
	valid          bool
}

// requestTokens estimates the request the view makes: what the last call
// measured, plus the messages since, or an estimate of it all.
func (a *Agent) requestTokens(view []model.Message) int {
	a.mu.Lock()
	est := a.est
	a.mu.Unlock()
	if est.valid && est.covered <= len(view) {
		return est.input + longsession.EstimateTokens(view[est.covered:])
	}
	return a.estimateAll(view)
}

// estimateAll estimates a request with view from its characters: the
// system prompt, the tool declarations and the messages.
func (a *Agent) estimateAll(view []model.Message) int {
	n := len(a.system) / 4
	for _, t := range a.tools {
		n += (len(t.Name) + len(t.Description) + len(t.Parameters)) / 4
	}
	return n + longsession.EstimateTokens(view)
}

// measured records a call's usage: the view it was sent with, plus its
// reply, is input+output tokens.
func (a *Agent) measured(viewLen int, u model.Usage) {
	a.mu.Lock()
	a.est = tokenEstimate{input: u.InputTokens + u.OutputTokens, covered: viewLen + 1, valid: true}
	a.mu.Unlock()
}

// compact summarises older messages so that the model sees the summary
// instead; the session records it. It reports through emit and returns
// ErrNothingToCompact when there is nothing old enough.
func (a *Agent) compact(ctx context.Context, emit func(Event), reason string) error {
	a.mu.Lock()
	hist := append([]model.Message(nil), a.history...)
	prev, start := "", 0
	if c := a.cut(); c != nil {
		prev, start = c.summary, c.upto
	}
	a.mu.Unlock()
	view := viewOf(hist, a.lastCut())
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
	c := cut{upto: k, summary: summary, model: a.modelName(), usages: usages}
	after := a.estimateAll(viewOf(hist, &c))
	c.event = Compacted{Meta: Meta{AgentID: a.id}, Reason: reason, Summary: summary, Messages: k - start, TokensBefore: before, TokensAfter: after}
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
	a.est = tokenEstimate{}
	a.mu.Unlock()
	if a.id == MainAgent {
		a.updateContext(after)
	}
	ev := c.event
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

func (a *Agent) lastCut() *cut {
	a.mu.Lock()
	defer a.mu.Unlock()
	if c := a.cut(); c != nil {
		cc := *c
		return &cc
	}
	return nil
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

// Summarising.

// summarise asks the model for a summary of msgs, continuing prev (an
// earlier summary). A transcript too long for one call goes in parts,
// each summary carried into the next.
func (a *Agent) summarise(ctx context.Context, emit func(Event), prev string, msgs []model.Message) (string, []model.Usage, error) {
	text := longsession.Transcript(msgs)
	window, _ := a.window()
	chunk := 400_000 // characters, when the window is unknown
	if window > 0 {
		chunk = window * 4 / 2 // half the window, at four characters a token
	}
	var usages []model.Usage
	for len(text) > 0 {
		part := text
		if len(part) > chunk {
			part = part[:chunk]
			if i := strings.LastIndex(part, "\n## "); i > chunk/2 {
				part = part[:i]
			}
		}
		var prompt strings.Builder
		if prev != "" {
			prompt.WriteString("The summary of the session so far:\n\n" + prev + "\n\nThe messages that followed:\n")
		} else {
			prompt.WriteString("The messages of the session:\n")
		}
		prompt.WriteString(part)
		prompt.WriteString("\n\nWrite the summary of the whole session as instructed.")
		summary, u, err := a.ask(ctx, longsession.CompactionInstructions, prompt.String())
		if u != nil {
			usages = append(usages, *u)
			a.recordUsage(emit, a.modelName(), *u)
		}
		if model.IsContextOverflow(err) && chunk > 4000 {
			chunk /= 2 // the estimate was off: smaller parts
			continue
		}
		if err != nil {
			return "", usages, err
		}
		if strings.TrimSpace(summary) == "" {
			return "", usages, errors.New("the model returned an empty summary")
		}
		prev = strings.TrimSpace(summary)
		text = text[len(part):]
	}
	return prev, usages, nil
}

// ask makes one call without tools and returns its answer text; an
// answer cut at the output token limit is a *SummaryCutError.
func (a *Agent) ask(ctx context.Context, system, prompt string) (string, *model.Usage, error) {
	req := &model.Request{System: system, Messages: []model.Message{model.UserText(prompt)}}
	for ch, err := range a.currentModel().Stream(ctx, req) {
		if err != nil {
			return "", nil, err
		}
		if d, ok := ch.(model.Done); ok {
			if d.Message.Cut() {
				// Half a summary would stand for the whole history.
				e := &SummaryCutError{}
				if u := d.Message.Usage; u != nil {
					e.OutputTokens = u.OutputTokens + u.ThinkingTokens
				}
				return "", d.Message.Usage, e
			}
			return d.Message.Text(), d.Message.Usage, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return "", nil, err
	}
	return "", nil, errors.New("the model stream ended without a message")
}

// Compact summarises the older turns now ("Compact now", /compact),
// keeping the last turn when it is small. It runs like a turn (no turn
// may run meanwhile) and yields Compacting, Usage, Compacted and
// SessionUsage, or Failed.
func (a *Agent) Compact(ctx context.Context) iter.Seq[Event] {
	return a.exclusive(ctx, func(ctx context.Context, emit func(Event)) {
		// A new try takes the place of the ones that failed before it.
		a.mu.Lock()
		for i := range a.failedCompactions {
			a.failedCompactions[i].Retried = true
		}
		a.mu.Unlock()
		if err := a.compact(ctx, emit, CompactManual); err != nil {
			emit(a.compactFailure(err))
		}
	})
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
		out = append(out, HistoryCompaction{Index: c.upto, Event: c.event, Model: c.model, Usage: c.usages})
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
