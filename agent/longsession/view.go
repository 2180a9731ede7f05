package longsession

import (
	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/model"
)

// Cut is a compaction as the agent applies it: the model sees Summary in
// place of history[:Upto].
type Cut struct {
	Upto    int
	Summary string
	Event   event.Compacted // as it was reported
	// Model and Usages are those of its summarising calls.
	Model  string
	Usages []model.Usage
}

// summaryPrefix starts the message that stands for compacted turns.
const summaryPrefix = "<conversation-summary>\nThe earlier part of this conversation was summarised to fit the context window. " +
	"The summary below replaces it; the full history is kept in the session file.\n\n"

// View returns the messages the model sees of hist: all of them, or, with
// c (the compaction in force), its summary and what came after it.
func View(hist []model.Message, c *Cut) []model.Message {
	if c == nil {
		return append([]model.Message(nil), hist...)
	}
	kept := hist[c.Upto:]
	out := make([]model.Message, 0, len(kept)+2)
	out = append(out, model.UserText(summaryPrefix+c.Summary+"\n</conversation-summary>"))
	if len(kept) == 0 || kept[0].Role == model.RoleUser {
		// Turns alternate: a reply between the summary and the next prompt.
		out = append(out, model.Message{Role: model.RoleModel, Parts: []model.Part{{Text: "Understood: I continue from this summary."}}})
	}
	return append(out, kept...)
}

// Last returns the compaction in force, the last of cuts; nil when there
// is none.
func Last(cuts []Cut) *Cut {
	if len(cuts) == 0 {
		return nil
	}
	return &cuts[len(cuts)-1]
}

// Estimate is what the last model call told about the size of the
// conversation: Input holds the request and reply of a call whose request
// was the first Covered messages of the view. The zero Estimate knows
// nothing.
type Estimate struct {
	Input, Covered int
	Valid          bool
}

// Measured is the Estimate after a call counted by u whose request held
// viewLen messages: that view plus the call's reply is input+output
// tokens.
func Measured(viewLen int, u model.Usage) Estimate {
	return Estimate{Input: u.InputTokens + u.OutputTokens, Covered: viewLen + 1, Valid: true}
}

// Tokens estimates the request view makes: what the last call measured,
// plus the messages since; without a measure that covers view, all(view),
// the estimate of a whole request.
func (e Estimate) Tokens(view []model.Message, all func([]model.Message) int) int {
	if e.Valid && e.Covered <= len(view) {
		return e.Input + EstimateTokens(view[e.Covered:])
	}
	return all(view)
}

// RequestTokens estimates a request with view from its characters: the
// system prompt, the tool declarations and the messages.
func RequestTokens(system string, tools []model.Tool, view []model.Message) int {
	n := len(system) / 4
	for _, t := range tools {
		n += (len(t.Name) + len(t.Description) + len(t.Parameters)) / 4
	}
	return n + EstimateTokens(view)
}
