package acp

import (
	"fmt"
	"strings"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/internal/visible"
)

// hookNoteText is a hook's notice (it blocked, changed or added context
// to a call) as a message chunk for the client: a paragraph of its own
// whose hook words are escaped, so a client that renders markdown shows
// them as the hook wrote them, never as links, markup or headings.
func hookNoteText(e *agent.HookNote) string {
	what := map[string]string{agent.HookBlocked: "blocked", agent.HookChanged: "changed the input of", agent.HookContext: "added context to"}[e.Kind]
	if what == "" {
		what = e.Kind
	}
	line := fmt.Sprintf("A hook (%s) %s %s", e.Event, what, e.Tool)
	if e.Text != "" {
		line += ": " + e.Text
	}
	if e.Input != "" {
		line += " → runs with " + e.Input
	}
	return "\n\n" + plainMarkdown(visible.Line(line)) + "\n\n"
}

// markdownSpecial are the characters markdown (CommonMark, GFM) may read
// as syntax.
const markdownSpecial = "\\`*_{}[]()<>#+-.!|~&:"

// plainMarkdown escapes s so that markdown shows it as text.
func plainMarkdown(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(markdownSpecial, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
