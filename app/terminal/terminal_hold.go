package terminal

import (
	"context"
	"fmt"
	"os"
)

// The interactive terminal has one reader of stdin at a time: whoever
// holds it (a question being asked, the prompt for the next request, the
// turn printing an event). Questions asked at once (a server's form and an
// approval from two threads of one cell) are asked one after the other,
// so a line typed for one never answers another. The prompt for the next
// request yields to a question that comes meanwhile and is shown again
// after it. In --json mode the questions model (questions.go) routes the
// lines instead, and holding is a no-op.

// Holders that give way to whoever else wants the terminal: the prompt
// for the next request, the reader of an MCP wait's Enter.
const (
	holdRequest = "the prompt"
	holdMCPWait = "the wait for MCP servers"
)

// Questions asked outside a turn, each held from what it prints first to
// its answer. HoldReplay is exported because the note naming it is what
// the tests of the built binary wait for.
const (
	holdRecover = "the question about the interrupted revert"
	HoldReplay  = "the question whether to replay the session's cells"
	holdUndo    = "the /undo question"
)

// take waits for the terminal; false when ctx ends or stop closes first.
// what names the question for the note shown while it waits ("" for an
// event the turn prints).
func (t *terminal) take(ctx context.Context, stop <-chan struct{}, what string) bool {
	if t.json {
		return true
	}
	t.holdMu.Lock()
	select {
	case t.hold <- struct{}{}:
		t.setHolderLocked(what)
		t.holdMu.Unlock()
		return true
	default:
	}
	t.waiters++
	holder := t.holder
	switch {
	case yields(holder):
		t.callToYield()
	case what != "" && holder != "":
		fmt.Fprintf(t.errw, "\n(%s waits until %s is answered)\n", what, holder)
	}
	t.holdMu.Unlock()
	got := false
	select {
	case t.hold <- struct{}{}:
		got = true
	case <-ctx.Done():
	case <-stop:
	}
	t.holdMu.Lock()
	t.waiters--
	if got {
		t.setHolderLocked(what)
	}
	t.holdMu.Unlock()
	if got && what != "" && !yields(what) && !yields(holder) {
		// Which question is asked now, after the one it waited for.
		t.newline()
		t.write(t.style.dim("── next: "+what+" ──") + "\n")
	}
	return got
}

// yields is true of the holders that give way at once.
func yields(holder string) bool { return holder == holdRequest || holder == holdMCPWait }

// callToYield asks the holder to give way; holdMu is held.
func (t *terminal) callToYield() {
	t.preempted.Store(true)
	select {
	case t.preempt <- struct{}{}:
	default:
	}
}

// setHolderLocked records who has the terminal; holdMu is held. A holder
// that gives way starts with no call to give way but for the askers that
// wait now: one left from before is stale.
func (t *terminal) setHolderLocked(what string) {
	t.holder = what
	if !yields(what) {
		return
	}
	select {
	case <-t.preempt:
	default:
	}
	t.preempted.Store(false)
	if t.waiters > 0 {
		t.callToYield()
	}
}

// give lets the next one have the terminal.
func (t *terminal) give() {
	if t.json {
		return
	}
	t.holdMu.Lock()
	t.holder = ""
	t.holdMu.Unlock()
	<-t.hold
}

// readRequest reads the next request at the prompt; a question that comes
// meanwhile is asked first, then the prompt is shown again. ok is false
// at the end of input, a signal or the end of ctx.
func (t *terminal) readRequest(ctx context.Context) (string, bool) {
	return t.readYielding(ctx, holdRequest, t.interrupts, func() {
		t.newline()
		t.write(t.style.bold("> "))
		t.lineStart = true
	})
}

// readYielding reads a line holding the terminal as what (holdRequest or
// holdMCPWait), giving it up to anyone who wants it meanwhile (a question,
// an event to print): then again runs once the terminal is back, and the
// read goes on. ok is false at the end of input, a signal on interrupts
// or the end of ctx.
func (t *terminal) readYielding(ctx context.Context, what string, interrupts <-chan os.Signal, again func()) (string, bool) {
	for {
		if !t.take(ctx, nil, what) {
			return "", false
		}
		line, ok := t.readLine(ctx, t.preempt, interrupts)
		t.give()
		if ok || !t.preempted.Swap(false) {
			return line, ok
		}
		// The other one has the terminal now; this one waits behind it.
		if !t.take(ctx, nil, what) {
			return "", false
		}
		if again != nil {
			again()
		}
		t.give()
	}
}
