//go:build journey

package journey

import (
	"testing"
)

// Issue 34, item 6: a prompt of several lines sent while the view is
// scrolled up shows the new message and its answer; they are not left
// below the fold behind "Jump to latest". The prompt box of four lines
// shrinks back as the message arrives: the view grows, and the browser's
// move up was taken for the user's.
func TestSendingAMultiLinePromptShowsIt(t *testing.T) {
	atSizesOn(t, "testdata/send-scrolled.yaml", func(t *testing.T, app *App, ws string) {
		app.RunApproved("Run a long cell", "It printed 300 lines.")
		app.WaitGone(Role("landmark", "Approval request"))
		app.ScrollUp(Text("It printed 300 lines."), 3)
		app.WaitFor(Button("Jump to latest"))

		app.Click(Field("Message to the agent"))
		lines := []string{"First line of a long prompt", "second line", "third line", "fourth line"}
		for i, l := range lines {
			if i > 0 {
				app.Key("shift+Return")
			}
			app.Type(l)
		}
		app.Shot("four-lines-typed")
		app.Key("Return")
		answer := Query{Role: "paragraph", Text: "I read all four lines of your prompt."}
		app.WaitFor(answer)
		conv := app.WaitFor(Role("landmark", "Conversation"))
		// WebKit tells the accessibility bus where things are after input:
		// a click on the conversation's empty margin brings that up to date.
		inView := func(q Query) bool {
			app.ClickAt(Node{X: conv.X + 8, Y: conv.Y + conv.H/2})
			n, ok := app.Find(q)
			return ok && n.Y >= conv.Y && n.Y+n.H <= conv.Y+conv.H
		}
		app.Wait("the answer in view", func() bool { return inView(answer) })
		app.Shot("sent-and-answered")
		if !inView(Text("fourth line")) {
			t.Error("the prompt just sent is not in view")
		}
		if _, ok := app.Find(Button("Jump to latest")); ok {
			t.Error(`"Jump to latest" is offered right after sending: the view did not follow the new message`)
		}
	})
}

// Issue 34, item 16: a notice that expires while the pointer rests over
// the session list does not move the list, nor does the kernel's progress
// row going once the fork's kernel is ready: the click aimed at a
// conversation before opens that conversation, not the one below it.
func TestExpiringNoticeDoesNotMoveTheSessionList(t *testing.T) {
	atSizesOn(t, "testdata/two-turns.yaml", func(t *testing.T, app *App, ws string) {
		app.Send("First question")
		app.WaitFor(Text("First answer."))
		app.Send("Second question")
		app.WaitFor(Text("Second answer."))
		app.Click(Button("Sessions"))
		source := Query{Role: "push button", Name: "· 4 messages"}
		app.WaitFor(source)
		// The fork's notice shows above the list and the conversation,
		// which is the fork's now (its first turn only).
		forked := Query{Role: "push button", Name: "Forked a new session"}
		forkAt(app, "Second question")
		app.WaitFor(forked)
		app.WaitFor(Query{Role: "push button", Name: "· 2 messages"})
		// The source conversation in the list, aimed at near its lower
		// edge: a list moved up by the notice's height puts the fork, or
		// nothing, there.
		n := app.WaitFor(source)
		x, y := n.X+n.W/2, n.Y+n.H-4
		app.moveTo(x, y)
		app.Shot("pointer-on-the-list")
		if _, ok := app.Find(forked); !ok {
			t.Fatal("the notice went before the pointer was on the list: the journey tests nothing")
		}
		if _, ok := app.Find(Text("Second answer.")); ok {
			t.Fatal("the fork shows the second answer: the journey cannot tell which conversation opens")
		}
		// The notice expires with the pointer resting there; then the
		// click the pointer was aimed for.
		app.WaitGone(forked)
		app.Shot("notice-expired")
		app.xdotool("click", "1")
		app.WaitFor(Text("Second answer."))
		app.WaitFor(Text("Kernel ready"))
		app.Shot("source-opened")
	})
}
