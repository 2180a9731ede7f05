package visible

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/freeact/desktop/internal/testenv"
)

// cases are shared with frontend/src/lib/render/visible.test.ts.
type testCase struct {
	Name string `json:"name"`
	In   string `json:"in"`
	Out  string `json:"out"`
}

func loadCases(t *testing.T) []testCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []testCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

func TestString(t *testing.T) {
	for _, tc := range loadCases(t) {
		if got := String(tc.In); got != tc.Out {
			t.Errorf("%s: String(%q) = %q, want %q", tc.Name, tc.In, got, tc.Out)
		}
	}
	// Bytes that are not UTF-8 (the GUI never sees them: JSON carries text).
	if got := String("a\xffb\xe2\x80"); got != `a\xffb\xe2\x80` {
		t.Errorf("invalid UTF-8: %q", got)
	}
}

// The output of String never holds a hidden character, and every
// character of the input that is not hidden is kept in order.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "ls -la", "touch x\r$ ls -la'", "\x1b[2K\x1b[1A", "a\u202eb", "\xff\xfe", "\U000e0041"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s)
		if !utf8.ValidString(out) {
			t.Fatalf("String(%q) = %q is not UTF-8", s, out)
		}
		var kept []rune
		for _, r := range out {
			if Hidden(r) {
				t.Fatalf("String(%q) = %q holds %U", s, out, r)
			}
		}
		for _, r := range s {
			if r != utf8.RuneError && !Hidden(r) {
				kept = append(kept, r)
			}
		}
		rest := out
		for _, r := range kept {
			i := strings.IndexRune(rest, r)
			if i < 0 {
				t.Fatalf("String(%q) = %q lost %q", s, out, r)
			}
			rest = rest[i+utf8.RuneLen(r):]
		}
	})
}

// escapedRanges lists the code points Hidden escapes as [first, last]
// ranges.
func escapedRanges() [][2]rune {
	var out [][2]rune
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue // surrogates are no characters in Go strings
		}
		if !Hidden(r) {
			continue
		}
		if n := len(out); n > 0 && out[n-1][1] == r-1 {
			out[n-1][1] = r
		} else {
			out = append(out, [2]rune{r, r})
		}
	}
	return out
}

// testdata/escaped.json holds every escaped range; the TypeScript tests
// check their function against it, so both sides escape the same
// characters.
func TestEscapedRanges(t *testing.T) {
	var b strings.Builder
	b.WriteString("[\n")
	ranges := escapedRanges()
	for i, r := range ranges {
		sep := ","
		if i == len(ranges)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "  [%d, %d]%s\n", r[0], r[1], sep)
	}
	b.WriteString("]\n")
	// A change can come from Go's Unicode tables as well as from Hidden.
	testenv.Golden(t, filepath.Join("testdata", "escaped.json"), []byte(b.String()))
}
