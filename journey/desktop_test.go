//go:build journey

package journey

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sizes are the windows every journey of issue 28 runs in: the app's own
// window on the 1280×900 screen of make test-journey (0×0 keeps its size;
// a window of the screen's whole size would reach below it, under the
// window's title bar), and a window of 800×600.
var sizes = []struct {
	name string
	w, h int
}{{"1280x900", 0, 0}, {"800x600", 800, 600}}

// atSizes runs journey once per window, as a subtest named after it.
func atSizes(t *testing.T, journey func(t *testing.T, w, h int)) {
	for _, s := range sizes {
		t.Run(s.name, func(t *testing.T) { journey(t, s.w, s.h) })
	}
}

// atSizesOn runs journey once per window, as atSizes does, on the
// production binary started on a new workspace ws with scenario, once its
// kernel is ready.
func atSizesOn(t *testing.T, scenario string, journey func(t *testing.T, app *App, ws string)) {
	atSizes(t, func(t *testing.T, w, h int) {
		ws := Workspace(t, nil)
		app := Start(t, Options{Workspace: ws, Scenario: scenario, Width: w, Height: h})
		app.WaitFor(Text("Kernel ready"))
		journey(t, app, ws)
	})
}

// Issue 28, item 1: at the bottom of the conversation, one wheel notch up,
// or ten fast ones, scroll up and stay there ("Jump to latest" offers the
// way back); the wheel down to the bottom, or Jump to latest, brings the
// latest back, and the wheel down to the bottom follows new output again.
// Where the view is comes from where the last answer is on screen.
//
// WebKitGTK's smooth scrolling moves the first frame of a notch by one
// pixel; the view snapped back down when that pixel was taken for no move.
func TestWheelScrollsUpFromTheBottom(t *testing.T) {
	atSizesOn(t, "testdata/wheel.yaml", func(t *testing.T, app *App, ws string) {
		app.Send("Run a long cell")
		app.WaitFor(Role("landmark", "Approval request"))
		app.Key("y")
		last := Query{Role: "paragraph", Text: "It printed 300 lines."}
		app.WaitFor(last)
		app.WaitGone(Role("landmark", "Approval request"))
		conv := app.WaitFor(Role("landmark", "Conversation"))
		// At the conversation's left edge: not over the cell's output,
		// which scrolls on its own.
		x, mid := conv.X+8, conv.Y+conv.H/2
		// WebKit updates the positions it tells the accessibility bus
		// after input, not after a scroll alone: a click on the
		// conversation's empty margin brings them up to date.
		y := func() int {
			app.ClickAt(Node{X: x, Y: mid})
			n, _ := app.Find(last)
			return n.Y
		}
		var bottom int
		app.Wait("the last answer in view at the bottom", func() bool {
			bottom = y()
			return bottom >= conv.Y && bottom <= conv.Y+conv.H
		})

		for _, notches := range []int{1, 10} {
			app.WheelAt(x, mid, notches)
			app.WaitFor(Button("Jump to latest"))
			app.Wait("the view scrolled up", func() bool { return y() > bottom })
			// The view stays where the wheel put it: a screenshot gives a
			// snap back the time to happen.
			app.Shot(fmt.Sprintf("wheel-up-%d", notches))
			if got := y(); got <= bottom {
				t.Fatalf("after %d wheel notches up the view snapped back to the bottom (the answer at y=%d, %d at the bottom)", notches, got, bottom)
			}
			if notches == 10 && y() < conv.Y+conv.H {
				t.Errorf("after 10 wheel notches up the last answer is still in view")
			}
			if notches == 1 {
				// Down to the bottom with the wheel.
				app.WheelAt(x, mid, -20)
			} else {
				app.Click(Button("Jump to latest"))
			}
			app.Wait("the view back at the bottom", func() bool { return y() == bottom })
		}
		app.Shot("back-at-the-bottom")

		// Back at the bottom with the wheel, new output is followed: the
		// next answer ends up in view without Jump to latest.
		app.WheelAt(x, mid, 3)
		app.WaitFor(Button("Jump to latest"))
		app.WheelAt(x, mid, -30)
		app.WaitGone(Button("Jump to latest"))
		app.Send("Run one more cell")
		app.WaitFor(Role("landmark", "Approval request"))
		app.Key("y")
		next := Query{Role: "paragraph", Text: "It printed 200 more lines."}
		app.WaitFor(next)
		app.WaitGone(Role("landmark", "Approval request"))
		conv = app.WaitFor(Role("landmark", "Conversation"))
		app.Wait("the new answer in view at the bottom", func() bool {
			app.ClickAt(Node{X: x, Y: mid})
			n, _ := app.Find(next)
			return n.Y >= conv.Y && n.Y+n.H <= conv.Y+conv.H
		})
		app.Shot("followed")
		if _, ok := app.Find(Button("Jump to latest")); ok {
			t.Error("Jump to latest is offered after new output at the bottom: the view did not follow it")
		}
	})
}

