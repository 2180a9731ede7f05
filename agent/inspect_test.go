package agent_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/agenttest"
)

func TestMentions(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"plot @df", []string{"df"}},
		{"@df and @prices_2024, then @df again", []string{"df", "prices_2024"}},
		{"compare (@a, @b).", []string{"a", "b"}},
		{"what is in @df?", []string{"df"}},
		{"read @data.csv and @src/main.py", nil},
		{"mail me at someone@example.com", nil},
		{"@2fast is no name; @_tmp is", []string{"_tmp"}},
		{"größe @größe", []string{"größe"}},
		{"end with @x.", []string{"x"}},
		{"@", nil},
		{"@a @b @c @d @e @f @g @h @i @j", []string{"a", "b", "c", "d", "e", "f", "g", "h"}},
	} {
		if got := agent.Mentions(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Mentions(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 kB", 1536: "1.5 kB", 1 << 30: "1.1 GB", 70_400: "70.4 kB"} {
		if got := agent.FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

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
		var notes []agent.Note
		for _, p := range last[len(last)-1].Parts {
			if n, ok := agent.ParseNote(p.Text); ok {
				notes = append(notes, n)
			}
		}
		if len(notes) != 1 || notes[0].Kind != agent.NoteVariable || notes[0].Name != "df" {
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
