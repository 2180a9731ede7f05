package history

import (
	"strings"

	"github.com/freeact/desktop/agent/model"
)

// RejectedText is the result of a call the user rejected.
const RejectedText = "Tool call rejected"

// IsRejection reports whether r is the result of a call the user
// rejected (a whole call, or a shell command inside a cell), which ended
// its turn.
func IsRejection(r model.FunctionResponse) bool {
	return r.IsError && (r.Output == RejectedText || strings.HasSuffix(r.Output, "\n"+RejectedText))
}

const (
	failedNoteLead = "The turn ended early: the next step failed ("
	failedNoteTail = "). The actions above ran"
)

// FailedNote tells the model that the turn ended early with the error
// text (clipped by the caller), and that the actions above it did
// happen.
func FailedNote(errText string) string {
	return FailedNotePrefix + failedNoteLead + errText + failedNoteTail + " and their results are real: the kernel and the files are as they left them.\n</turn-failed>"
}

// FailedNoteError returns the error a <turn-failed> note records, and
// whether text is such a note.
func FailedNoteError(text string) (string, bool) {
	rest, ok := strings.CutPrefix(text, FailedNotePrefix+failedNoteLead)
	if !ok {
		return "", false
	}
	i := strings.LastIndex(rest, failedNoteTail)
	if i < 0 {
		return "", false
	}
	return rest[:i], true
}

// ResumeNote asks the model to carry on from where the failed turn
// stopped, without doing again what it did.
const ResumeNote = ResumeNotePrefix + "The user asked to carry on with the turn that failed above. " +
	"Go on from where it stopped: the actions above ran once and their results stand, so do not run them again; " +
	"do only what is left of the request.\n</turn-resumed>"

// KeptFailure reports whether the history ends with a turn that failed
// after its actions ran: its last message holds the <turn-failed> note.
func KeptFailure(hist []model.Message) bool {
	if len(hist) == 0 {
		return false
	}
	last := hist[len(hist)-1]
	if last.Role != model.RoleUser || len(last.FunctionResponses()) > 0 {
		return false
	}
	for _, p := range last.Parts {
		if strings.HasPrefix(NoteText(p), FailedNotePrefix) {
			return true
		}
	}
	return false
}

// LastPromptText is the text of the last prompt in hist.
func LastPromptText(hist []model.Message) string {
	for i := len(hist) - 1; i >= 0; i-- {
		if IsPrompt(hist[i]) {
			return hist[i].Text()
		}
	}
	return ""
}

// AnswerDangling makes a loaded history consistent: a model message whose
// calls have no responses (the process ended while they ran) gets responses
// of text saying so, so the next request is valid for every provider.
// pos[i] is where hist[i] ends up in the result.
func AnswerDangling(hist []model.Message, text string) (out []model.Message, pos []int) {
	pos = make([]int, len(hist))
	for i, m := range hist {
		pos[i] = len(out)
		out = append(out, m)
		calls := m.FunctionCalls()
		if m.Role != model.RoleModel || len(calls) == 0 {
			continue
		}
		answered := map[string]bool{}
		if i+1 < len(hist) {
			for _, r := range hist[i+1].FunctionResponses() {
				answered[r.ID] = true
			}
		}
		var missing []model.FunctionResponse
		for _, c := range calls {
			if !answered[c.ID] {
				missing = append(missing, model.FunctionResponse{ID: c.ID, Name: c.Name, Output: text, IsError: true})
			}
		}
		if len(missing) == 0 {
			continue
		}
		if len(answered) > 0 {
			// Some were answered: add the missing ones to that message.
			next := hist[i+1]
			for _, r := range missing {
				r := r
				next.Parts = append(next.Parts, model.Part{FunctionResponse: &r})
			}
			hist[i+1] = next
			continue
		}
		out = append(out, model.ToolResults(missing...))
	}
	return out, pos
}
