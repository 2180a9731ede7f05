package variables_test

import (
	"reflect"
	"testing"

	"github.com/freeact/desktop/agent/variables"
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
		if got := variables.Mentions(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Mentions(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 kB", 1536: "1.5 kB", 1 << 30: "1.1 GB", 70_400: "70.4 kB"} {
		if got := variables.FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
