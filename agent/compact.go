package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/session"
)

// Compaction reasons.
const (
	CompactThreshold = "threshold"
	CompactOverflow  = "overflow"
	CompactManual    = "manual"
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

// ErrNothingToCompact is the error of a compaction with nothing old enough
// to summarise.
var ErrNothingToCompact = errors.New("nothing to compact yet: the conversation has no earlier turns")

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

// estimateTokens is a rough count for messages no call has measured yet:
// four characters a token, 1,000 tokens an image.
func estimateTokens(msgs []model.Message) int {
	n := 0
	for _, m := range msgs {
		n += 4
		for _, p := range m.Parts {
			n += len(p.Text) / 4
			switch {
			case p.Image != nil:
				n += 1000
			case p.FunctionCall != nil:
				n += (len(p.FunctionCall.Name) + len(p.FunctionCall.Args)) / 4
			case p.FunctionResponse != nil:
				n += (len(p.FunctionResponse.Name) + len(p.FunctionResponse.Output)) / 4
				n += 1000 * len(p.FunctionResponse.Images)
			}
		}
	}
	return n
}

// requestTokens estimates the request the view makes: what the last call
// measured, plus the messages since, or an estimate of it all.
func (a *Agent) requestTokens(view []model.Message) int {
	a.mu.Lock()
	est := a.est
	a.mu.Unlock()
	if est.valid && est.covered <= len(view) {
		return est.input + estimateTokens(view[est.covered:])
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
	return n + estimateTokens(view)
}

// measured records a call's usage: the view it was sent with, plus its
// reply, is input+output tokens.
func (a *Agent) measured(viewLen int, u model.Usage) {
	a.mu.Lock()
	a.est = tokenEstimate{input: u.InputTokens + u.OutputTokens, covered: viewLen + 1, valid: true}
	a.mu.Unlock()
}

// splitPoint chooses where a compaction of hist (from start) ends: the
// messages before it are summarised. Turn boundaries are preferred; inside
// a turn the cut falls before a model message, so every kept call keeps
// its results. The earliest point whose kept part fits keep tokens wins,
// so as much is kept as fits; a running turn keeps at least its last model
// message and results. Compacting on request (manual) keeps the last turn
// when it fits and nothing otherwise.
func splitPoint(hist []model.Message, start, keep int, reason string) int {
	mid := reason != CompactManual
	end := len(hist)
	var prompts, models []int
	for i := start + 1; i < end; i++ {
		switch {
		case IsPrompt(hist[i]):
			prompts = append(prompts, i)
		case hist[i].Role == model.RoleModel:
			models = append(models, i)
		}
	}
	if !mid {
		// Compact now: keep the last turn if it fits, else summarise all.
		if n := len(prompts); n > 0 && estimateTokens(hist[prompts[n-1]:]) <= keep {
			return prompts[n-1]
		}
		return end
	}
	for _, cands := range [][]int{prompts, models} {
		for _, i := range cands {
			if estimateTokens(hist[i:]) <= keep {
				return i
			}
		}
	}
	if n := len(models); n > 0 {
		return models[n-1]
	}
	if n := len(prompts); n > 0 {
		return prompts[n-1]
	}
	return start
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
	k := splitPoint(hist, start, keep, reason)
	if k <= start {
		return ErrNothingToCompact
	}
	emit(&Compacting{Meta: Meta{AgentID: a.id}, Reason: reason, Messages: k - start})
	summary, usages, err := a.summarise(ctx, emit, prev, hist[start:k])
	if err != nil {
		return a.compactFailed(reason, len(hist), usages, fmt.Errorf("compact the conversation: %w", err))
	}
	if reason != CompactManual && !hasPromptAfter(hist, k) {
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
			Upto: a.fileIndex(k), Summary: summary, Reason: reason, Model: a.modelName(), Usage: usageJSON(usages),
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
	sp := session.Spent{Agent: a.id, Model: a.modelName(), Usage: usageJSON(usages)}
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

func hasPromptAfter(hist []model.Message, k int) bool {
	for _, m := range hist[k:] {
		if IsPrompt(m) {
			return true
		}
	}
	return false
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

// compactionInstructions is the system prompt of a summarising call.
const compactionInstructions = `You summarise a working session between a user and a coding agent, so that the agent can continue the work with your summary in place of the messages. The agent answers by writing Python that runs in a stateful IPython kernel in the user's workspace; it also reads and writes files with tools and runs shell commands.

Write the summary for the agent, in Markdown, with these sections:
1. Requests: what the user asked for (their words where it matters) and which request is current.
2. Done: what was done and what came out of it (numbers, answers, findings).
3. Decisions: what was decided and why; preferences and constraints the user stated.
4. Files: files created, changed or deleted, by path, and what they hold.
5. Kernel state: variables, functions, imports and data in the kernel that later work relies on (names, types, what they hold).
6. Saved results: where offloaded tool results, images and saved tools are (paths).
7. Open: what is left to do, open questions, errors not yet solved.

Be specific and complete: names, paths, numbers. Leave out small talk and anything later work does not need. Answer with the summary only.`

// maxItemChars bounds one tool argument or result in a transcript.
const maxItemChars = 2000

// transcript renders messages as text for a summarising call.
func transcript(msgs []model.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		switch {
		case IsPrompt(m):
			b.WriteString("\n## User\n")
		case m.Role == model.RoleUser:
			b.WriteString("\n## Tool results\n")
		default:
			b.WriteString("\n## Agent\n")
		}
		for _, p := range m.Parts {
			switch {
			case p.Thought:
			case p.Image != nil:
				b.WriteString("[image]\n")
			case p.FunctionCall != nil:
				fmt.Fprintf(&b, "Called %s with %s\n", p.FunctionCall.Name, clipMiddle(string(p.FunctionCall.Args), maxItemChars))
			case p.FunctionResponse != nil:
				r := p.FunctionResponse
				state := ""
				if r.IsError {
					state = " (error)"
				}
				fmt.Fprintf(&b, "Result of %s%s:\n%s\n", r.Name, state, clipMiddle(r.Output, maxItemChars))
			case p.Text != "":
				b.WriteString(p.Text)
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

// clipMiddle keeps the head and tail of s, n characters in all.
func clipMiddle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n/2]) + fmt.Sprintf("\n[… %d characters left out …]\n", len(r)-n) + string(r[len(r)-n/2:])
}

// summarise asks the model for a summary of msgs, continuing prev (an
// earlier summary). A transcript too long for one call goes in parts,
// each summary carried into the next.
func (a *Agent) summarise(ctx context.Context, emit func(Event), prev string, msgs []model.Message) (string, []model.Usage, error) {
	text := transcript(msgs)
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
		summary, u, err := a.ask(ctx, compactionInstructions, prompt.String())
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

// SummaryCutError is the error of a compaction whose summary was cut off
// at the output token limit: it is not kept, and the history stays whole.
type SummaryCutError struct{ OutputTokens int }

func (e *SummaryCutError) Error() string {
	at := "at the output token limit"
	if e.OutputTokens > 0 {
		at = fmt.Sprintf("at %d output tokens", e.OutputTokens)
	}
	return fmt.Sprintf("the summary was cut off %s, so it was not kept; raise %s to compact", at, MaxTokensSetting)
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

// HistoryCompaction is a compaction of the main conversation placed in
// its history: it happened before History()[Index]. Model and Usage are
// those of its summarising calls.
type HistoryCompaction struct {
	Index int
	Event Compacted
	Model string
	Usage []model.Usage
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

// FailedCompaction is a "Compact now" of the main conversation that
// failed after its summarising calls (Model, Usage) were paid, placed in
// its history: after History()[Index-1].
type FailedCompaction struct {
	Index  int
	Failed Failed
	Model  string
	Usage  []model.Usage
	// Retried: a later "Compact now" took its place; what its calls cost
	// stays.
	Retried bool
}

// FailedCompactions lists the conversation's failed "Compact now"s,
// oldest first.
func (a *Agent) FailedCompactions() []FailedCompaction {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.failedCompactions)
}
