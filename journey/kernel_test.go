//go:build journey

package journey

import (
	"strings"
	"testing"
)

// Issue 16, Tests: the approval bar's Edit opens the model's cell in an
// editor; the cell as the user edited it runs, and the model's next
// request holds that code and its output. Then the variable inspector
// lists what the cell defined, with type and shape or length, read
// without running a cell, and filters it by name.
func TestEditBeforeApproveAndInspector(t *testing.T) {
	ws := Workspace(t, nil)
	app := Start(t, Options{Workspace: ws, Scenario: "testdata/kernel-workflow.yaml"})
	app.WaitFor(Text("Kernel ready"))
	app.Send("Make some data")
	app.WaitFor(Role("landmark", "Approval request"))
	app.Shot("asked")

	// Edit: the editor holds the model's cell; a line is added at its end.
	app.Click(Button("Edit"))
	editor := Query{Name: "Edit the cell before it runs"}
	app.WaitFocus(editor)
	app.WaitFor(Query{Name: editor.Name, Text: "cities = ['Oslo', 'Rome', 'Lima']"})
	app.Key("ctrl+End")
	for _, line := range []string{"label = 'edited in the window'", "print(label)"} {
		app.Key("Return") // the editor keeps the line's indentation
		app.Type(line)
	}
	const edited = "import numpy as np\nnums = np.arange(12).reshape(3, 4)\ncities = ['Oslo', 'Rome', 'Lima']\nprint('sum', nums.sum())\nlabel = 'edited in the window'\nprint(label)"
	app.Wait("the edited cell in the editor", func() bool { n, _ := app.Find(editor); return n.Text == edited })
	app.Shot("edited")
	app.Click(Button("Run edited cell"))
	app.WaitFor(Text("You added a label; the sum is 66."))
	app.WaitFor(Query{Role: "section", Text: "edited in the window"})
	// The card keeps the model's own cell behind a disclosure.
	app.WaitFor(Query{Name: "The model’s cell, before your edit"})
	app.Shot("edited-cell-ran")

	// The model reads the note of the code that ran, and its output (the
	// sealed record of it stays in the session, off the wire).
	reqs := app.Model.WaitRequests(2)
	got := responseOutput(reqs[1], "c1")
	if !strings.Contains(got, "<edited-by-user>") || !strings.Contains(got, edited) {
		t.Fatalf("the model's second request does not say the user edited the cell into the code that ran: %q", got)
	}
	if !strings.Contains(got, "sum 66") || !strings.Contains(got, "edited in the window") {
		t.Errorf("the model got the output %q, want the edited cell's (sum 66, edited in the window)", got)
	}

	// The inspector lists the variables the edited cell defined.
	app.Click(Role("toggle button", "Variables"))
	app.WaitFor(Role("landmark", "Variables"))
	nums := app.WaitFor(Query{Role: "push button", Name: "nums"})
	label := app.WaitFor(Query{Role: "push button", Name: "label"})
	cities := app.WaitFor(Query{Role: "push button", Name: "cities"})
	app.Shot("inspector")
	for _, c := range []struct {
		row  Node
		want []string
	}{
		{nums, []string{"ndarray", "3 × 4"}},
		{label, []string{"str", "len 20", "edited in the window"}},
		{cities, []string{"list", "len 3"}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.row.Name, w) {
				t.Errorf("the inspector's row %q does not show %q", c.row.Name, w)
			}
		}
	}
	// Reading the variables ran no cell and asked the model nothing.
	if cards := app.FindAll(Role("article", "Code action")); len(cards) != 1 {
		t.Errorf("%d code action cards after the inspector opened, want the one edited cell", len(cards))
	}
	if n := len(app.Model.Requests()); n != 2 {
		t.Errorf("the model got %d requests, want 2", n)
	}

	// Filter by name.
	app.Click(Field("Filter variables by name"))
	app.Type("ci")
	app.WaitGone(Query{Role: "push button", Name: "nums"})
	app.WaitGone(Query{Role: "push button", Name: "label"})
	app.WaitFor(Query{Role: "push button", Name: "cities"})
	app.Shot("filtered")
	app.Key("ctrl+a", "BackSpace")
	app.WaitFor(Query{Role: "push button", Name: "nums"})
}
