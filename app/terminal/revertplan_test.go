package terminal

import (
	"slices"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/checkpoint"
)

// confirmPlan shows protected files with the warning and both versions
// and asks before each file whose content was not kept; a file not ticked
// stays.
func TestConfirmPlanProtectedAndUnkept(t *testing.T) {
	plan := checkpoint.Plan{
		Restore: []checkpoint.Change{{Path: ".freeact/permissions.json", Status: checkpoint.Modified}, {Path: "a.txt", Status: checkpoint.Deleted}},
		Protected: []checkpoint.ProtectedChange{{
			Change:  checkpoint.Change{Path: ".freeact/permissions.json", Status: checkpoint.Modified},
			Current: `{"allow": ["*"]}` + "\n", Restored: `{"allow": []}` + "\n\x1b]52;c;x\x07",
		}},
		Unkept: []checkpoint.Unkept{{Path: "results.bin", Size: 11 << 20}, {Path: "keep.bin", Size: 2048}},
	}
	for _, tc := range []struct {
		name    string
		answers map[string]bool
		force   bool
		proceed bool
		del     []string
	}{
		{"all yes", map[string]bool{"Delete results.bin?": true, "Delete keep.bin?": false, "Revert 2 files, changing 1 protected files?": true}, true, true, []string{"results.bin"}},
		{"no to the revert", map[string]bool{"Delete results.bin?": true}, false, false, nil},
		{"nothing ticked", map[string]bool{"Revert 2 files, changing 1 protected files?": true}, true, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			var asked []string
			force, proceed, del := confirmPlan(&out, style{}, plan, func(q string) bool {
				asked = append(asked, q)
				return tc.answers[q]
			})
			if force != tc.force || proceed != tc.proceed || !slices.Equal(del, tc.del) {
				t.Errorf("force %v proceed %v del %q; asked %q", force, proceed, del, asked)
			}
			text := out.String()
			for _, want := range []string{
				"Protected file .freeact/permissions.json: " + checkpoint.ProtectedWarning,
				`    {"allow": ["*"]}`, `    {"allow": []}`,
				"results.bin (11.0 MiB) was created by these changes and its content was not kept",
				"keep.bin (2.0 KiB)",
			} {
				if !strings.Contains(text, want) {
					t.Errorf("missing %q in:\n%s", want, text)
				}
			}
			if strings.Contains(text, "\x1b") {
				t.Errorf("an escape sequence from the file reached the terminal:\n%q", text)
			}
		})
	}
}

// A plan of only large files the changes created asks about them, and
// with none ticked nothing is reverted.
func TestConfirmPlanOnlyUnkept(t *testing.T) {
	var out strings.Builder
	_, proceed, _ := confirmPlan(&out, style{}, checkpoint.Plan{Unkept: []checkpoint.Unkept{{Path: "big.bin", Size: 100}}}, func(string) bool { return false })
	if proceed || !strings.Contains(out.String(), "big.bin (100 bytes)") {
		t.Errorf("proceed %v:\n%s", proceed, out.String())
	}
}
