//go:build unix

package checkpoint

import (
	"context"
	"crypto/sha256"
	"errors"
	"github.com/freeact/desktop/internal/testenv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/beneath"
)

// A folder replaced by a link to .freeact after the turn that deleted a
// file in it: the revert refuses the path instead of restoring the file
// into .freeact.
func TestRevertRefusesFolderSwappedForLink(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{".freeact/permissions.json": `{"allow": []}`, "cfg/permissions.json": `{"allow": ["*"]}`})
	s := open(t, ws, Options{})
	r := action(t, s, Info{Label: "delete"}, func() {
		if err := os.Remove(filepath.Join(ws, "cfg", "permissions.json")); err != nil {
			t.Fatal(err)
		}
	})
	// Swapped after the action's snapshot (a timer thread).
	if err := os.Remove(filepath.Join(ws, "cfg")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".freeact", filepath.Join(ws, "cfg")); err != nil {
		t.Fatal(err)
	}
	plan, err := s.PlanRevert(context.Background(), []Record{*r})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Protected) != 0 {
		t.Errorf("protected %+v", plan.Protected)
	}
	_, _, err = s.Revert(context.Background(), []Record{*r}, Info{}, true)
	if !errors.Is(err, beneath.ErrLinkSwapped) {
		t.Errorf("revert: %v, want ErrLinkSwapped", err)
	}
	if got, _ := read(t, ws, ".freeact/permissions.json"); got != `{"allow": []}` {
		t.Errorf(".freeact/permissions.json = %s", got)
	}
}

// A folder whose mode an action changed, swapped for a link to a folder
// outside: the revert replaces the link with the folder and leaves the
// outside folder's mode alone.
func TestRevertDoesNotChmodThroughLink(t *testing.T) {
	base := t.TempDir()
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(ws, "d"), out} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(ws, "d"), 0o777); err != nil {
		t.Fatal(err)
	}
	write(t, ws, map[string]string{"d/f.txt": "v0"})
	s := open(t, ws, Options{})
	r := action(t, s, Info{}, func() {
		write(t, ws, map[string]string{"d/f.txt": "v1"})
		if err := os.Chmod(filepath.Join(ws, "d"), 0o700); err != nil {
			t.Fatal(err)
		}
	})
	if err := os.RemoveAll(filepath.Join(ws, "d")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(ws, "d")); err != nil {
		t.Fatal(err)
	}
	before := testenv.Tree(t, out)
	if _, _, err := s.Revert(context.Background(), []Record{*r}, Info{}, true); err != nil {
		t.Logf("revert: %v", err)
	}
	if got := testenv.Tree(t, out); got != before {
		t.Errorf("outside changed:\n%s\nwas\n%s", got, before)
	}
}

// TestRevertSwapRace reverts and redoes changes in a folder while another
// thread exchanges the folder with a link to a folder outside the
// workspace thousands of times: nothing outside is ever written, deleted
// or chmod-ed.
func TestRevertSwapRace(t *testing.T) {
	base := t.TempDir()
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
	write(t, out, map[string]string{"a.txt": "outside a", "b.txt": "outside b"})
	if err := os.Chmod(out, 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, ws, map[string]string{"cfg/a.txt": "v0"})
	if err := os.Symlink(out, filepath.Join(ws, "swap")); err != nil {
		t.Fatal(err)
	}
	before := testenv.Tree(t, out)
	s := open(t, ws, Options{})
	r := action(t, s, Info{}, func() { write(t, ws, map[string]string{"cfg/a.txt": "v1", "cfg/b.txt": "new"}) })
	root, err := beneath.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	a, b := filepath.Join(ws, "cfg"), filepath.Join(ws, "swap")
	flip := func() error { return exchange(a, b) }
	if err := flip(); err != nil {
		t.Skipf("no RENAME_EXCHANGE here: %v", err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	flips := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			if err := flip(); err != nil {
				t.Error(err)
				return
			}
			flips++
		}
	}()
	// At least 300 rounds, and on until five reverts got through (most
	// meet the link), bounded.
	rounds, reverted := 0, 0
	for ; rounds < 3000 && (rounds < 300 || reverted < 5); rounds++ {
		if rev, _, err := s.Revert(context.Background(), []Record{*r}, Info{}, true); err == nil && rev != nil {
			reverted++
		}
		// A revert that met the link halfway and could not roll itself
		// back (the link was still there) leaves its journal, and no
		// other revert runs until it is rolled back: as the user would.
		if in, _ := s.InterruptedRevert(); in != nil {
			_ = s.RollbackRevert(context.Background())
		}
		// Redo the action's change (refused while cfg is the link).
		_ = root.WriteFile("cfg/a.txt", []byte("v1"), 0o644)
		_ = root.WriteFile("cfg/b.txt", []byte("new"), 0o644)
	}
	close(done)
	wg.Wait()
	if got := testenv.Tree(t, out); got != before {
		t.Fatalf("outside changed after %d flips:\n%s\nwas\n%s", flips, got, before)
	}
	if flips < 1000 || reverted == 0 {
		t.Fatalf("the race did not run: %d flips, %d of %d reverts done", flips, reverted, rounds)
	}
	t.Logf("%d flips, %d of %d reverts done", flips, reverted, rounds)
}

