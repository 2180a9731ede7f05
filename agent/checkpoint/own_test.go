package checkpoint

import (
	"slices"
	"testing"
)

// What freeact itself writes while an action runs (Wrote) is not the
// action's change while the file holds what freeact wrote; a change the
// action makes to it afterwards is.
func TestRecordLeavesOutFreeactsOwnWrites(t *testing.T) {
	for _, tc := range []struct {
		name    string
		before  map[string]string
		action  func(t *testing.T, s *Store, ws string)
		changes []string
	}{
		{"a rule added to an existing file",
			map[string]string{".freeact/permissions.json": "{}\n"},
			func(t *testing.T, s *Store, ws string) {
				write(t, ws, map[string]string{"made.txt": "x\n", ".freeact/permissions.json": "{\"allow\": [1]}\n"})
				s.Wrote(".freeact/permissions.json", []byte("{\"allow\": [1]}\n"))
			},
			[]string{"added made.txt"}},
		{"a file freeact created",
			map[string]string{"keep.txt": "k\n"},
			func(t *testing.T, s *Store, ws string) {
				write(t, ws, map[string]string{"deep/dir/rules.json": "[]\n", "made.txt": "x\n"})
				s.Wrote("deep/dir/rules.json", []byte("[]\n"))
			},
			[]string{"added made.txt"}},
		{"the action changed it after freeact wrote it",
			map[string]string{".freeact/permissions.json": "{}\n"},
			func(t *testing.T, s *Store, ws string) {
				s.Wrote(".freeact/permissions.json", []byte("{\"allow\": [1]}\n"))
				write(t, ws, map[string]string{".freeact/permissions.json": "{\"allow\": [\"everything\"]}\n"})
			},
			[]string{"modified .freeact/permissions.json"}},
		{"only freeact wrote",
			map[string]string{".freeact/permissions.json": "{}\n"},
			func(t *testing.T, s *Store, ws string) {
				write(t, ws, map[string]string{".freeact/permissions.json": "{\"allow\": [1]}\n"})
				s.Wrote(".freeact/permissions.json", []byte("{\"allow\": [1]}\n"))
			},
			nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			write(t, ws, tc.before)
			s := open(t, ws, Options{})
			r := action(t, s, Info{Label: "code"}, func() { tc.action(t, s, ws) })
			var got []string
			if r != nil {
				got = statuses(r.Changes)
			}
			if !slices.Equal(got, tc.changes) {
				t.Errorf("changes %q, want %q", got, tc.changes)
			}
			// What freeact wrote is forgotten with the record: the next
			// action's change of the file is its own.
			r = action(t, s, Info{Label: "next"}, func() {
				write(t, ws, map[string]string{".freeact/permissions.json": "{\"next\": true}\n"})
			})
			if r == nil || !slices.Equal(statuses(r.Changes), []string{statusOf(tc.before, ".freeact/permissions.json") + " .freeact/permissions.json"}) {
				t.Errorf("the next action's changes: %+v", r)
			}
		})
	}
}

func statusOf(before map[string]string, path string) string {
	if _, ok := before[path]; ok {
		return "modified"
	}
	return "added"
}
