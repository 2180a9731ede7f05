package longsession

import (
	"context"
	"errors"
	"strings"

	"github.com/freeact/desktop/agent/model"
)

// Summarise asks m for a summary of msgs, continuing prev (an earlier
// summary). A transcript too long for one call goes in parts, each
// summary carried into the next; window is the model's context window (0:
// unknown). Each call's usage goes to used as it comes, and all of them
// are returned, with an error too.
func Summarise(ctx context.Context, m model.Model, window int, prev string, msgs []model.Message, used func(model.Usage)) (string, []model.Usage, error) {
	text := Transcript(msgs)
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
		summary, u, err := Ask(ctx, m, CompactionInstructions, prompt.String())
		if u != nil {
			usages = append(usages, *u)
			used(*u)
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

// Ask makes one call of m without tools and returns its answer text; an
// answer cut at the output token limit is a *SummaryCutError.
func Ask(ctx context.Context, m model.Model, system, prompt string) (string, *model.Usage, error) {
	req := &model.Request{System: system, Messages: []model.Message{model.UserText(prompt)}}
	for ch, err := range m.Stream(ctx, req) {
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