// .env files and the files Options.Secret names are listed, never kept: a
// revert cannot restore them and leaves them as they are.
func TestSecretsAreListedNotKept(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{".env": "KEY=old", "sub/.env.local": "KEY=local", "keys/id.txt": "private"})
	s := open(t, ws, Options{Secret: []string{"keys/**"}})
	r := action(t, s, Info{}, func() {
		write(t, ws, map[string]string{".env": "KEY=new-secret", "sub/.env.local": "KEY=local2", "keys/id.txt": "private2", "a.txt": "a"})
	})
	for _, content := range []string{"KEY=old", "KEY=new-secret", "KEY=local", "KEY=local2", "private", "private2"} {
		if s.obj.has(sha256.Sum256([]byte(content))) {
			t.Errorf("%q is stored", content)
		}
	}
	for _, c := range r.Changes {
		if c.Path != "a.txt" && !c.Secret {
			t.Errorf("%s not marked secret", c.Path)
		}
	}
	_, plan, err := s.Revert(context.Background(), []Record{*r}, Info{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{".env", "keys/id.txt", "sub/.env.local"}; !slices.Equal(plan.Unrestorable, want) {
		t.Errorf("unrestorable %q, want %q", plan.Unrestorable, want)
	}
	if got, _ := read(t, ws, ".env"); got != "KEY=new-secret" {
		t.Errorf(".env = %q", got)
	}
	if _, ok := read(t, ws, "a.txt"); ok {
		t.Error("a.txt not reverted")
	}
}

// Stores written before secrets were left out hold .env content: the next
// prune removes it, however fresh, and a revert then calls .env
// unrestorable instead of failing.
func TestPruneRemovesKeptSecrets(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "a"})
	s := open(t, ws, Options{})
	s.Close()
	// What an older version recorded: .env kept as a plain file.
	put := func(content string) Hash {
		h := sha256.Sum256([]byte(content))
		if err := s.obj.put(h, []byte(content)); err != nil {
			t.Fatal(err)
		}
		return h
	}
	env, a, shared := put("KEY=sk-old"), put("a"), put("same")
	treeOf := func(es ...entry) Hash {
		h, err := s.obj.putTree(es)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	before := treeOf(entry{name: ".env", kind: kindFile, perm: 0o600, size: 10, hash: env}, entry{name: "a.txt", kind: kindFile, perm: 0o644, size: 1, hash: a})
	after := treeOf(entry{name: "a.txt", kind: kindFile, perm: 0o644, size: 1, hash: a}, entry{name: "copy.txt", kind: kindFile, perm: 0o644, size: 4, hash: shared},
		entry{name: "sub", kind: kindDir, perm: 0o755, hash: treeOf(entry{name: ".env", kind: kindFile, perm: 0o600, size: 4, hash: shared})})
	old := Record{ID: "0ld", Kind: KindAction, Before: before, After: after, Time: time.Now().UTC()}
	if err := s.records.add(old); err != nil {
		t.Fatal(err)
	}
	// An older version's store: pruned today, but not for secrets.
	if err := os.Remove(filepath.Join(s.dir, secretsPruned)); err != nil {
		t.Fatal(err)
	}
	if !s.pruneDue() {
		t.Fatal("a store never pruned for secrets is not due")
	}
	if _, err := s.Prune(context.Background(), time.Now()); err != nil {
		t.Fatal(err)
	}
	if s.obj.has(env) {
		t.Error(".env content still stored after the prune")
	}
	if !s.obj.has(shared) || !s.obj.has(a) {
		t.Error("content also used by other files was removed")
	}
	if s.pruneDue() {
		t.Error("still due right after the prune")
	}
	write(t, ws, map[string]string{".env": "KEY=now"})
	_, plan, err := s.Revert(context.Background(), []Record{old}, Info{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(plan.Unrestorable, ".env") {
		t.Errorf("unrestorable %q", plan.Unrestorable)
	}
	if got, _ := read(t, ws, ".env"); got != "KEY=now" {
		t.Errorf(".env = %q", got)
	}
}

// A revert that changes a protected file reports both versions and needs
// force.
func TestRevertOfProtectedFileNeedsForce(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{".freeact/permissions.json": "strict", "sandbox.json": "tight"})
	s := open(t, ws, Options{Protected: []string{"sandbox.json"}})
	r := action(t, s, Info{}, func() {
		write(t, ws, map[string]string{".freeact/permissions.json": "loose", "sandbox.json": "open", "a.txt": "a"})
	})
	_, plan, err := s.Revert(context.Background(), []Record{*r}, Info{}, false)
	if !errors.Is(err, ErrProtected) {
		t.Fatalf("revert without force: %v", err)
	}
	var got []string
	for _, p := range plan.Protected {
		got = append(got, p.Path+": "+p.Current+" -> "+p.Restored)
	}
	if want := []string{".freeact/permissions.json: loose -> strict", "sandbox.json: open -> tight"}; !slices.Equal(got, want) {
		t.Errorf("protected %q, want %q", got, want)
	}
	if v, _ := read(t, ws, "a.txt"); v != "a" {
		t.Error("a refused revert changed files")
	}
	if _, _, err := s.Revert(context.Background(), []Record{*r}, Info{}, true); err != nil {
		t.Fatal(err)
	}
	if v, _ := read(t, ws, ".freeact/permissions.json"); v != "strict" {
		t.Errorf("permissions.json = %q", v)
	}
}

// A large file the reverted action created is listed with its size and
// left in place unless the user ticked it.
func TestUnkeptFilesStayUnlessTicked(t *testing.T) {
	ws := t.TempDir()
	s := open(t, ws, Options{MaxFileBytes: 64})
	r := action(t, s, Info{}, func() {
		write(t, ws, map[string]string{"results.bin": strings.Repeat("x", 200), "other.bin": strings.Repeat("y", 100), "a.txt": "a"})
	})
	plan, err := s.PlanRevert(context.Background(), []Record{*r})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Unkept{{Path: "other.bin", Size: 100}, {Path: "results.bin", Size: 200}}; !slices.Equal(plan.Unkept, want) {
		t.Fatalf("unkept %+v", plan.Unkept)
	}
	for _, c := range plan.Restore {
		if c.Path != "a.txt" {
			t.Errorf("restore lists %s", c.Path)
		}
	}
	if _, _, err := s.Revert(context.Background(), []Record{*r}, Info{DeleteUnkept: []string{"results.bin"}}, false); err != nil {
		t.Fatal(err)
	}
	if _, ok := read(t, ws, "results.bin"); ok {
		t.Error("the ticked file stayed")
	}
	if _, ok := read(t, ws, "other.bin"); !ok {
		t.Error("the file not ticked was deleted")
	}
}

// A .gitignore written by the action hides a folder from the snapshots
// after it: a later edit there is still a conflict, not overwritten.
func TestGitignoreWrittenByActionDoesNotHideEdits(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{"data/f.txt": "v1"})
	s := open(t, ws, Options{})
	r := action(t, s, Info{}, func() { write(t, ws, map[string]string{".gitignore": "data/\n", "data/f.txt": "v2"}) })
	write(t, ws, map[string]string{"data/f.txt": "user's v3"})
	// Without force the files without a conflict are reverted and the
	// conflict stays as the user left it.
	_, plan, err := s.Revert(context.Background(), []Record{*r}, Info{}, false)
	if err != nil || len(plan.Conflicts) != 1 || plan.Conflicts[0].Path != "data/f.txt" {
		t.Fatalf("revert: %v, plan %+v", err, plan)
	}
	if _, ok := read(t, ws, ".gitignore"); ok {
		t.Error("the .gitignore the action wrote was not reverted")
	}
	if v, _ := read(t, ws, "data/f.txt"); v != "user's v3" {
		t.Errorf("data/f.txt = %q", v)
	}
}

