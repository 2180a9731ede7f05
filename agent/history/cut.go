package history

import (
	"fmt"
	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/session"
	"regexp"
	"strconv"
	"strings"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/model"
)

// MaxTokensSetting is the setting that raises the output token limit a
// reply can be cut at.
const MaxTokensSetting = "model_settings.max_tokens"

// CutNotePrefix starts the note that tells the model its reply was cut
// off at the output token limit.
const CutNotePrefix = "<reply-cut>\n"

// NewReplyCut says that msg was cut at maxTokens (0: the provider's
// default), with the calls named in dropped not run.
func NewReplyCut(agentID string, msg model.Message, maxTokens int, dropped []string) *event.ReplyCut {
	ev := &event.ReplyCut{Meta: event.Meta{AgentID: agentID}, Setting: MaxTokensSetting, MaxTokens: maxTokens, Dropped: dropped}
	if msg.Usage != nil {
		ev.OutputTokens = msg.Usage.OutputTokens + msg.Usage.ThinkingTokens
	}
	at := "at the output token limit"
	if ev.OutputTokens > 0 {
		at = fmt.Sprintf("at %d output tokens", ev.OutputTokens)
	}
	ev.Text = fmt.Sprintf("The model's reply was cut %s, so it may be incomplete", at)
	if len(dropped) > 0 {
		ev.Text += fmt.Sprintf("; its unfinished call (%s) did not run", strings.Join(dropped, ", "))
	}
	ev.Text += fmt.Sprintf(". Raise %s (%s) to allow longer replies.", MaxTokensSetting, config.SettingsTab(MaxTokensSetting))
	return ev
}

// HistoryReplyCut rebuilds, for a resumed conversation, the ReplyCut its
// live turn showed after msgs[i]: ok is false unless msgs[i] is a model
// message cut at the output token limit. The limit and the calls that did
// not run come from the <reply-cut> note the agent added to the results
// that follow it (a cut answer without calls has none: its limit is
// then unknown, 0).
func HistoryReplyCut(msgs []model.Message, i int) (ev *event.ReplyCut, ok bool) {
	if i < 0 || i >= len(msgs) || msgs[i].Role != model.RoleModel || !msgs[i].Cut() {
		return nil, false
	}
	maxTokens, dropped := 0, []string(nil)
	if i+1 < len(msgs) && msgs[i+1].Role == model.RoleUser {
		for _, p := range msgs[i+1].Parts {
			if strings.HasPrefix(NoteText(p), CutNotePrefix) {
				maxTokens, dropped = parseCutNote(p.Text)
				break
			}
		}
	}
	return NewReplyCut(session.MainAgent, msgs[i], maxTokens, dropped), true
}

var (
	cutNoteLimit = regexp.MustCompile(`\(max_tokens (\d+)\)`)
	cutNoteCall  = regexp.MustCompile(`The call to (\S+?)(?: \(id [^)]*\))? was cut before its arguments were complete`)
)

// parseCutNote reads back what CutNote wrote: the limit (0 when none was
// set) and the names of the calls that did not run.
func parseCutNote(note string) (maxTokens int, dropped []string) {
	if m := cutNoteLimit.FindStringSubmatch(note); m != nil {
		maxTokens, _ = strconv.Atoi(m[1])
	}
	for _, m := range cutNoteCall.FindAllStringSubmatch(note, -1) {
		dropped = append(dropped, m[1])
	}
	return maxTokens, dropped
}

// CutNote tells the model which of its calls were cut and not run, and
// why. maxTokens is the limit set, nil for the provider's default.
func CutNote(msg model.Message, cut []model.FunctionCall, maxTokens *int) string {
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