// Issue 28, item 2: a "Compact now" whose summary call fails says why,
// stops its spinner, and Retry compacts again: it never sends the
// earlier prompt again, so no tool is asked for again.
func TestRetryOfAFailedCompactNowCompactsAgain(t *testing.T) {
	atSizesOn(t, "testdata/compact-retry.yaml", func(t *testing.T, app *App, ws string) {
		app.RunApproved("Run the tool", "The tool ran.")
		app.Send("Second.")
		app.WaitFor(Text("Two."))
		app.Click(Button("Context and cost"))
		app.Click(Button("Compact now"))
		app.WaitFor(Text("The provider rejected the request (HTTP 400)."))
		app.WaitFor(Text("the summary request is too large for this model"))
		app.WaitFor(Text("the conversation is unchanged"))
		if _, ok := app.Find(Text("Compacting: summarising")); ok {
			t.Error("the compaction's spinner still runs after it failed")
		}
		if box, _ := app.Find(Field("Message to the agent")); box.Text != "" {
			t.Errorf("the prompt box holds %q after the failed compaction, want it empty", box.Text)
		}
		app.Shot("compaction-failed")
		app.Click(Button("Retry"))
		app.WaitFor(Text("Earlier conversation compacted"))
		app.WaitGone(Role("alert", "The request failed"))
		app.Shot("compaction-retried")
		reqs := app.Model.WaitRequests(5)
		if len(reqs) != 5 || len(reqs[4].Tools) != 0 {
			t.Errorf("the retry made %d requests, the last with tools %q: want one compaction (no tools), not a turn", len(reqs)-4, reqs[len(reqs)-1].Tools)
		}
		if _, ok := app.Find(Role("landmark", "Approval request")); ok {
			t.Error("the retry asked to run a tool again")
		}
	})
}

// Issue 28, item 3: reverting a turn that wrote two files, one edited by
// hand since, reverts the other and leaves the edited one (and says so);
// a revert that finds a file changed after its plan offers "Revert anyway",
// which overwrites it.
func TestRevertWithAConflictRevertsTheRest(t *testing.T) {
	atSizesOn(t, "testdata/revert-partial.yaml", func(t *testing.T, app *App, ws string) {
		app.RunApproved("Write two files", "Both files are written.")
		writeFile(t, filepath.Join(ws, "data.txt"), "edited by hand\n")

		app.Click(Button("Revert this turn"))
		dialog := Role("alert", "Revert this turn?")
		app.WaitFor(Text("Changed again since"))
		app.WaitFor(Text("only the other files are reverted"))
		app.Shot("revert-with-a-conflict")
		app.Click(Button("Revert 1 file"))
		app.WaitFor(Text("Left as they are (changed since): data.txt"))
		app.WaitGone(dialog)
		app.Shot("reverted-the-rest")
		if got := readFile(t, filepath.Join(ws, "data.txt")); got != "edited by hand\n" {
			t.Errorf("data.txt is %q after the revert, want the hand edit kept", got)
		}
		if _, err := os.Stat(filepath.Join(ws, "other.txt")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("other.txt, which the turn created, is still there: %v", err)
		}

		// A file changed after the dialog made its plan: "Revert anyway".
		app.RunApproved("Write notes", "Notes are written.")
		app.Click(Button("Revert this turn"))
		app.WaitFor(Button("Revert 1 file"))
		writeFile(t, filepath.Join(ws, "notes.txt"), "changed meanwhile\n")
		app.Click(Button("Revert 1 file"))
		app.WaitFor(Text("files changed since: notes.txt"))
		app.Shot("revert-anyway-offered")
		app.Click(Button("Revert anyway"))
		app.WaitGone(Button("Revert anyway"))
		app.Wait("notes.txt reverted", func() bool {
			_, err := os.Stat(filepath.Join(ws, "notes.txt"))
			return errors.Is(err, os.ErrNotExist)
		})
		app.Shot("reverted-anyway")
	})
}