// A .gitignore an action of the turn writes hides nothing from the turn's
// later records; the next turn follows it.
func TestGitignoreOfTheTurnKeepsItsFilesRecorded(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{"data/f.txt": "v1"})
	s := open(t, ws, Options{})
	s.BeginTurn()
	r1 := action(t, s, Info{TurnID: "t1"}, func() { write(t, ws, map[string]string{".gitignore": "data/\n", "data/f.txt": "v2"}) })
	r2 := action(t, s, Info{TurnID: "t1"}, func() { write(t, ws, map[string]string{"data/f.txt": "v3"}) })
	if got := statuses(r1.Changes); !slices.Equal(got, []string{"added .gitignore", "modified data/f.txt"}) {
		t.Errorf("first action: %q", got)
	}
	if r2 == nil || !slices.Equal(statuses(r2.Changes), []string{"modified data/f.txt"}) {
		t.Fatalf("second action: %+v", r2)
	}
	if _, _, err := s.Revert(context.Background(), []Record{*r1, *r2}, Info{}, false); err != nil {
		t.Fatal(err)
	}
	if v, _ := read(t, ws, "data/f.txt"); v != "v1" {
		t.Errorf("data/f.txt = %q after reverting the turn", v)
	}
	s.BeginTurn()
	write(t, ws, map[string]string{".gitignore": "data/\n"})
	snap(t, s)
	r3 := action(t, s, Info{TurnID: "t2"}, func() { write(t, ws, map[string]string{"data/f.txt": "v4"}) })
	if r3 != nil {
		t.Errorf("the next turn recorded an ignored file: %q", statuses(r3.Changes))
	}
}
