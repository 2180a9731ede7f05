package mcp

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// A server's notifications are clipped where they enter: each message to
// MaxNoteBytes on a whole character, and once the server sent NoteBudget
// in a NoteInterval to NoteFloor (short ones still pass whole; the budget
// comes back in the next interval), the level to a short word; what was
// left out is counted and said at the message's end.
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
	// The budget runs out: the rest of the interval's messages keep
	// NoteFloor bytes each; short ones pass whole.
	passed := len("hello") + len(kept)
	for passed < NoteBudget {
		n := note(strings.Repeat("x", 1<<20))
		k, _, _ := strings.Cut(n.Message, " … [")
		passed += len(k)
	}
	if passed != NoteBudget {
		t.Errorf("%d bytes passed in one interval, want the budget %d", passed, NoteBudget)
	}
	if n := note(strings.Repeat("x", 1<<20)); n.Clipped != 1<<20-NoteFloor || n.Message != strings.Repeat("x", NoteFloor)+" … [1048320 bytes clipped]" {
		t.Errorf("a message over the budget: %d clipped, %q", n.Clipped, n.Message[max(0, len(n.Message)-60):])
	}
	if n := note("line 7"); n.Clipped != 0 || n.Message != "line 7" {
		t.Errorf("a short message over the budget: %+v", n)
	}
	// The next interval has the budget again.
	now = now.Add(NoteInterval)
	if n := note(strings.Repeat("x", 100)); n.Clipped != 0 || len(n.Message) != 100 {
		t.Errorf("in the next interval: %+v", n.Clipped)
	}
}
