// Package longsession owns what keeps a long session going besides the
// agent's own state: estimating a conversation's tokens, choosing where a
// compaction splits it, the summarising prompt and transcript
// (compaction.go), the view the model sees after a compaction and the
// estimates of a request (view.go), the summarising calls (summarise.go),
// the compactions of a resumed session (resume.go), the session's costs,
// budget and the window a user's own server reports (costs.go), the texts
// and figures of usage and budget (usage.go), and forking or copying a
// session (fork.go).
package longsession

import (
	"errors"
	"fmt"
	"strings"

	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/model"
)

// Compaction reasons.
const (
	CompactThreshold = "threshold"
	CompactOverflow  = "overflow"
	CompactManual    = "manual"
)

// ErrNothingToCompact is the error of a compaction with nothing old enough
// to summarise.
var ErrNothingToCompact = errors.New("nothing to compact yet: the conversation has no earlier turns")

// EstimateTokens is a rough count for messages no call has measured yet:
// four characters a token, 1,000 tokens an image.
func EstimateTokens(msgs []model.Message) int {
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

// SplitPoint chooses where a compaction of hist (from start) ends: the
// messages before it are summarised. Turn boundaries are preferred; inside
// a turn the cut falls before a model message, so every kept call keeps
// its results. The earliest point whose kept part fits keep tokens wins,
// so as much is kept as fits; a running turn keeps at least its last model
// message and results. Compacting on request (manual) keeps the last turn
// when it fits and nothing otherwise.
func SplitPoint(hist []model.Message, start, keep int, reason string) int {
	mid := reason != CompactManual
	end := len(hist)
	var prompts, models []int
	for i := start + 1; i < end; i++ {
		switch {
		case history.IsPrompt(hist[i]):
			prompts = append(prompts, i)
		case hist[i].Role == model.RoleModel:
			models = append(models, i)
		}
	}
	if !mid {
		// Compact now: keep the last turn if it fits, else summarise all.
		if n := len(prompts); n > 0 && EstimateTokens(hist[prompts[n-1]:]) <= keep {
			return prompts[n-1]
		}
		return end
	}
	for _, cands := range [][]int{prompts, models} {
		for _, i := range cands {
			if EstimateTokens(hist[i:]) <= keep {
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

func HasPromptAfter(hist []model.Message, k int) bool {
	for _, m := range hist[k:] {
		if history.IsPrompt(m) {
			return true
		}
	}
	return false
}

// CompactionInstructions is the system prompt of a summarising call.
const CompactionInstructions = `You summarise a working session between a user and a coding agent, so that the agent can continue the work with your summary in place of the messages. The agent answers by writing Python that runs in a stateful IPython kernel in the user's workspace; it also reads and writes files with tools and runs shell commands.

Write the summary for the agent, in Markdown, with these sections:
1. Requests: what the user asked for (their words where it matters) and which request is current.
2. Done: what was done and what came out of it (numbers, answers, findings).
3. Decisions: what was decided and why; preferences and constraints the user stated.
4. Files: files created, changed or deleted, by path, and what they hold.
5. Kernel state: variables, functions, imports and data in the kernel that later work relies on (names, types, what they hold).
6. Saved results: where offloaded tool results, images and saved tools are (paths).
7. Open: what is left to do, open questions, errors not yet solved.

Be specific and complete: names, paths, numbers. Leave out small talk and anything later work does not need. Answer with the summary only.`

// maxItemChars bounds one tool argument or result in a Transcript.
const maxItemChars = 2000

// Transcript renders messages as text for a summarising call.
func Transcript(msgs []model.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		switch {
		case history.IsPrompt(m):
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
				fmt.Fprintf(&b, "Called %s with %s\n", p.FunctionCall.Name, ClipMiddle(string(p.FunctionCall.Args), maxItemChars))
			case p.FunctionResponse != nil:
				r := p.FunctionResponse
				state := ""
				if r.IsError {
					state = " (error)"
				}
				fmt.Fprintf(&b, "Result of %s%s:\n%s\n", r.Name, state, ClipMiddle(r.Output, maxItemChars))
			case p.Text != "":
				b.WriteString(p.Text)
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

// ClipMiddle keeps the head and tail of s, n characters in all.
func ClipMiddle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n/2]) + fmt.Sprintf("\n[… %d characters left out …]\n", len(r)-n) + string(r[len(r)-n/2:])
}

// SummaryCutError is the error of a compaction whose summary was cut off
// at the output token limit: it is not kept, and the history stays whole.
type SummaryCutError struct{ OutputTokens int }

func (e *SummaryCutError) Error() string {
	at := "at the output token limit"
	if e.OutputTokens > 0 {
		at = fmt.Sprintf("at %d output tokens", e.OutputTokens)
	}
	return fmt.Sprintf("the summary was cut off %s, so it was not kept; raise %s to compact", at, history.MaxTokensSetting)
}

// HistoryCompaction is a compaction of the main conversation placed in
// its history: it happened before History()[Index]. Model and Usage are
// those of its summarising calls.
type HistoryCompaction struct {
	Index int
	Event event.Compacted
	Model string
	Usage []model.Usage
}

// FailedCompaction is a "Compact now" of the main conversation that
// failed after its summarising calls (Model, Usage) were paid, placed in
// its history: after History()[Index-1].
type FailedCompaction struct {
	Index  int
	Failed event.Failed
	Model  string
	Usage  []model.Usage
	// Retried: a later "Compact now" took its place; what its calls cost
	// stays.
	Retried bool
}
