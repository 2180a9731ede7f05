package mcp

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// A server's notifications are clipped where they enter: each message to
// MaxNoteBytes on a whole character, all of them together to NoteBudget a
// NoteInterval (the budget comes back in the next interval), the level to
// a short word; what was left out is counted and said at the message's end.
func TestNoteClipper(t *testing.T) {
	now := time.Unix(1000, 0)
	c := noteClipper{now: func() time.Time { return now }}
	note := func(msg string) Notification {
		n := Notification{Kind: "log", Level: strings.Repeat("w", 1000), Message: msg}
		c.clip(&n)
		return n
	}
	small := note("hello")
	if small.Message != "hello" || small.Clipped != 0 || len(small.Level) > maxLevelBytes {
		t.Errorf("a short message: %+v", small)
	}
	// A 1 MB message of 3-byte characters: cut on a character.
	big := note(strings.Repeat("€", 1<<20/3))
	kept, _, _ := strings.Cut(big.Message, " … [")
	if len(kept) > MaxNoteBytes || len(kept) < MaxNoteBytes-3 || !utf8.ValidString(kept) ||
		big.Clipped != 3*(1<<20/3)-len(kept) || !strings.HasSuffix(big.Message, " bytes clipped]") {
		t.Errorf("a 1 MB message kept %d bytes, %d clipped, ends %q", len(kept), big.Clipped, big.Message[len(big.Message)-40:])
	}
	// The budget runs out: the rest of the interval's messages are left out.
	passed := len("hello") + len(kept)
	var last Notification
	for range 40 {
		last = note(strings.Repeat("x", 1<<20))
		k, _, _ := strings.Cut(last.Message, " … [")
		passed += len(k)
	}
	if passed != NoteBudget {
		t.Errorf("%d bytes passed in one interval, want the budget %d", passed, NoteBudget)
	}
	if last.Clipped != 1<<20 || !strings.Contains(last.Message, "left out") {
		t.Errorf("a message over the budget: %d clipped, %q", last.Clipped, last.Message)
	}
	// The next interval has the budget again.
	now = now.Add(NoteInterval)
	if n := note(strings.Repeat("x", 100)); n.Clipped != 0 || len(n.Message) != 100 {
		t.Errorf("in the next interval: %+v", n.Clipped)
	}
}
