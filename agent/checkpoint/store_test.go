package checkpoint

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// write creates files (name → content) under dir.
func write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func read(t testing.TB, dir, name string) (string, bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(data), true
}

func open(t testing.TB, ws string, opts Options) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "store"), ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	// A new store is pruned in the background; a test's own records must
	// not race it.
	s.pruning.Wait()
	return s
}

func snap(t testing.TB, s *Store) Snapshot {
	t.Helper()
	sn, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return sn
}

// action snapshots, runs change, snapshots and records.
func action(t testing.TB, s *Store, info Info, change func()) *Record {
	t.Helper()
	before := snap(t, s)
	change()
	r, err := s.Record(context.Background(), "", info, before, snap(t, s))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func statuses(cs []Change) []string {
	var out []string
	for _, c := range cs {
		s := c.Status + " " + c.Path
		if c.Binary {
			s += " (binary)"
		}
		if c.Large {
			s += " (large)"
		}
		out = append(out, s)
	}
	return out
}

func TestRecordDiffAndRevert(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{
		"notes.txt":     "one\ntwo\nthree\n",
		"data/old.csv":  "a,b\n1,2\n",
		"src/keep.py":   "print('keep')\n",
		"bin/tool":      "#!/bin/sh\n",
		"empty/.keepme": "",
	})
	s := open(t, ws, Options{})
	r := action(t, s, Info{Session: "s1", TurnID: "t1", Turn: 1, Label: "code"}, func() {
		write(t, ws, map[string]string{"notes.txt": "one\n2\nthree\nfour\n", "new/dir/made.txt": "made\n", "img.png": "\x89PNG\x00\x01"})
		if err := os.Remove(filepath.Join(ws, "data", "old.csv")); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(ws, "bin", "tool"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("notes.txt", filepath.Join(ws, "link")); err != nil {
			t.Fatal(err)
		}
	})
	if r == nil {
		t.Fatal("no record")
	}
	want := []string{"modified bin/tool", "deleted data/old.csv", "added img.png (binary)", "added link", "added new/dir/made.txt", "modified notes.txt"}
	if got := statuses(r.Changes); !slices.Equal(got, want) {
		t.Fatalf("changes = %q, want %q", got, want)
	}
	for _, c := range r.Changes {
		if c.Path == "notes.txt" && (c.Added != 2 || c.Removed != 1) {
			t.Errorf("notes.txt: +%d -%d, want +2 -1", c.Added, c.Removed)
		}
	}
	diffs, err := s.Diff(context.Background(), []Record{*r})
	if err != nil {
		t.Fatal(err)
	}
	var notes string
	for _, d := range diffs {
		if d.Path == "notes.txt" {
			notes = d.Diff
		}
		if d.Path == "img.png" && d.Diff != "" {
			t.Errorf("binary file has a text diff: %q", d.Diff)
		}
	}
	for _, line := range []string{"--- a/notes.txt", "+++ b/notes.txt", "-two", "+2", "+four", " one"} {
		if !strings.Contains(notes, line+"\n") {
			t.Errorf("diff of notes.txt lacks %q:\n%s", line, notes)
		}
	}

	undo, plan, err := s.Revert(context.Background(), []Record{*r}, Info{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Restore) != 6 || len(plan.Conflicts) != 0 {
		t.Errorf("plan %+v", plan)
	}
	if got, _ := read(t, ws, "notes.txt"); got != "one\ntwo\nthree\n" {
		t.Errorf("notes.txt = %q", got)
	}
	if got, ok := read(t, ws, "data/old.csv"); !ok || got != "a,b\n1,2\n" {
		t.Errorf("data/old.csv = %q, %v", got, ok)
	}
	for _, gone := range []string{"new/dir/made.txt", "img.png", "link"} {
		if _, err := os.Lstat(filepath.Join(ws, gone)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists (%v)", gone, err)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "new")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the folder new/ the action made is still there")
	}
	if st, _ := os.Stat(filepath.Join(ws, "bin", "tool")); st.Mode().Perm() != 0o644 {
		t.Errorf("bin/tool mode %v, want 0644", st.Mode().Perm())
	}
	if undo == nil || undo.Kind != KindRevert || !slices.Equal(undo.Reverts, []string{r.ID}) || undo.Label != "Revert: code" {
		t.Fatalf("revert record %+v", undo)
	}

	// The revert is itself a record: reverting it redoes the action.
	redo, _, err := s.Revert(context.Background(), []Record{*undo}, Info{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := read(t, ws, "notes.txt"); got != "one\n2\nthree\nfour\n" {
		t.Errorf("after undoing the revert notes.txt = %q", got)
	}
	if target, err := os.Readlink(filepath.Join(ws, "link")); err != nil || target != "notes.txt" {
		t.Errorf("link = %q, %v", target, err)
	}
	if st, _ := os.Stat(filepath.Join(ws, "bin", "tool")); st.Mode().Perm() != 0o755 {
		t.Errorf("bin/tool mode %v, want 0755", st.Mode().Perm())
	}
	if redo.Label != "Undo: Revert: code" {
		t.Errorf("label %q", redo.Label)
	}
	all, _ := s.Records()
	if len(all) != 3 {
		t.Errorf("%d records, want 3", len(all))
	}
}

func TestIgnoredFilesAreNotRecorded(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{
		".gitignore":                     "*.log\nbuild/\n!keep.log\n",
		"sub/.gitignore":                 "local.txt\n",
		".freeact/agent.json":            "{}",
		".freeact/sessions/s/main.jsonl": "{}",
		".git/HEAD":                      "ref",
		"node_modules/x/index.js":        "x",
	})
	s := open(t, ws, Options{Ignore: []string{"secret.txt"}})
	r := action(t, s, Info{}, func() {
		write(t, ws, map[string]string{
			"run.log": "x", "keep.log": "kept", "build/out.o": "x", "sub/local.txt": "x", "sub/shared.txt": "x",
			".freeact/sessions/s/main.jsonl": "{}\n{}", ".git/HEAD": "other", "secret.txt": "x",
			".freeact/agent.json": `{"model": "x"}`, "node_modules/x/index.js": "y",
		})
	})
	want := []string{"modified .freeact/agent.json", "added keep.log", "added sub/shared.txt"}
	if r == nil || !slices.Equal(statuses(r.Changes), want) {
		t.Fatalf("record %+v, want changes %q", r, want)
	}
}

// Without force a revert takes back the files without a conflict and
// leaves those changed since; a revert of conflicts only changes nothing;
// force ("revert anyway") takes the rest back too.
func TestConflictsNeedForce(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "v1\n", "b.txt": "b1\n"})
	s := open(t, ws, Options{})
	r := action(t, s, Info{Label: "edit"}, func() { write(t, ws, map[string]string{"a.txt": "v2\n", "b.txt": "b2\n"}) })
	write(t, ws, map[string]string{"a.txt": "v3 by hand\n"})

	plan, err := s.PlanRevert(context.Background(), []Record{*r})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(statuses(plan.Conflicts), []string{"modified a.txt"}) || !slices.Equal(statuses(plan.Restore), []string{"modified b.txt"}) {
		t.Fatalf("plan %+v", plan)
	}
	rev, pl, err := s.Revert(context.Background(), []Record{*r}, Info{}, false)
	if err != nil || rev == nil || !slices.Equal(statuses(rev.Changes), []string{"modified b.txt"}) || !slices.Equal(statuses(pl.Conflicts), []string{"modified a.txt"}) {
		t.Fatalf("revert without force: %+v %+v %v, want b.txt reverted and a.txt kept", rev, pl, err)
	}
	for name, want := range map[string]string{"a.txt": "v3 by hand\n", "b.txt": "b1\n"} {
		if got, _ := read(t, ws, name); got != want {
			t.Errorf("after the revert without force %s = %q, want %q", name, got, want)
		}
	}
	// Only the conflict is left: without force nothing changes.
	if _, _, err := s.Revert(context.Background(), []Record{*r}, Info{}, false); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "a.txt") {
		t.Fatalf("revert of conflicts only, without force: %v", err)
	}
	if got, _ := read(t, ws, "a.txt"); got != "v3 by hand\n" {
		t.Errorf("a refused revert changed a.txt to %q", got)
	}
	if _, _, err := s.Revert(context.Background(), []Record{*r}, Info{}, true); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.txt": "v1\n", "b.txt": "b1\n"} {
		if got, _ := read(t, ws, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

// A turn's records are reverted together: each file goes back to its
// state before the first action that changed it.
func TestRevertTurnOfSeveralActions(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "a0\n"})
	s := open(t, ws, Options{})
	turn := Info{TurnID: "T1", Turn: 1, Prompt: "do things"}
	r1 := action(t, s, turn, func() { write(t, ws, map[string]string{"a.txt": "a1\n", "b.txt": "b1\n"}) })
	r2 := action(t, s, turn, func() { write(t, ws, map[string]string{"a.txt": "a2\n"}) })
	r3 := action(t, s, turn, func() { _ = os.Remove(filepath.Join(ws, "b.txt")) })
	rs, err := s.Find("T1")
	if err != nil || len(rs) != 3 || rs[0].ID != r1.ID || rs[1].ID != r2.ID || rs[2].ID != r3.ID {
		t.Fatalf("Find(T1) = %v, %v", rs, err)
	}
	diffs, err := s.Diff(context.Background(), rs)
	if err != nil {
		t.Fatal(err)
	}
	// b.txt was made and removed again: no net change.
	if len(diffs) != 1 || diffs[0].Path != "a.txt" || !strings.Contains(diffs[0].Diff, "-a0\n+a2\n") {
		t.Fatalf("turn diff %+v", diffs)
	}
	rev, _, err := s.Revert(context.Background(), rs, Info{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := read(t, ws, "a.txt"); got != "a0\n" {
		t.Errorf("a.txt = %q", got)
	}
	if rev.Label != "Revert turn 1: do things" {
		t.Errorf("label %q", rev.Label)
	}
}

func TestLargeFilesAreListedNotKept(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{"big.bin": strings.Repeat("x", 100)})
	s := open(t, ws, Options{MaxFileBytes: 64})
	r := action(t, s, Info{}, func() { write(t, ws, map[string]string{"big.bin": strings.Repeat("y", 200), "small.txt": "s"}) })
	if got := statuses(r.Changes); !slices.Equal(got, []string{"modified big.bin (large)", "added small.txt"}) {
		t.Fatalf("changes %q", got)
	}
	_, plan, err := s.Revert(context.Background(), []Record{*r}, Info{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plan.Unrestorable, []string{"big.bin"}) {
		t.Errorf("unrestorable %q", plan.Unrestorable)
	}
	if got, _ := read(t, ws, "big.bin"); got != strings.Repeat("y", 200) {
		t.Error("big.bin was touched")
	}
	if _, ok := read(t, ws, "small.txt"); ok {
		t.Error("small.txt was not removed")
	}
}

// Unchanged files are taken from the index, also after the store is
// opened again; a file changed without a new size is still seen.
func TestIncrementalSnapshots(t *testing.T) {
	ws := t.TempDir()
	files := map[string]string{}
	for i := range 50 {
		files[fmt.Sprintf("d%d/f%d.txt", i%5, i)] = fmt.Sprint("content ", i)
	}
	write(t, ws, files)
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(dir, ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.racy = 0 // trust every stat, so the counts below are exact
	first := snap(t, s)
	if first.Files != 50 || first.Hashed != 50 {
		t.Fatalf("first snapshot %+v", first)
	}
	write(t, ws, map[string]string{"d1/f1.txt": "CONTENT 1"}) // same size
	second := snap(t, s)
	if second.Hashed != 1 || second.Root == first.Root {
		t.Fatalf("second snapshot %+v", second)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.racy = 0
	third := snap(t, s)
	if third.Hashed != 0 || third.Root != second.Root {
		t.Fatalf("after reopening: %+v", third)
	}
	// A file modified within the file system's timestamp resolution of
	// its hashing is not trusted.
	s.racy = int64(time.Hour)
	if again := snap(t, s); again.Hashed != 50 {
		t.Errorf("racy snapshot hashed %d files, want 50", again.Hashed)
	}
}

func TestTooManyFiles(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{"a": "", "b": "", "c": ""})
	s := open(t, ws, Options{MaxFiles: 2})
	if _, err := s.Snapshot(context.Background()); !errors.Is(err, ErrTooManyFiles) || !strings.Contains(err.Error(), ".gitignore") {
		t.Fatalf("err = %v", err)
	}
}

func TestPrune(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "v0"})
	s := open(t, ws, Options{MaxAge: time.Hour})
	old := action(t, s, Info{Label: "old"}, func() { write(t, ws, map[string]string{"a.txt": "v1"}) })
	recent := action(t, s, Info{Label: "recent"}, func() { write(t, ws, map[string]string{"a.txt": "v2"}) })
	// Make the old record three hours old and every object two hours old
	// (past the grace period for fresh objects).
	now := time.Now()
	old.Time, recent.Time = now.Add(-3*time.Hour), now.Add(-10*time.Minute)
	if err := s.records.rewrite([]Record{*old, *recent}); err != nil {
		t.Fatal(err)
	}
	aged := now.Add(-2 * time.Hour)
	if err := s.eachObject(context.Background(), func(h Hash, _ os.FileInfo) {
		_ = os.Chtimes(s.obj.path(h), aged, aged)
	}); err != nil {
		t.Fatal(err)
	}
	res, err := s.Prune(context.Background(), now)
	if err != nil {
		t.Fatal(err)
	}
	all, _ := s.Records()
	if res.Records != 1 || len(all) != 1 || all[0].ID != recent.ID {
		t.Fatalf("prune %+v left %v", res, all)
	}
	blob := func(content string) Hash { return sha256.Sum256([]byte(content)) }
	if s.obj.has(blob("v0")) {
		t.Error("v0, used only by the pruned record, is still stored")
	}
	for _, v := range []string{"v1", "v2"} {
		if _, err := s.obj.get(blob(v)); err != nil {
			t.Errorf("%s pruned: %v", v, err)
		}
	}
	if _, _, err := s.Revert(context.Background(), all, Info{}, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := read(t, ws, "a.txt"); got != "v1" {
		t.Errorf("a.txt = %q after reverting the kept record", got)
	}
}

func TestPruneBySize(t *testing.T) {
	ws := t.TempDir()
	s := open(t, ws, Options{MaxBytes: 3000})
	var rs []*Record
	for i := range 5 {
		rs = append(rs, action(t, s, Info{Label: fmt.Sprint(i)}, func() {
			write(t, ws, map[string]string{"f.txt": strings.Repeat(fmt.Sprint(i), 1000)})
		}))
	}
	res, err := s.Prune(context.Background(), rs[4].Time.Add(2*keepFresh))
	if err != nil {
		t.Fatal(err)
	}
	if res.Kept > 3000 || res.Records == 0 {
		t.Fatalf("prune %+v", res)
	}
	all, _ := s.Records()
	if all[len(all)-1].ID != rs[4].ID {
		t.Error("the newest record was pruned")
	}
}

// Objects no record uses but kept because they are fresh (a snapshot
// another process is taking) cannot be freed by dropping records, so they
// never make Prune drop them; nor is the newest record dropped when it
// alone is over the limit.
func TestPruneKeepsRecordsFreshObjectsCannotFree(t *testing.T) {
	ws := t.TempDir()
	s := open(t, ws, Options{MaxBytes: 3000})
	var rs []*Record
	for i := range 2 {
		rs = append(rs, action(t, s, Info{Label: fmt.Sprint(i)}, func() {
			write(t, ws, map[string]string{"f.txt": strings.Repeat(fmt.Sprint(i), 1000)})
		}))
	}
	// 5,000 bytes of objects only an abandoned snapshot used.
	write(t, ws, map[string]string{"big.txt": strings.Repeat("b", 5000)})
	snap(t, s)
	if err := os.Remove(filepath.Join(ws, "big.txt")); err != nil {
		t.Fatal(err)
	}
	snap(t, s)
	res, err := s.Prune(context.Background(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if res.Records != 0 {
		t.Fatalf("fresh unused objects made Prune drop records: %+v", res)
	}
	big := action(t, s, Info{Label: "big"}, func() {
		write(t, ws, map[string]string{"f.txt": strings.Repeat("x", 4000)})
	})
	if res, err = s.Prune(context.Background(), time.Now()); err != nil {
		t.Fatal(err)
	}
	all, _ := s.Records()
	if len(all) != 1 || all[0].ID != big.ID || res.Records != len(rs) {
		t.Fatalf("after pruning a newest record over the limit: %d records, %+v", len(all), res)
	}
}

// Two stores over one folder (two processes) take turns.
func TestTwoStoresShareAFolder(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "a"})
	dir := filepath.Join(t.TempDir(), "store")
	var stores [2]*Store
	for i := range stores {
		s, err := Open(dir, ws, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores[i] = s
	}
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := stores[i%2]
			before, err := s.Snapshot(context.Background())
			if err != nil {
				errs <- err
				return
			}
			name := fmt.Sprintf("f%d.txt", i)
			if err := os.WriteFile(filepath.Join(ws, name), []byte(name), 0o644); err != nil {
				errs <- err
				return
			}
			after, err := s.Snapshot(context.Background())
			if err != nil {
				errs <- err
				return
			}
			if _, err := s.Record(context.Background(), "", Info{Label: name}, before, after); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	all, err := stores[0].Records()
	if err != nil || len(all) != 10 {
		t.Fatalf("%d records (%v), want 10", len(all), err)
	}
}

func TestRecordsFileSurvivesAPartialLine(t *testing.T) {
	ws := t.TempDir()
	s := open(t, ws, Options{})
	action(t, s, Info{Label: "one"}, func() { write(t, ws, map[string]string{"a": "1"}) })
	f, err := os.OpenFile(s.records.path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id": "cut`)
	f.Close()
	all, err := s.Records()
	if err != nil || len(all) != 1 {
		t.Fatalf("records %v, %v", all, err)
	}
	if _, err := s.Find("nope"); err == nil || !strings.Contains(err.Error(), "checkpoints list") {
		t.Errorf("Find(nope) = %v", err)
	}
}

func TestLastTurnSkipsRevertedTurns(t *testing.T) {
	ws := t.TempDir()
	s := open(t, ws, Options{})
	action(t, s, Info{Session: "s", TurnID: "T1", Turn: 1}, func() { write(t, ws, map[string]string{"a": "1"}) })
	action(t, s, Info{Session: "s", TurnID: "T2", Turn: 2}, func() { write(t, ws, map[string]string{"a": "2"}) })
	action(t, s, Info{Session: "other", TurnID: "T3", Turn: 1}, func() { write(t, ws, map[string]string{"b": "1"}) })
	last := func(session string) string {
		rs, err := s.Records()
		if err != nil {
			t.Fatal(err)
		}
		return LastTurn(rs, session)
	}
	if got := last("s"); got != "T2" {
		t.Fatalf("last turn of s = %q", got)
	}
	if got := last(""); got != "T3" {
		t.Fatalf("last turn = %q", got)
	}
	rs, _ := s.Find("T2")
	undo, _, err := s.Revert(context.Background(), rs, Info{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := last("s"); got != "T1" {
		t.Errorf("after reverting T2 the last turn of s = %q", got)
	}
	// Undoing the revert brings T2 back.
	if _, _, err := s.Revert(context.Background(), []Record{*undo}, Info{}, false); err != nil {
		t.Fatal(err)
	}
	if got := last("s"); got != "T2" {
		t.Errorf("after undoing the revert the last turn of s = %q", got)
	}
}

// A snapshot stops when its context ends (the app closing during the first
// snapshot of a large workspace), and the store keeps its last state.
func TestSnapshotStopsWithItsContext(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{"a/x": "1", "b/y": "2"})
	s := open(t, ws, Options{})
	first := snap(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Snapshot(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if s.head != first.Root {
		t.Error("a stopped snapshot replaced the last one")
	}
}
