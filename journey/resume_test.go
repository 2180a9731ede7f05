//go:build journey

package journey

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// figures are what a conversation shows of its turns: each turn's usage
// line (tokens and cost), each card's header (status and time), the
// notices, and the session's cost in the meter.
type figures struct {
	usage   []string
	cards   []string
	notices []string
	cost    string
}

func (f figures) String() string {
	return fmt.Sprintf("usage %q\ncards %q\nnotices %q\nsession cost %q", f.usage, f.cards, f.notices, f.cost)
}

var (
	usageLine = regexp.MustCompile(`^\d[\d,]* in · .*tokens`)
	meterCost = regexp.MustCompile(`\$[0-9.]+`)
)

// readFigures reads the figures off the window.
func readFigures(app *App) figures {
	var f figures
	for _, n := range app.FindAll(Query{Text: " in · "}) {
		if t := strings.TrimSpace(n.Text); usageLine.MatchString(t) && !slices.Contains(f.usage, t) {
			f.usage = append(f.usage, t)
		}
	}
	for _, n := range app.FindAll(Role("panel", "Code action")) {
		f.cards = append(f.cards, n.Name)
	}
	for _, s := range []string{"You rejected a call", "The model's reply was cut", "the summary was cut off"} {
		if _, ok := app.Find(Text(s)); ok {
			f.notices = append(f.notices, s)
		}
	}
	meter, _ := app.Find(Button("Context and cost"))
	f.cost = meterCost.FindString(meter.Name)
	return f
}

// Issue 28, item 12: a session closed and opened again shows every turn
// with the cost, duration and status it had: a cell that slept, one the
// user rejected, one that raised, a reply cut at the token limit, and a
// "Compact now" whose cut summary was paid for but not kept. The session's
// cost is the same as before.
func TestResumedSessionKeepsCostsDurationsAndStatus(t *testing.T) {
	atSizes(t, func(t *testing.T, w, h int) {
		ws := Workspace(t, nil)
		app := Start(t, Options{Workspace: ws, Scenario: "testdata/resume.yaml", Width: w, Height: h})
		app.WaitFor(Text("Kernel ready"))
		app.RunApproved("Sleep a little", "Slept.")
		app.WaitGone(Role("landmark", "Approval request"))
		app.Send("Print something")
		app.WaitFor(Role("landmark", "Approval request"))
		app.Key("n")
		app.WaitFor(Text("You rejected a call"))
		app.RunApproved("Divide by zero", "It raised.")
		app.WaitGone(Role("landmark", "Approval request"))
		app.Send("Write a long answer")
		app.WaitFor(Text("The model's reply was cut"))
		app.Click(Button("Context and cost"))
		app.Click(Button("Compact now"))
		app.WaitFor(Text("the summary was cut off"))
		app.Key("Escape")
		app.Model.WaitRequests(7)
		var before figures
		app.Wait("the figures of four turns and the compaction", func() bool {
			before = readFigures(app)
			return len(before.usage) == 5 && len(before.cards) == 3 && len(before.notices) == 3
		})
		t.Logf("before the restart:\n%s", before)
		// gemini-3-flash-preview: $0.50 input and $3 output a million
		// tokens; 20,900 input and 1,650 output tokens in all.
		if before.cost != "$0.0154" {
			t.Errorf("the session cost %q before the restart, want $0.0154", before.cost)
		}
		for i, want := range []string{`^Code action, done, \d+\.\d s$`, `^Code action, rejected$`, `^Code action, error, \d+\.\d s$`} {
			if !regexp.MustCompile(want).MatchString(before.cards[i]) {
				t.Errorf("card %d is %q, want %s", i+1, before.cards[i], want)
			}
		}
		app.Shot("before-restart")
		app.Stop()

		// Opened again without a path: the last workspace and its session.
		app = Start(t, Options{Home: app.Home, Width: w, Height: h})
		app.WaitFor(Text("Write a long answer"))
		// The history shows at once from the file, and again with what only
		// the agent knows once it runs.
		app.WaitFor(Text("Kernel ready"))
		app.Wait("the three cards again", func() bool { return len(app.FindAll(Role("panel", "Code action"))) == 3 })
		after := readFigures(app)
		app.Shot("after-restart")
		if after.String() != before.String() {
			t.Errorf("after the restart the conversation shows\n%s\nbefore it showed\n%s", after, before)
		}
	})
}
