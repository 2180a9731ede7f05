package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func msgText(raw json.RawMessage) string {
	var m msg
	_ = json.Unmarshal(raw, &m)
	return m.Text
}

func session(t *testing.T, dir, id string, texts ...string) {
	t.Helper()
	s := openStore(t, dir, id)
	for i, text := range texts {
		role := "user"
		if i%2 == 1 {
			role = "model"
		}
		if err := s.Append(MainAgent, msg{Role: role, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
}

// A renamed session is listed under its new title; an empty title goes
// back to its first prompt.
func TestRename(t *testing.T) {
	dir := t.TempDir()
	session(t, dir, "s1", "Plot sin(x)", "Done.")
	if err := Rename(dir, "s1", "  Sine   plots "); err != nil {
		t.Fatal(err)
	}
	list, err := List(dir, userTitle)
	if err != nil || len(list) != 1 || list[0].Title != "Sine plots" || !list[0].Renamed {
		t.Fatalf("list %+v, %v", list, err)
	}
	if err := Rename(dir, "s1", ""); err != nil {
		t.Fatal(err)
	}
	if list, _ := List(dir, userTitle); list[0].Title != "Plot sin(x)" || list[0].Renamed {
		t.Fatalf("after clearing: %+v", list)
	}
	for _, tt := range []struct{ id, title, want string }{
		{"missing", "x", "no messages yet"},
		{"../s1", "x", "not usable as a file name"},
		{"s1", strings.Repeat("x", 201), "keep it to 200"},
	} {
		if err := Rename(dir, tt.id, tt.title); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Rename(%q): %v, want %q", tt.id, err, tt.want)
		}
	}
}

// Delete removes the session's folder and nothing else.
func TestDelete(t *testing.T) {
	dir := t.TempDir()
	session(t, dir, "s1", "one")
	session(t, dir, "s2", "two")
	if err := os.MkdirAll(filepath.Join(dir, "s1", "tool-results"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Delete(t.TempDir(), dir, "s1"); err != nil {
		t.Fatal(err)
	}
	list, _ := List(dir, userTitle)
	if len(list) != 1 || list[0].ID != "s2" {
		t.Fatalf("left %+v", list)
	}
	if _, err := os.Stat(filepath.Join(dir, "s1")); !os.IsNotExist(err) {
		t.Errorf("s1 still there: %v", err)
	}
	for _, id := range []string{"s1", "..", "", "a/b"} {
		if err := Delete(t.TempDir(), dir, id); err == nil {
			t.Errorf("Delete(%q) did not fail", id)
		}
	}
}

// Search finds text in any message, ignoring case, with a snippet around
// the first place; a renamed title is found too.
func TestSearch(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("filler words ", 10) + "the Quarterly REVENUE chart" + strings.Repeat(" more words", 10)
	session(t, dir, "a", "Plot revenue by month", "Here it is.")
	session(t, dir, "b", "Clean the CSV", long)
	session(t, dir, "c", "Unrelated", "Nothing here.")
	if err := Rename(dir, "c", "Revenue follow-up"); err != nil {
		t.Fatal(err)
	}
	got, err := Search(dir, "  revenue ", msgText)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(x, y Match) int { return strings.Compare(x.ID, y.ID) })
	if len(got) != 3 || got[0].Snippet != "Plot revenue by month" || got[2].Snippet != "Revenue follow-up" {
		t.Fatalf("matches %+v", got)
	}
	if s := got[1].Snippet; !strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") || !strings.Contains(s, "Quarterly REVENUE chart") || len([]rune(s)) > 2*snippetRadius+len("revenue")+4 {
		t.Errorf("snippet %q", s)
	}
	if got, _ := Search(dir, "nowhere to be found", msgText); len(got) != 0 {
		t.Errorf("no match expected: %+v", got)
	}
	if got, _ := Search(dir, "  ", msgText); got != nil {
		t.Errorf("an empty query matches nothing: %+v", got)
	}
}
