//go:build journey

package journey

import (
	"os"
	"path/filepath"
	"testing"
)

// Issue 39: two conversations run at once. The first waits for an
// approval while the second, started meanwhile, streams its answer; the
// header counts the approval waiting elsewhere; a click on it goes back
// to the first, whose approval is still there; approved, it finishes, and
// the session list shows both finished.
func TestTwoConversationsRunAtOnce(t *testing.T) {
	atSizesOn(t, "testdata/parallel.yaml", func(t *testing.T, app *App, ws string) {
		app.Send("Write the first file")
		app.WaitFor(Role("landmark", "Approval request"))
		app.Shot("first-waits")

		// A new conversation while the first waits: once refused.
		app.Key("ctrl+n")
		app.WaitGone(Text("First conversation: I will write a file."))
		app.WaitFor(Text("Kernel ready"))
		elsewhere := Button("1 waiting elsewhere")
		app.WaitFor(elsewhere)
		app.Send("Stream the second answer")
		app.WaitFor(Text("while the first waits."))
		if _, ok := app.Find(Role("landmark", "Approval request")); ok {
			t.Error("the first conversation's approval shows in the second")
		}
		app.Shot("second-streamed-first-waits-elsewhere")

		app.Click(elsewhere)
		app.WaitFor(Text("First conversation: I will write a file."))
		app.WaitFor(Role("landmark", "Approval request"))
		app.Shot("back-to-the-first")
		app.Key("y")
		app.WaitFor(Text("First conversation done."))
		app.WaitGone(elsewhere)
		if _, err := os.Stat(filepath.Join(ws, "first.txt")); err != nil {
			t.Errorf("the approved cell did not run: %v", err)
		}

		app.Click(Button("Sessions"))
		app.WaitFor(Query{Role: "push button", Name: "Stream the second answer"})
		if n := len(app.FindAll(Query{Role: "push button", Name: "finished"})); n != 2 {
			t.Errorf("the session list shows %d conversations finished, want both", n)
		}
		app.Shot("both-finished")
		if n := len(app.Model.Requests()); n != 3 {
			t.Errorf("the model was called %d times, want 3", n)
		}
	})
}
