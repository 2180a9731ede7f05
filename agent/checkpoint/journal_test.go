package checkpoint

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"
)

// tree reads every regular file under dir (name → content), leaving out
// nothing but folders.
func tree(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func reopen(t testing.TB, dir, ws string) *Store {
	t.Helper()
	s, err := Open(dir, ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// An action whose process died before its after-snapshot is found by the
// next start, recorded late with all it changed, and can be reverted.
func TestRecoverPendingAction(t *testing.T) {
	ws, dir := t.TempDir(), filepath.Join(t.TempDir(), "store")
	write(t, ws, map[string]string{"a.txt": "a\n", "gone.txt": "gone\n"})
	before := tree(t, ws)
	s := reopen(t, dir, ws)
	ctx := context.Background()
	id, err := s.Begin(ctx, Info{Session: "s1", TurnID: "t1", Turn: 1, Label: "rewrite"}, snap(t, s))
	if err != nil {
		t.Fatal(err)
	}
	write(t, ws, map[string]string{"a.txt": "A\n", "new.txt": "new\n"})
	if err := os.Remove(filepath.Join(ws, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	// A second process sees the action running, and leaves it alone.
	s2 := reopen(t, dir, ws)
	if done, err := s2.Recover(ctx); err != nil || len(done) != 0 {
		t.Fatalf("recovered a running action: %v, %v", done, err)
	}
	if rs, _ := s2.Records(); len(rs) != 0 {
		t.Fatalf("a pending record is listed: %v", rs)
	}
	_ = s.Close() // the process dies: its owner lock goes

	done, err := s2.Recover(ctx)
	if err != nil || len(done) != 1 {
		t.Fatalf("Recover = %v, %v; want the action", done, err)
	}
	r := done[0]
	if r.ID != id || !r.Late || r.TurnID != "t1" || len(r.Changes) != 3 {
		t.Fatalf("record %+v", r)
	}
	if again, _ := s2.Recover(ctx); len(again) != 0 {
		t.Fatalf("recovered twice: %v", again)
	}
	if _, _, err := s2.Revert(ctx, done, Info{}, false); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, ws); !maps.Equal(got, before) {
		t.Fatalf("after revert %v, want %v", got, before)
	}
}

// An action that changed nothing leaves no record, pending or not.
func TestPendingActionWithoutChange(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "a\n"})
	s := open(t, ws, Options{})
	ctx := context.Background()
	b := snap(t, s)
	id, err := s.Begin(ctx, Info{Label: "print"}, b)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s.Record(ctx, id, Info{Label: "print"}, b, snap(t, s)); r != nil || err != nil {
		t.Fatalf("Record = %v, %v", r, err)
	}
	if ps, _ := s.Pending(); len(ps) != 0 {
		t.Fatalf("pending %v", ps)
	}
}

// interruptRevert starts a revert of rs in a store that then "dies" after
// applying n of its steps.
func interruptRevert(t *testing.T, dir, ws string, rs []Record, n int) {
	t.Helper()
	s, err := Open(dir, ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := snap(t, s)
	steps, _, err := s.plan(rs, before.Root)
	if err != nil {
		t.Fatal(err)
	}
	j := &journal{ID: newID(), Owner: s.owner, Label: revertLabel(rs), Before: before.Root}
	for _, st := range steps {
		j.Steps = append(j.Steps, journalStep{Path: st.path, From: toEntry(st.cur), To: toEntry(st.old)})
	}
	if err := s.writeJournal(j); err != nil {
		t.Fatal(err)
	}
	if err := s.apply(steps[:n]); err != nil {
		t.Fatal(err)
	}
	// A torn temporary file, as a kill in atomicfile.Write leaves.
	if err := os.WriteFile(filepath.Join(ws, "."+steps[n].path+".123.tmp"), []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A revert cut short is reported, blocks other reverts, and ends wholly
// after (finish, whose Undo restores everything) or wholly before
// (rollback).
func TestInterruptedRevert(t *testing.T) {
	for _, finish := range []bool{true, false} {
		t.Run(fmt.Sprint("finish=", finish), func(t *testing.T) {
			ws, dir := t.TempDir(), filepath.Join(t.TempDir(), "store")
			files := map[string]string{}
			for i := range 20 {
				files[fmt.Sprintf("f%02d.txt", i)] = fmt.Sprintf("old %d\n", i)
			}
			write(t, ws, files)
			orig := tree(t, ws)
			s := reopen(t, dir, ws)
			r := action(t, s, Info{TurnID: "t1", Turn: 1, Label: "change"}, func() {
				for i := range 10 {
					write(t, ws, map[string]string{fmt.Sprintf("f%02d.txt", i): "new\n", fmt.Sprintf("made%02d.txt", i): "made\n"})
				}
				for i := 10; i < 15; i++ {
					_ = os.Remove(filepath.Join(ws, fmt.Sprintf("f%02d.txt", i)))
				}
			})
			changed := tree(t, ws)
			_ = s.Close()
			interruptRevert(t, dir, ws, []Record{*r}, 7)

			s2 := reopen(t, dir, ws)
			in, err := s2.InterruptedRevert()
			if err != nil || in == nil || in.Files != 25 {
				t.Fatalf("InterruptedRevert = %+v, %v", in, err)
			}
			if _, _, err := s2.Revert(context.Background(), []Record{*r}, Info{}, true); err == nil {
				t.Fatal("a revert ran over an interrupted one")
			}
			if !finish {
				if err := s2.RollbackRevert(context.Background()); err != nil {
					t.Fatal(err)
				}
				if got := tree(t, ws); !maps.Equal(got, changed) {
					t.Fatalf("rolled back to %v, want %v", got, changed)
				}
				if rs, _ := s2.Records(); len(rs) != 1 {
					t.Fatalf("records %v", rs)
				}
				return
			}
			// Before it is finished, the user edits files it never touched,
			// old and new, in a folder it did not know: no part of the revert.
			user := map[string]string{"f19.txt": "edited by the user\n", "notes/user.txt": "mine\n"}
			write(t, ws, user)
			maps.Copy(orig, user)
			maps.Copy(changed, user)
			rev, err := s2.FinishRevert(context.Background())
			if err != nil || rev == nil {
				t.Fatalf("FinishRevert = %v, %v", rev, err)
			}
			if got := tree(t, ws); !maps.Equal(got, orig) {
				t.Fatalf("finished to %v, want %v", got, orig)
			}
			if len(rev.Changes) != 25 {
				t.Fatalf("the revert records %d changes, want all 25 and none of the user's: %v", len(rev.Changes), rev.Changes)
			}
			if in, _ := s2.InterruptedRevert(); in != nil {
				t.Fatal("still interrupted")
			}
			if _, _, err := s2.Revert(context.Background(), []Record{*rev}, Info{}, false); err != nil {
				t.Fatal(err)
			}
			if got := tree(t, ws); !maps.Equal(got, changed) {
				t.Fatalf("undo gave %v, want %v", got, changed)
			}
		})
	}
}

// Actions of two stores of one workspace (as of two processes) take
// turns: the second waits, is told whom for, and goes once the first
// ends; actions of one store share the lock.
func TestLockActions(t *testing.T) {
	ws, dir := t.TempDir(), filepath.Join(t.TempDir(), "store")
	a, b := reopen(t, dir, ws), reopen(t, dir, ws)
	ctx := context.Background()
	release, err := a.LockActions(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := a.LockActions(ctx, func(int) { t.Error("a store waited for itself") })
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan int, 1)
	got := make(chan error, 1)
	go func() {
		rel, err := b.LockActions(ctx, func(pid int) { waited <- pid })
		if err == nil {
			rel()
		}
		got <- err
	}()
	if pid := <-waited; pid != os.Getpid() {
		t.Errorf("waited for pid %d, want %d", pid, os.Getpid())
	}
	again()
	select {
	case err := <-got:
		t.Fatalf("b went while a still acted: %v", err)
	default:
	}
	release()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
}

// A record line a crash cut does not swallow the next record.
func TestRecordAfterTornLine(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, map[string]string{"a.txt": "a\n"})
	s := open(t, ws, Options{})
	f, err := os.OpenFile(s.records.path, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"id":"cut","kind":"action","lab`)
	f.Close()
	r := action(t, s, Info{Label: "write"}, func() { write(t, ws, map[string]string{"a.txt": "b\n"}) })
	rs, err := s.Records()
	if err != nil || len(rs) != 1 || rs[0].ID != r.ID {
		t.Fatalf("records %v, %v; want the new one", rs, err)
	}
}

// Setting every path that differs between two snapshots to its entry in
// the first one gives back the first tree, folders made, removed and
// swapped for files included.
func TestEditGivesBackTheTree(t *testing.T) {
	for _, tc := range []struct {
		name          string
		before, after func(ws string)
	}{
		{"files", func(ws string) { write(t, ws, map[string]string{"a.txt": "a", "b.txt": "b"}) },
			func(ws string) {
				write(t, ws, map[string]string{"a.txt": "A", "c.txt": "c"})
				os.Remove(filepath.Join(ws, "b.txt"))
			}},
		{"new nested folder", func(ws string) { write(t, ws, map[string]string{"a.txt": "a"}) },
			func(ws string) { write(t, ws, map[string]string{"x/y/z.txt": "z", "x/w.txt": "w"}) }},
		{"folder removed", func(ws string) { write(t, ws, map[string]string{"x/y/z.txt": "z", "x/keep.txt": "k"}) },
			func(ws string) { os.RemoveAll(filepath.Join(ws, "x", "y")) }},
		{"file swapped for a folder", func(ws string) { write(t, ws, map[string]string{"d": "file"}) },
			func(ws string) { os.Remove(filepath.Join(ws, "d")); write(t, ws, map[string]string{"d/in.txt": "in"}) }},
		{"modes", func(ws string) { write(t, ws, map[string]string{"x/run.sh": "#!/bin/sh\n"}) },
			func(ws string) {
				os.Chmod(filepath.Join(ws, "x", "run.sh"), 0o755)
				os.Chmod(filepath.Join(ws, "x"), 0o700)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			s := open(t, ws, Options{})
			tc.before(ws)
			a := snap(t, s)
			tc.after(ws)
			b := snap(t, s)
			var ps []pair
			if err := s.obj.diffTrees("", a.Root, b.Root, &ps); err != nil {
				t.Fatal(err)
			}
			if len(ps) == 0 {
				t.Fatal("the case changed nothing")
			}
			set := map[string]*File{}
			for _, p := range mergePairs(ps) {
				set[p.path] = p.old
			}
			got, err := s.obj.edit(b.Root, set)
			if err != nil {
				t.Fatal(err)
			}
			if got != a.Root {
				var left []pair
				_ = s.obj.diffTrees("", a.Root, got, &left)
				t.Fatalf("edit gave a different tree; it differs from the first in %v", left)
			}
		})
	}
}
