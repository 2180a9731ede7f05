package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Two conversations in one folder, as the window runs them: one process,
// one store each on the same checkpoint folder. Their actions take turns
// on the action lock, and each one's revert takes back its own changes
// only: a file the other changed since is a conflict, never overwritten.
func TestTwoConversationsOnOneFolderRevertTheirOwnActions(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{"shared.txt": "v0\n"})
	dir := filepath.Join(t.TempDir(), "store")
	var a, b *Store
	for _, s := range []**Store{&a, &b} {
		st, err := Open(dir, ws, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		st.pruning.Wait()
		*s = st
	}

	// The action lock: b waits while a's action runs.
	ctx := context.Background()
	releaseA, err := a.LockActions(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan int, 1)
	got := make(chan func(), 1)
	go func() {
		release, err := b.LockActions(ctx, func(pid int) { waited <- pid })
		if err != nil {
			t.Error(err)
			close(got)
			return
		}
		got <- release
	}()
	select {
	case pid := <-waited:
		if pid != os.Getpid() {
			t.Errorf("b waits for pid %d, want this process %d", pid, os.Getpid())
		}
	case <-got:
		t.Fatal("b's action ran while a's held the lock")
	case <-time.After(30 * time.Second):
		t.Fatal("b neither waited nor ran")
	}
	ra := action(t, a, Info{Label: "a edits"}, func() { write(t, ws, map[string]string{"a.txt": "a\n", "shared.txt": "by a\n"}) })
	releaseA()
	var releaseB func()
	select {
	case releaseB = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("b never got the lock after a released it")
	}
	rb := action(t, b, Info{Label: "b edits"}, func() { write(t, ws, map[string]string{"b.txt": "b\n", "shared.txt": "by b\n"}) })
	releaseB()

	// a's revert: a.txt goes, b.txt stays, shared.txt (b changed it
	// since) is a conflict and keeps b's text.
	plan, err := a.PlanRevert(ctx, []Record{*ra})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(statuses(plan.Conflicts), []string{"modified shared.txt"}) || !slices.Equal(statuses(plan.Restore), []string{"deleted a.txt"}) {
		t.Fatalf("a's revert plan: conflicts %v, restore %v", statuses(plan.Conflicts), statuses(plan.Restore))
	}
	if _, _, err := a.Revert(ctx, []Record{*ra}, Info{Label: "revert a"}, false); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"shared.txt": "by b\n", "b.txt": "b\n"} {
		if got, _ := read(t, ws, name); got != want {
			t.Errorf("after a's revert %s = %q, want %q (b's)", name, got, want)
		}
	}
	if _, ok := read(t, ws, "a.txt"); ok {
		t.Error("a's revert left a.txt")
	}

	// b's revert takes back b's own changes: b.txt, and shared.txt to
	// what it was before b's action (a's text).
	if _, _, err := b.Revert(ctx, []Record{*rb}, Info{Label: "revert b"}, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := read(t, ws, "shared.txt"); got != "by a\n" {
		t.Errorf("after b's revert shared.txt = %q, want a's text (before b's action)", got)
	}
	if _, ok := read(t, ws, "b.txt"); ok {
		t.Error("b's revert left b.txt")
	}
}
