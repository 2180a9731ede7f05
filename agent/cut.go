package agent

import (
	"fmt"
	"strings"

	"github.com/freeact/desktop/agent/model"
)

// MaxTokensSetting is the setting that raises the output token limit a
// reply can be cut at.
const MaxTokensSetting = "model_settings.max_tokens"

// CutNotePrefix starts the note that tells the model its reply was cut
// off at the output token limit.
const CutNotePrefix = "<reply-cut>\n"

// replyCut is the event of a reply cut at the output token limit.
func (a *Agent) replyCut(msg model.Message, cut []model.FunctionCall) *ReplyCut {
	return replyCut(a.id, msg, cut, a.cfg.Options.ModelSettings.MaxTokens)
}

// StoredReplyCut is the main agent's event of a stored reply cut at the
// output token limit (maxTokens, nil for the provider's default), as a
// resumed conversation shows it; which of its calls were cut the message
// no longer holds.
func StoredReplyCut(msg model.Message, maxTokens *int) *ReplyCut {
	return replyCut(MainAgent, msg, nil, maxTokens)
}

func replyCut(agentID string, msg model.Message, cut []model.FunctionCall, maxTokens *int) *ReplyCut {
	ev := &ReplyCut{Meta: Meta{AgentID: agentID}, Setting: MaxTokensSetting}
	if msg.Usage != nil {
		ev.OutputTokens = msg.Usage.OutputTokens + msg.Usage.ThinkingTokens
	}
	if maxTokens != nil {
		ev.MaxTokens = *maxTokens
	}
	for _, c := range cut {
		ev.Dropped = append(ev.Dropped, c.Name)
	}
	at := "at the output token limit"
	if ev.OutputTokens > 0 {
		at = fmt.Sprintf("at %d output tokens", ev.OutputTokens)
	}
	ev.Text = fmt.Sprintf("The model's reply was cut %s, so it may be incomplete", at)
	if len(cut) > 0 {
		ev.Text += fmt.Sprintf("; its unfinished call (%s) did not run", strings.Join(ev.Dropped, ", "))
	}
	ev.Text += fmt.Sprintf(". Raise %s (Settings → Agent) to allow longer replies.", MaxTokensSetting)
	return ev
}

// cutNote tells the model which of its calls were cut and not run, and
// why. maxTokens is the limit set, nil for the provider's default.
func cutNote(msg model.Message, cut []model.FunctionCall, maxTokens *int) string {
	var b strings.Builder
	b.WriteString(CutNotePrefix)
	limit := "the output token limit"
	if maxTokens != nil {
		limit = fmt.Sprintf("the output token limit (max_tokens %d)", *maxTokens)
	}
	fmt.Fprintf(&b, "Your last reply was cut off at %s. ", limit)
	if msg.Usage != nil && msg.Usage.OutputTokens > 0 {
		fmt.Fprintf(&b, "It had %d output tokens. ", msg.Usage.OutputTokens+msg.Usage.ThinkingTokens)
	}
	if len(cut) == 0 {
		b.WriteString("Its calls were complete and ran; any you meant to make after them were not made. ")
	}
	for _, c := range cut {
		id := ""
		if c.ID != "" && !strings.HasPrefix(c.ID, model.CallIDPrefix) {
			id = " (id " + c.ID + ")"
		}
		fmt.Fprintf(&b, "The call to %s%s was cut before its arguments were complete, so it was NOT run and has no effect. ", c.Name, id)
	}
	if len(cut) > 0 {
		b.WriteString("Calls before it ran as usual. ")
	}
	b.WriteString("Send the unfinished work again in smaller steps.\n</reply-cut>")
	return b.String()
}
