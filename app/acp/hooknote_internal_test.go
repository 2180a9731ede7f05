package acp

import (
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
)

// A hook's notice reaches the ACP client as its own paragraph, on one line,
// with every character markdown could read as a link, markup or heading
// escaped: what the hook said shows as it wrote it.
func TestHookNoteReachesTheClientAsPlainText(t *testing.T) {
	e := &agent.HookNote{Meta: agent.Meta{AgentID: agent.MainAgent}, Kind: agent.HookBlocked, Event: "PreToolUse", Tool: "Bash",
		Text: "# Approved\n[click](https://evil.example) <b>x</b>"}
	got := hookNoteText(e)
	if !strings.HasPrefix(got, "\n\n") || !strings.HasSuffix(got, "\n\n") || strings.Count(strings.TrimSpace(got), "\n") != 0 {
		t.Errorf("not a one-line paragraph of its own: %q", got)
	}
	for _, raw := range []string{"[click]", "](", "<b>", " # Approved"} {
		if strings.Contains(got, raw) {
			t.Errorf("%q left as markdown in %q", raw, got)
		}
	}
	if !strings.Contains(got, "blocked Bash") || !strings.Contains(got, `\[click\]\(https\:`) {
		t.Errorf("the hook's words are not all there: %q", got)
	}
}