// Issue 28, item 4: a forked prompt waits in the fork's box only; in the
// source conversation the box is empty, and back in the fork the prompt
// is there again (and the fork's notice does not follow either).
func TestDraftBelongsToItsConversation(t *testing.T) {
	atSizesOn(t, "testdata/two-turns.yaml", func(t *testing.T, app *App, ws string) {
		app.Send("First question")
		app.WaitFor(Text("First answer."))
		app.Send("Second question")
		app.WaitFor(Text("Second answer."))
		box := Field("Message to the agent")
		boxHolds := func(want string) {
			t.Helper()
			app.Wait(fmt.Sprintf("the prompt box holding %q", want), func() bool { n, ok := app.Find(box); return ok && n.Text == want })
		}
		// A prompt's Fork shows while the pointer is on it.
		app.Hover(Query{Role: "section", Text: "Second question"})
		app.Click(Button("Fork"))
		boxHolds("Second question")
		app.WaitFor(Text("Kernel ready"))
		app.Shot("forked")

		open := func(messages string) {
			t.Helper()
			app.Click(Button("Sessions"))
			app.Click(Query{Role: "push button", Name: messages})
			app.WaitFor(Text("Kernel ready"))
		}
		open("· 4 messages")
		app.WaitFor(Text("Second answer."))
		boxHolds("")
		// A notice is a button (a click shows all of a long one).
		if _, ok := app.Find(Query{Role: "push button", Name: "Forked a new session"}); ok {
			t.Error("the fork's notice follows into the source conversation")
		}
		app.Shot("source-without-the-draft")
		open("· 2 messages")
		boxHolds("Second question")
		app.Shot("fork-with-its-draft")
	})
}

// Issue 28, item 5: after Save in Settings the keys still reach the
// panel (Esc closes it); an unchanged tab says nothing was saved; the
// context meter's panel closes on Esc and on a click outside.
func TestFocusAfterSaveAndMeterPanel(t *testing.T) {
	atSizesOn(t, "testdata/two-turns.yaml", func(t *testing.T, app *App, ws string) {
		app.Send("First question")
		app.WaitFor(Text("First answer."))

		app.Click(Button("Settings"))
		app.WaitFor(Role("dialog", "Settings"))
		app.Click(Query{Role: "page tab", Name: "Permissions"})
		app.Click(Button("Save permissions"))
		app.WaitFor(Text("Nothing to save: nothing was changed."))
		if _, ok := app.Find(Text("Permissions saved to .freeact/agent.json")); ok {
			t.Error("an unchanged save says it wrote agent.json")
		}
		app.Shot("nothing-to-save")
		app.Key("Escape")
		app.WaitGone(Role("dialog", "Settings"))

		meter := Button("Context and cost")
		app.Click(meter)
		panel := Role("dialog", "Context and cost")
		app.WaitFor(panel)
		app.Shot("meter-open")
		app.Key("Escape")
		app.WaitGone(panel)
		m := app.Click(meter)
		// WebKit tells the accessibility bus of the reopened panel after
		// input: the pointer moves a pixel to and fro on the meter.
		mx, my := m.Center()
		jiggle := 0
		app.Wait("the meter's panel open again", func() bool {
			jiggle++
			app.moveTo(mx+jiggle%2, my)
			_, ok := app.Find(panel)
			return ok
		})
		// A click outside: on the conversation's empty left margin.
		conv := app.WaitFor(Role("landmark", "Conversation"))
		app.ClickAt(Node{X: conv.X + 8, Y: conv.Y + conv.H - 20})
		app.WaitGone(panel)
	})
}

