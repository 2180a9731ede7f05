package worktree

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ignoredSetup is a worktree with .env and keep.local copied in by
// .worktreeinclude, the .env then edited, a new ignored file, an ignored
// folder of three files, and a node_modules/ of many files.
func ignoredSetup(t *testing.T) (string, *Manager, *Manifest) {
	t.Helper()
	ctx := context.Background()
	repo, m := newRepo(t)
	write(t, filepath.Join(repo, ".gitignore"), ".env\n*.local\nbuild/\nnode_modules/\ndata/\n")
	write(t, filepath.Join(repo, ".worktreeinclude"), ".env\n*.local\n")
	gitT(t, repo, "add", "-A")
	gitT(t, repo, "commit", "-q", "-m", "ignore")
	write(t, filepath.Join(repo, ".env"), "KEY=main\n")
	write(t, filepath.Join(repo, "keep.local"), "unchanged\n")
	mf, err := m.Create(ctx, repo, "ign", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(mf.Copied, ".env") || !slices.Contains(mf.Copied, "keep.local") {
		t.Fatalf("copied %v, want .env and keep.local", mf.Copied)
	}
	write(t, filepath.Join(mf.Path, ".env"), "KEY=edited in the worktree\n")
	write(t, filepath.Join(mf.Path, "notes.local"), "results\n")
	for i := range 3 {
		write(t, filepath.Join(mf.Path, "data", fmt.Sprintf("d%d.csv", i)), "x\n")
	}
	for i := range 200 {
		write(t, filepath.Join(mf.Path, "node_modules", "pkg", fmt.Sprintf("f%03d.js", i)), "x\n")
	}
	return repo, m, mf
}

var wantIgnored = []string{
	".env (ignored)",
	"data/d0.csv (ignored)",
	"data/d1.csv (ignored)",
	"data/d2.csv (ignored)",
	"node_modules/ (200 files, ignored)",
	"notes.local (ignored)",
}

func TestRemoveListsIgnoredFilesThatMayHoldWork(t *testing.T) {
	ctx := context.Background()
	t.Run("refused, listing the edited copy and new ignored files, not the unchanged copy", func(t *testing.T) {
		_, m, mf := ignoredSetup(t)
		_, err := m.Remove(ctx, mf, RemoveOptions{})
		var e *Error
		if !asError(err, &e) || e.Kind != Unsaved {
			t.Fatalf("Remove: %v, want refused as unsaved work", err)
		}
		if !slices.Equal(sorted(e.Files), wantIgnored) {
			t.Errorf("listed %q, want %q", e.Files, wantIgnored)
		}
		if read(t, filepath.Join(mf.Path, ".env")) != "KEY=edited in the worktree\n" {
			t.Error("the edited .env is gone")
		}
	})
	t.Run("commit never takes ignored files, and is refused while they are unconfirmed", func(t *testing.T) {
		_, m, mf := ignoredSetup(t)
		write(t, filepath.Join(mf.Path, "a.txt"), "changed\n")
		_, err := m.Remove(ctx, mf, RemoveOptions{Commit: true})
		var e *Error
		if !asError(err, &e) || e.Kind != Unsaved || !slices.Equal(sorted(e.Files), wantIgnored) {
			t.Fatalf("Remove with commit: %v, want refused listing the ignored files", err)
		}
		if _, err := os.Stat(filepath.Join(mf.Path, "notes.local")); err != nil {
			t.Fatal("an ignored file went")
		}
		res, err := m.Remove(ctx, mf, RemoveOptions{Commit: true, Discard: true, Confirmed: e.Files})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Committed || !slices.Equal(sorted(res.Discarded), wantIgnored) {
			t.Errorf("%+v: want committed, and the ignored ones discarded", res)
		}
		tree := strings.Split(gitT(t, mf.Repo, "ls-tree", "-r", "--name-only", mf.Branch), "\n")
		if !slices.Contains(tree, "a.txt") || slices.Contains(tree, ".env") || slices.Contains(tree, "notes.local") {
			t.Errorf("the branch holds %q: want a.txt and no ignored file", tree)
		}
	})
	t.Run("deleted only after the confirmation of that list", func(t *testing.T) {
		_, m, mf := ignoredSetup(t)
		stale := slices.DeleteFunc(slices.Clone(wantIgnored), func(s string) bool { return s == ".env (ignored)" })
		_, err := m.Remove(ctx, mf, RemoveOptions{Discard: true, Confirmed: stale})
		if !IsKind(err, Changed) {
			t.Fatalf("discard without the edited .env confirmed: %v", err)
		}
		if _, err := os.Stat(filepath.Join(mf.Path, ".env")); err != nil {
			t.Fatal("deleted on a stale confirmation")
		}
		res, err := m.Remove(ctx, mf, RemoveOptions{Discard: true, Confirmed: wantIgnored})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(sorted(res.Discarded), wantIgnored) {
			t.Errorf("discarded %q", res.Discarded)
		}
		if _, err := os.Stat(mf.Path); err == nil {
			t.Error("the folder is still there")
		}
	})
	t.Run("unchanged copies and an emptied ignored folder do not hold the removal", func(t *testing.T) {
		repo, m, mf := ignoredSetup(t)
		for _, p := range []string{".env", "notes.local", "data", "node_modules"} {
			if err := os.RemoveAll(filepath.Join(mf.Path, p)); err != nil {
				t.Fatal(err)
			}
		}
		write(t, filepath.Join(mf.Path, ".env"), read(t, filepath.Join(repo, ".env")))
		if err := os.MkdirAll(filepath.Join(mf.Path, "data"), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Remove(ctx, mf, RemoveOptions{}); err != nil {
			t.Fatalf("Remove of a worktree with only unchanged copies: %v", err)
		}
	})
}

func TestAnIgnoredFolderOfFewFilesListsThemAndOfManyIsOneLine(t *testing.T) {
	_, m, mf := ignoredSetup(t)
	for i := range summariseOver - 3 {
		write(t, filepath.Join(mf.Path, "data", fmt.Sprintf("e%02d.csv", i)), "x\n")
	}
	got, err := m.Ignored(context.Background(), mf)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got); n != summariseOver+3 { // data's 20, .env, notes.local, node_modules/
		t.Fatalf("%d entries %q, want data's %d files one by one", n, got, summariseOver)
	}
	write(t, filepath.Join(mf.Path, "data", "one-more.csv"), "x\n")
	got, err = m.Ignored(context.Background(), mf)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".env (ignored)", fmt.Sprintf("data/ (%d files, ignored)", summariseOver+1), "node_modules/ (200 files, ignored)", "notes.local (ignored)"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, e := range got {
		if !IsIgnoredEntry(e) {
			t.Errorf("%q is not marked ignored", e)
		}
	}
}

// In the app's own .freeact folder, a copy .worktreeinclude made and the
// worktree changed is listed; the settings copied in and the sessions
// are the app's, not listed.
func TestAChangedCopyInTheAppsOwnFolderIsListed(t *testing.T) {
	ctx := context.Background()
	repo, m := newRepo(t)
	write(t, filepath.Join(repo, ".gitignore"), ".freeact/\n")
	write(t, filepath.Join(repo, ".worktreeinclude"), ".freeact/.env\n")
	gitT(t, repo, "add", "-A")
	gitT(t, repo, "commit", "-q", "-m", "ignore")
	write(t, filepath.Join(repo, ".freeact", ".env"), "KEY=main\n")
	write(t, filepath.Join(repo, ".freeact", "agent.json"), "{}\n")
	mf, err := m.Create(ctx, repo, "own", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(mf.Path, ".freeact", "agent.json"), `{"changed": true}`+"\n")
	write(t, filepath.Join(mf.Path, ".freeact", "sessions", "s1", "log.jsonl"), "{}\n")
	if got, err := m.Ignored(ctx, mf); err != nil || len(got) != 0 {
		t.Fatalf("Ignored with the copy unchanged: %q, %v", got, err)
	}
	write(t, filepath.Join(mf.Path, ".freeact", ".env"), "KEY=edited\n")
	got, err := m.Ignored(ctx, mf)
	if err != nil || !slices.Equal(got, []string{".freeact/.env (ignored)"}) {
		t.Fatalf("Ignored: %q, %v", got, err)
	}
}
