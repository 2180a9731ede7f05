package agent_test

import (
	"github.com/freeact/desktop/agent/agenttest"
	"github.com/freeact/desktop/agent/history"
	"strings"
	"testing"
)

// @name in a prompt brings a compact description of the variable along;
// names the kernel does not hold (files, typos) bring nothing.
func TestVariableMention(t *testing.T) {
	const setup = "import pandas as pd\ndf = pd.DataFrame({'city': ['Oslo', 'Rome'], 'temp': [3.5, 18.0]})"
	tiers(t, cells{setup: func(c *agenttest.Cell) { c.Set("df", "city temp") }}, func(t *testing.T, x tier) {
		a, fake, _ := x.start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: `+jsonString(setup)+`}}}]
  - reply: [{text: "Made df."}]
  - expect:
      last:
        - {role: user, text: "Describe @df and @nothing, and read @notes.txt."}
        - {role: user, text: "<variable name=\"df\">"}
    reply: [{text: "Two cities."}]
`)
		run(t, a, "Make a frame.", nil)
		ns, err := a.Variables(userCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		if len(ns.Variables) != 1 || ns.Variables[0].Name != "df" {
			t.Errorf("variables %+v, want df alone", ns.Variables)
		}
		run(t, a, "Describe @df and @nothing, and read @notes.txt.", nil)
		last := fake.Requests()[2].Messages
		var notes []history.Note
		for _, p := range last[len(last)-1].Parts {
			if n, ok := history.ParseNote(p.Text); ok {
				notes = append(notes, n)
			}
		}
		if len(notes) != 1 || notes[0].Kind != history.NoteVariable || notes[0].Name != "df" {
			t.Fatalf("notes %+v, want one about df", notes)
		}
		if x.fake == nil {
			for _, want := range []string{"pandas.DataFrame, shape (2, 2)", "columns: city (", "temp (float64)", "first rows:", "Oslo"} {
				if !strings.Contains(notes[0].Text, want) {
					t.Errorf("the description %q lacks %q", notes[0].Text, want)
				}
			}
		}
		// What the user typed is one part, the description another.
		if got := last[len(last)-1].Parts[0].Text; got != "Describe @df and @nothing, and read @notes.txt." {
			t.Errorf("prompt part %q", got)
		}
	})
}
