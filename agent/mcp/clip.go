package mcp

import (
	"fmt"
	"sync"
	"time"
	"unicode/utf8"
)

// Limits on what a server's notifications may carry, applied where they
// enter (before Options.OnNotify and the calls' watchers), so that every
// consumer (the window, the terminal, a program) gets the same clipped
// text. The throttle of a call's progress (agent/progress.go) limits how
// many events go out; these limit their bytes.
const (
	// MaxNoteBytes is how much of one notification's message is kept.
	MaxNoteBytes = 4 << 10
	// NoteBudget is how many bytes of messages one server's notifications
	// carry in each NoteInterval; beyond it each message is cut to
	// NoteFloor until the interval ends (the throttle of a call's
	// progress bounds how many messages that is).
	NoteBudget = 64 << 10
	// NoteFloor is what a message keeps when the budget is spent: short
	// messages pass whole whatever the server sent before.
	NoteFloor = 256
	// NoteInterval is the interval of NoteBudget.
	NoteInterval = time.Second
	// maxLevelBytes is how much of a log level is kept: the levels of
	// RFC 5424 are short words.
	maxLevelBytes = 16
)

// noteClipper clips the notifications of one server.
type noteClipper struct {
	now func() time.Time // nil: time.Now

	mu    sync.Mutex
	start time.Time // of the current interval
	used  int       // bytes of messages passed in it
}

// clip cuts n's message to MaxNoteBytes, and to NoteFloor once the
// server's budget is spent, setting n.Clipped to the bytes left out and
// saying so at the end of the message.
func (c *noteClipper) clip(n *Notification) {
	now := time.Now
	if c.now != nil {
		now = c.now
	}
	n.Level = cut(n.Level, maxLevelBytes)
	c.mu.Lock()
	if t := now(); t.Sub(c.start) >= NoteInterval || t.Before(c.start) {
		c.start, c.used = t, 0
	}
	keep := min(len(n.Message), MaxNoteBytes, max(NoteBudget-c.used, NoteFloor))
	kept := cut(n.Message, keep)
	c.used += len(kept)
	c.mu.Unlock()
	if left := len(n.Message) - len(kept); left > 0 {
		n.Clipped += left
		n.Message = kept + fmt.Sprintf(" … [%d bytes clipped]", left)
	}
}

// cut returns at most n bytes of s, ending on a whole character.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