// Issue 28, item 6: at 800×600 every header control stays in the window
// (no horizontal scrolling); what does not fit is in "More actions".
func TestHeaderFitsSmallWindows(t *testing.T) {
	atSizes(t, func(t *testing.T, w, h int) {
		ws := Workspace(t, nil)
		app := Start(t, Options{Workspace: ws, Scenario: "testdata/two-turns.yaml", Width: w, Height: h})
		app.WaitFor(Text("Kernel ready"))
		app.Send("First question")
		app.WaitFor(Text("First answer."))
		doc := app.WaitFor(Role("document web", ""))
		set := app.WaitFor(Button("Settings"))
		for _, b := range append(app.FindAll(Query{Role: "push button"}), app.FindAll(Query{Role: "combo box"})...) {
			if b.Y < set.Y+set.H && b.W > 0 && (b.X < doc.X || b.X+b.W > doc.X+doc.W) {
				t.Errorf("the header's %q is at x=%d–%d, outside the window (%d–%d)", b.Name, b.X, b.X+b.W, doc.X, doc.X+doc.W)
			}
		}
		app.Shot("header")
		if w == 800 {
			// What does not fit is one click away, inside the window.
			// A button that opens a menu is a "combo box" to WebKit.
			app.Click(Query{Role: "combo box", Name: "More actions"})
			for _, item := range []string{"Restart kernel", "Variables", "Open notebook", "Export as Jupyter notebook", "Export as Markdown", "Export as HTML page"} {
				n := app.WaitFor(Query{Name: item})
				if n.X < doc.X || n.X+n.W > doc.X+doc.W || n.Y+n.H > doc.Y+doc.H {
					t.Errorf("the menu's %q is at %+v, outside the window", item, n)
				}
			}
			app.Shot("more-actions")
			app.Key("Escape")
			app.WaitGone(Query{Role: "menu item", Name: "Export as Markdown"})
		} else {
			app.WaitFor(Query{Role: "combo box", Name: "Export"})
			app.WaitFor(Button("Open notebook"))
		}
	})
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// unnamed lists the controls of the window that have no accessible name
// (a screen reader says only their role).
func unnamed(app *App) []string {
	var out []string
	for _, role := range []string{"push button", "toggle button", "entry", "password text", "check box", "combo box", "menu item", "page tab", "radio button", "spin button", "link"} {
		for _, n := range app.FindAll(Query{Role: role}) {
			if n.Name == "" && n.Text == "" {
				out = append(out, fmt.Sprintf("%s @%d,%d", n.Role, n.X, n.Y))
			}
		}
	}
	return out
}

// Issue 28, item 14: a code action's header (its status, time and "edited
// by you") is in the accessibility tree; every screen's controls have
// names.
func TestEveryControlHasAName(t *testing.T) {
	atSizesOn(t, "testdata/kernel-workflow.yaml", func(t *testing.T, app *App, ws string) {
		app.Send("Make some data")
		app.WaitFor(Role("landmark", "Approval request"))
		app.Click(Button("Edit"))
		editor := Query{Name: "Edit the cell before it runs"}
		app.WaitFocus(editor)
		app.Key("ctrl+End")
		for _, line := range []string{"label = 'edited in the window'", "print(label)"} {
			app.Key("Return")
			app.Type(line)
		}
		app.Click(Button("Run edited cell"))
		app.WaitFor(Text("You added a label; the sum is 66."))
		header := app.WaitFor(Query{Name: "done, edited by you"})
		app.Shot("cell-header")
		t.Logf("the cell's header reads %q", header.Name)

		screens := map[string]func(){
			"conversation": func() {},
			"sessions": func() {
				app.Click(Button("Sessions"))
				app.WaitFor(Role("landmark", "Sessions"))
			},
		}
		var missing []string
		for _, name := range []string{"conversation", "sessions"} {
			screens[name]()
			app.Shot(name)
			for _, c := range unnamed(app) {
				missing = append(missing, name+": "+c)
			}
		}
		app.Click(Button("Settings"))
		app.WaitFor(Role("dialog", "Settings"))
		for _, tab := range []string{"Model", "Agent", "Kernel", "MCP servers", "Sandbox", "API keys", "Permissions"} {
			if _, ok := app.Find(Query{Role: "page tab", Name: tab}); !ok {
				continue
			}
			app.Click(Query{Role: "page tab", Name: tab})
			app.Shot("settings-" + tab)
			for _, c := range unnamed(app) {
				missing = append(missing, "settings "+tab+": "+c)
			}
		}
		if len(missing) > 0 {
			t.Errorf("controls without an accessible name:\n%s", strings.Join(missing, "\n"))
		}
	})
}
