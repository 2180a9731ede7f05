package acp

import (
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/internal/visible"
)

// allowedText says who let a call run without asking (the window's and
// the terminal's badge), as a line of the call's content; the rule, hook
// or judge words are escaped for markdown, as hook notes are.
func allowedText(a model.Approved) string {
	words := map[string]string{
		agent.ByRule:     "the saved rule " + a.Rule,
		agent.BySession:  "this session's grant " + a.Rule,
		agent.BySkip:     "permissions are skipped",
		agent.ByHook:     "a hook: " + a.Rule,
		agent.BySandbox:  "auto mode: it runs in the sandbox and its changes are checkpointed",
		agent.ByReadOnly: "auto mode: a read-only tool of a server you trusted in this conversation",
		agent.ByJudge:    "auto mode's judge: " + a.Reason,
	}[a.By]
	if words == "" {
		words = a.By
	}
	return "Allowed without asking, by " + plainMarkdown(visible.Line(strings.TrimSpace(words)))
}

// allowed adds who allowed call id to its content, which the client shows
// from then on.
func (t *turn) allowed(id string, a model.Approved) {
	c, ok := t.calls[id]
	if !ok {
		return
	}
	c.head = append(c.head, sdk.ToolContent(sdk.TextBlock(allowedText(a))))
	t.send(sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateContent(c.content())))
}
