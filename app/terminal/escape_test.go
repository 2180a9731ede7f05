package terminal

import (
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/checkpoint"
)

// hostile holds what a file name or a file's line written by the model
// could use to fool the terminal: OSC 52 (set the clipboard), a carriage
// return that overwrites the line, a bidi override, hidden text and a
// newline that adds a line of its own.
const hostile = "a\x1b]52;c;ZXZpbA==\x07b\rrestore .freeact/permissions.json\u202ecod.exe\u200b\ndelete  x"

// forbidden reports the first character the terminal must never receive
// from model- or file-controlled text.
func forbidden(s string) string {
	for _, bad := range []string{"\x1b", "\x07", "\r", "\u202e", "\u200b"} {
		if strings.Contains(s, bad) {
			return bad
		}
	}
	return ""
}

func TestCheckpointTextEscaped(t *testing.T) {
	for _, c := range []checkpoint.Change{{Path: hostile, Status: checkpoint.Added}, {Path: hostile, Status: checkpoint.Deleted}, {Path: hostile, Status: checkpoint.Modified}} {
		line := restoreLine(c)
		if bad := forbidden(line); bad != "" || strings.Contains(line, "\n") {
			t.Errorf("restoreLine(%q) = %q holds %q or a newline", c.Path, line, bad)
		}
	}
	var b strings.Builder
	writeDiffs(&b, style{}, []checkpoint.FileDiff{{
		Change: checkpoint.Change{Path: hostile, Status: checkpoint.Modified},
		Diff:   "--- a\n+++ b\n@@ -1 +1 @@\n-old\x1b[2J\n+new\x1b]52;c;eA==\x07\r\u202e\n",
	}})
	out := b.String()
	if bad := forbidden(out); bad != "" {
		t.Errorf("writeDiffs wrote %q: %q", bad, out)
	}
	// One head line and five diff lines: the name added none.
	if n := strings.Count(out, "\n"); n != 6 {
		t.Errorf("writeDiffs wrote %d lines, want 6:\n%s", n, out)
	}
	d := describeRecords("t1", []checkpoint.Record{{TurnID: "t1", Turn: 2, Prompt: hostile}})
	if bad := forbidden(d); bad != "" || strings.Contains(d, "\n") {
		t.Errorf("describeRecords = %q", d)
	}
}

// A revert plan's protected, unkept and unrestorable file names are
// escaped too: a name cannot add a line to the plan the user confirms.
func TestRevertPlanNamesEscaped(t *testing.T) {
	c := checkpoint.Change{Path: hostile, Status: checkpoint.Modified}
	for _, plan := range []checkpoint.Plan{
		{Unrestorable: []string{hostile, hostile}},
		{Restore: []checkpoint.Change{c}, Protected: []checkpoint.ProtectedChange{{Change: c}}, Unrestorable: []string{hostile}},
		{Unkept: []checkpoint.Unkept{{Path: hostile, Size: 12 << 20}}},
	} {
		var b strings.Builder
		var asked []string
		confirmPlan(&b, style{}, plan, func(q string) bool { asked = append(asked, q); return false })
		out := b.String() + strings.Join(asked, "")
		if bad := forbidden(out); bad != "" {
			t.Errorf("the plan wrote %q:\n%s", bad, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "delete  x") {
				t.Errorf("a name added a line of its own: %q", l)
			}
		}
	}
}
