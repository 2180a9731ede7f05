package worktree

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitT runs git in dir for a test's setup, with an identity of its own.
func gitT(t testing.TB, dir string, args ...string) string {
	t.Helper()
	full := append([]string{"-c", "user.name=Test", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", "-C", dir}, args...)
	cmd := exec.Command("git", full...)
	cmd.Env = gitEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// newRepo is a repository on main with one commit of a.txt, and a
// manager whose data folder is elsewhere.
func newRepo(t testing.TB) (string, *Manager) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("GIT_AUTHOR_NAME", "Test")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Test")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@example.com")
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	gitT(t, repo, "init", "-q")
	write(t, filepath.Join(repo, "a.txt"), "one\n")
	write(t, filepath.Join(repo, ".gitignore"), ".env\n*.local\nbuild/\n")
	gitT(t, repo, "add", "-A")
	gitT(t, repo, "commit", "-q", "-m", "init")
	return repo, New(filepath.Join(base, "data"))
}

func TestCreateMakesABranchBelowTheDataFolderAndRecordsItsBase(t *testing.T) {
	repo, m := newRepo(t)
	ctx := context.Background()
	base := gitT(t, repo, "rev-parse", "HEAD")
	mf, err := m.Create(ctx, repo, "fix-a", CreateOptions{ConversationID: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(mf.Path, m.Root+string(filepath.Separator)) || strings.HasPrefix(mf.Path, repo) {
		t.Errorf("worktree at %s, want below %s and not in the repository", mf.Path, m.Root)
	}
	if mf.Branch != "freeact/fix-a" || mf.BaseBranch != "main" || mf.BaseCommit != base || mf.ConversationID != "c1" || mf.State != Ready {
		t.Errorf("manifest %+v", mf)
	}
	if got := read(t, filepath.Join(mf.Path, "a.txt")); got != "one\n" {
		t.Errorf("a.txt in the worktree: %q", got)
	}
	if got := gitT(t, mf.Path, "symbolic-ref", "--short", "HEAD"); got != "freeact/fix-a" {
		t.Errorf("worktree on %s", got)
	}
	again, err := m.Open(ctx, repo, "fix-a")
	if err != nil || again.BaseCommit != base || again.ConversationID != "c1" {
		t.Fatalf("Open: %+v, %v", again, err)
	}
	list, err := m.List(ctx, repo)
	if err != nil || len(list) != 1 || list[0].Name != "fix-a" || list[0].Missing {
		t.Fatalf("List: %+v, %v", list, err)
	}
}

func TestCreateCopiesOnlyIgnoredFilesWorktreeincludeListsWithoutFollowingLinks(t *testing.T) {
	repo, m := newRepo(t)
	ctx := context.Background()
	outside := filepath.Join(t.TempDir(), "secret")
	write(t, outside, "outside\n")
	write(t, filepath.Join(repo, ".worktreeinclude"), "# copied\n*.local\nbuild/keep.txt\nuntracked.txt\n")
	write(t, filepath.Join(repo, "config.local"), "local\n")
	write(t, filepath.Join(repo, ".env"), "KEY=1\n")             // ignored, not listed
	write(t, filepath.Join(repo, "build", "keep.txt"), "keep\n") // ignored, listed
	write(t, filepath.Join(repo, "build", "other.txt"), "other\n")
	write(t, filepath.Join(repo, "untracked.txt"), "untracked\n") // listed, not ignored
	if err := os.Symlink(outside, filepath.Join(repo, "link.local")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(repo, ".freeact", "agent.json"), "{}\n")
	write(t, filepath.Join(repo, ".freeact", "sessions", "s", "main.jsonl"), "{}\n")
	gitT(t, repo, "add", ".worktreeinclude")
	gitT(t, repo, "commit", "-q", "-m", "include")

	mf, err := m.Create(ctx, repo, "inc", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"config.local", "build/keep.txt", ".freeact/agent.json"} {
		if !slices.Contains(mf.Copied, want) {
			t.Errorf("%s not copied: %v", want, mf.Copied)
		}
	}
	for _, absent := range []string{".env", "build/other.txt", "untracked.txt", "link.local", ".freeact/sessions/s/main.jsonl"} {
		if _, err := os.Lstat(filepath.Join(mf.Path, absent)); err == nil {
			t.Errorf("%s was copied", absent)
		}
	}
	if !slices.ContainsFunc(mf.Skipped, func(s string) bool { return strings.HasPrefix(s, "link.local ") }) {
		t.Errorf("the link is not reported skipped: %v", mf.Skipped)
	}

	// .env is copied when listed.
	write(t, filepath.Join(repo, ".worktreeinclude"), ".env\n")
	gitT(t, repo, "commit", "-q", "-am", "env")
	mf2, err := m.Create(ctx, repo, "env", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(mf2.Path, ".env")); got != "KEY=1\n" {
		t.Errorf(".env listed: %q", got)
	}
}

func TestCreateNeverWritesThroughALinkCheckedOutInTheRepository(t *testing.T) {
	repo, m := newRepo(t)
	outside := t.TempDir()
	// The repository holds a link "conf" to a folder outside; the ignored
	// file conf/x.local listed in .worktreeinclude would land outside if
	// the copy followed it.
	if err := os.Symlink(outside, filepath.Join(repo, "conf")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(repo, ".worktreeinclude"), "*.local\n")
	gitT(t, repo, "add", "conf", ".worktreeinclude")
	gitT(t, repo, "commit", "-q", "-m", "link")
	// The main checkout has since put a real folder there (uncommitted),
	// with an ignored file the worktree's copy would write through the
	// link it checks out.
	if err := os.Remove(filepath.Join(repo, "conf")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(repo, "conf", "x.local"), "x\n")
	write(t, filepath.Join(repo, "sub", "y.local"), "y\n")
	mf, err := m.Create(context.Background(), repo, "links", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 0 {
		t.Errorf("something was written outside through the link: %v", entries)
	}
	if got := read(t, filepath.Join(mf.Path, "sub", "y.local")); got != "y\n" {
		t.Errorf("sub/y.local: %q", got)
	}
	if !slices.ContainsFunc(mf.Skipped, func(s string) bool { return strings.HasPrefix(s, "conf/x.local ") }) {
		t.Errorf("conf/x.local not reported skipped: %v", mf.Skipped)
	}
}

func TestErrorsSayWhatIsWrongAndOfferAFix(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name  string
		setup func(t *testing.T) (string, *Manager, string)
		kind  Kind
		offer string
	}{
		{"not a repository", func(t *testing.T) (string, *Manager, string) {
			_, m := newRepo(t)
			return t.TempDir(), m, "a"
		}, NotRepo, "git init"},
		{"git missing", func(t *testing.T) (string, *Manager, string) {
			repo, m := newRepo(t)
			m.Git = filepath.Join(t.TempDir(), "no-git")
			return repo, m, "a"
		}, GitMissing, "install git"},
		{"detached head", func(t *testing.T) (string, *Manager, string) {
			repo, m := newRepo(t)
			gitT(t, repo, "checkout", "-q", "--detach")
			return repo, m, "a"
		}, Detached, "git switch"},
		{"branch name taken", func(t *testing.T) (string, *Manager, string) {
			repo, m := newRepo(t)
			gitT(t, repo, "branch", "freeact/a")
			return repo, m, "a"
		}, BranchTaken, "pick another name"},
		{"bad name", func(t *testing.T) (string, *Manager, string) {
			repo, m := newRepo(t)
			return repo, m, "../x"
		}, BadName, "letters, digits"},
		{"name of an existing worktree", func(t *testing.T) (string, *Manager, string) {
			repo, m := newRepo(t)
			if _, err := m.Create(ctx, repo, "a", CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			return repo, m, "a"
		}, Exists, "continue in it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			repo, m, name := c.setup(t)
			_, err := m.Create(ctx, repo, name, CreateOptions{})
			var e *Error
			if !asError(err, &e) || e.Kind != c.kind {
				t.Fatalf("Create: %v, want kind %s", err, c.kind)
			}
			if !strings.Contains(e.Offer, c.offer) {
				t.Errorf("offer %q lacks %q", e.Offer, c.offer)
			}
			if c.kind == BranchTaken && e.Suggest != "a-2" {
				t.Errorf("suggested %q, want a-2", e.Suggest)
			}
		})
	}
}

func asError(err error, e **Error) bool {
	if err == nil {
		return false
	}
	return errors.As(err, e)
}

func TestReviewShowsCommittedUncommittedAndUntrackedAgainstTheBase(t *testing.T) {
	repo, m := newRepo(t)
	ctx := context.Background()
	mf, err := m.Create(ctx, repo, "rev", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(mf.Path, "committed.txt"), "c\n")
	gitT(t, mf.Path, "add", "committed.txt")
	gitT(t, mf.Path, "commit", "-q", "-m", "c")
	write(t, filepath.Join(mf.Path, "a.txt"), "two\n")
	write(t, filepath.Join(mf.Path, "new.txt"), "n\n")
	write(t, filepath.Join(mf.Path, "x.local"), "ignored\n")
	// The main checkout moves on: the review is against the start.
	write(t, filepath.Join(repo, "main.txt"), "m\n")
	gitT(t, repo, "add", "main.txt")
	gitT(t, repo, "commit", "-q", "-m", "main moves")
	statusBefore := gitT(t, mf.Path, "status", "--porcelain")

	rv, err := m.Review(ctx, mf)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range rv.Files {
		got[f.Path] = f.Status
	}
	want := map[string]string{"committed.txt": "A", "a.txt": "M", "new.txt": "A"}
	if len(got) != len(want) {
		t.Errorf("files %v, want %v", got, want)
	}
	for p, s := range want {
		if got[p] != s {
			t.Errorf("%s: %q, want %q", p, got[p], s)
		}
	}
	if !strings.Contains(rv.Patch(), "-one\n+two\n") || !strings.Contains(rv.Patch(), "+n\n") {
		t.Errorf("patch:\n%s", rv.Patch())
	}
	if len(rv.Uncommitted) != 2 {
		t.Errorf("uncommitted %v", rv.Uncommitted)
	}
	if after := gitT(t, mf.Path, "status", "--porcelain"); after != statusBefore {
		t.Errorf("the review changed the worktree's index: %q → %q", statusBefore, after)
	}
}

func TestMergeAndSquashBringTheBranchIntoTheBase(t *testing.T) {
	for _, squash := range []bool{false, true} {
		name := map[bool]string{false: "merge", true: "squash"}[squash]
		t.Run(name, func(t *testing.T) {
			repo, m := newRepo(t)
			ctx := context.Background()
			mf, err := m.Create(ctx, repo, name, CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(mf.Path, "feature.txt"), "f\n")
			if err := m.Commit(ctx, mf, "feature"); err != nil {
				t.Fatal(err)
			}
			// The base moves on, without conflict.
			write(t, filepath.Join(repo, "other.txt"), "o\n")
			gitT(t, repo, "add", "other.txt")
			gitT(t, repo, "commit", "-q", "-m", "other")
			res, err := m.Merge(ctx, mf, squash)
			if err != nil {
				t.Fatal(err)
			}
			if got := read(t, filepath.Join(repo, "feature.txt")); got != "f\n" {
				t.Errorf("feature.txt in the main checkout: %q", got)
			}
			if got := gitT(t, repo, "rev-parse", "HEAD"); got != res.Commit {
				t.Errorf("HEAD %s, merge %s", got, res.Commit)
			}
			parents := strings.Fields(gitT(t, repo, "log", "-1", "--format=%P"))
			if want := map[bool]int{false: 2, true: 1}[squash]; len(parents) != want {
				t.Errorf("%d parents, want %d", len(parents), want)
			}
			if st := gitT(t, repo, "status", "--porcelain"); st != "" {
				t.Errorf("main checkout not clean: %q", st)
			}
		})
	}
}

func TestMergeConflictListsTheFilesAndChangesNothing(t *testing.T) {
	repo, m := newRepo(t)
	ctx := context.Background()
	mf, err := m.Create(ctx, repo, "conf", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(mf.Path, "a.txt"), "worktree\n")
	if err := m.Commit(ctx, mf, "w"); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(repo, "a.txt"), "main\n")
	gitT(t, repo, "commit", "-q", "-am", "m")
	head := gitT(t, repo, "rev-parse", "HEAD")
	_, err = m.Merge(ctx, mf, false)
	var e *Error
	if !asError(err, &e) || e.Kind != Conflict || !slices.Equal(e.Files, []string{"a.txt"}) {
		t.Fatalf("Merge: %v", err)
	}
	if got := gitT(t, repo, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved to %s", got)
	}
	if st := gitT(t, repo, "status", "--porcelain"); st != "" || read(t, filepath.Join(repo, "a.txt")) != "main\n" {
		t.Errorf("the main checkout changed: %q", st)
	}
}

func TestMergeRefusesWithAnOffer(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name  string
		setup func(t *testing.T, repo string, mf *Manifest)
		kind  Kind
		offer string
	}{
		{"main checkout dirty", func(t *testing.T, repo string, mf *Manifest) {
			write(t, filepath.Join(repo, "a.txt"), "dirty\n")
		}, DirtyMain, "git stash"},
		{"main checkout on another branch", func(t *testing.T, repo string, mf *Manifest) {
			gitT(t, repo, "switch", "-q", "-c", "other")
		}, NotOnBase, "git switch main"},
		{"worktree has uncommitted files", func(t *testing.T, repo string, mf *Manifest) {
			write(t, filepath.Join(mf.Path, "loose.txt"), "l\n")
		}, Unsaved, "commit them"},
		{"worktree folder deleted", func(t *testing.T, repo string, mf *Manifest) {
			if err := os.RemoveAll(mf.Path); err != nil {
				t.Fatal(err)
			}
		}, Missing, "git worktree prune"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			repo, m := newRepo(t)
			mf, err := m.Create(ctx, repo, "w", CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(mf.Path, "f.txt"), "f\n")
			if err := m.Commit(ctx, mf, "f"); err != nil {
				t.Fatal(err)
			}
			head := gitT(t, repo, "rev-parse", "HEAD")
			c.setup(t, repo, mf)
			_, err = m.Merge(ctx, mf, false)
			var e *Error
			if !asError(err, &e) || e.Kind != c.kind || !strings.Contains(e.Offer, c.offer) {
				t.Fatalf("Merge: %v, want %s offering %q", err, c.kind, c.offer)
			}
			if got := gitT(t, repo, "rev-parse", "HEAD"); got != head {
				t.Errorf("HEAD moved")
			}
		})
	}
}

func TestRemoveNeverLosesUncommittedOrUntrackedFiles(t *testing.T) {
	ctx := context.Background()
	setup := func(t *testing.T) (string, *Manager, *Manifest) {
		repo, m := newRepo(t)
		mf, err := m.Create(ctx, repo, "rm", CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(mf.Path, "untracked.txt"), "u\n")
		write(t, filepath.Join(mf.Path, "a.txt"), "changed\n")
		return repo, m, mf
	}
	t.Run("refused, listing the files, and kept", func(t *testing.T) {
		_, m, mf := setup(t)
		_, err := m.Remove(ctx, mf, RemoveOptions{})
		var e *Error
		if !asError(err, &e) || e.Kind != Unsaved || !slices.Equal(sorted(e.Files), []string{"a.txt", "untracked.txt"}) {
			t.Fatalf("Remove: %v", err)
		}
		if read(t, filepath.Join(mf.Path, "untracked.txt")) != "u\n" {
			t.Error("the untracked file is gone")
		}
	})
	t.Run("commit them to the branch first", func(t *testing.T) {
		repo, m, mf := setup(t)
		res, err := m.Remove(ctx, mf, RemoveOptions{Commit: true})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Committed || !res.BranchKept {
			t.Errorf("%+v: want committed and the branch kept", res)
		}
		if got := gitT(t, repo, "show", mf.Branch+":untracked.txt"); got != "u" {
			t.Errorf("untracked.txt on the branch: %q", got)
		}
		if _, err := os.Stat(mf.Path); err == nil {
			t.Error("the folder is still there")
		}
	})
	t.Run("discard needs the confirmed list", func(t *testing.T) {
		_, m, mf := setup(t)
		_, err := m.Remove(ctx, mf, RemoveOptions{Discard: true, Confirmed: []string{"a.txt"}})
		if !IsKind(err, Changed) {
			t.Fatalf("discard with a stale list: %v", err)
		}
		if _, err := os.Stat(filepath.Join(mf.Path, "untracked.txt")); err != nil {
			t.Fatal("deleted on a stale confirmation")
		}
		res, err := m.Remove(ctx, mf, RemoveOptions{Discard: true, Confirmed: []string{"untracked.txt", "a.txt"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Discarded) != 2 || res.BranchKept {
			t.Errorf("%+v: want two discarded and the (merged) branch deleted", res)
		}
		if _, err := os.Stat(mf.Path); err == nil {
			t.Error("the folder is still there")
		}
	})
	t.Run("a clean worktree with unmerged commits keeps its branch", func(t *testing.T) {
		repo, m, mf := setup(t)
		if err := m.Commit(ctx, mf, "work"); err != nil {
			t.Fatal(err)
		}
		res, err := m.Remove(ctx, mf, RemoveOptions{})
		if err != nil || !res.BranchKept {
			t.Fatalf("%+v, %v", res, err)
		}
		gitT(t, repo, "rev-parse", "--verify", "refs/heads/"+mf.Branch)
	})
}

func TestAFolderDeletedOutsideIsReportedNotRecreated(t *testing.T) {
	repo, m := newRepo(t)
	ctx := context.Background()
	mf, err := m.Create(ctx, repo, "gone", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(mf.Path); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Open(ctx, repo, "gone"); !IsKind(err, Missing) {
		t.Fatalf("Open: %v, want Missing", err)
	}
	if _, err := os.Stat(mf.Path); err == nil {
		t.Fatal("the folder was recreated")
	}
	list, _ := m.List(ctx, repo)
	if len(list) != 1 || !list[0].Missing {
		t.Fatalf("List: %+v", list)
	}
	res, err := m.Remove(ctx, mf, RemoveOptions{})
	if err != nil || !res.Pruned || !res.BranchKept {
		t.Fatalf("Remove: %+v, %v", res, err)
	}
	if out := gitT(t, repo, "worktree", "list", "--porcelain"); strings.Contains(out, mf.Path) {
		t.Errorf("git still lists it:\n%s", out)
	}
}

func TestTheAppsOwnFolderIsNotWorkButItsSessionsOutliveTheWorktree(t *testing.T) {
	repo, m := newRepo(t)
	ctx := context.Background()
	write(t, filepath.Join(repo, ".freeact", "agent.json"), "{}\n")
	mf, err := m.Create(ctx, repo, "own", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(mf.Path, ".freeact", "sessions", "s1", "main.jsonl"), "{\"a\":1}\n")
	write(t, filepath.Join(mf.Path, "work.txt"), "w\n")
	cs, err := m.Uncommitted(ctx, mf)
	if err != nil || len(cs) != 1 || cs[0].Path != "work.txt" {
		t.Fatalf("Uncommitted: %v, %v", cs, err)
	}
	res, err := m.Remove(ctx, mf, RemoveOptions{Commit: true})
	if err != nil {
		t.Fatal(err)
	}
	if out := gitT(t, repo, "ls-tree", "-r", "--name-only", mf.Branch); strings.Contains(out, ".freeact") {
		t.Errorf("the app's folder was committed:\n%s", out)
	}
	if !slices.Equal(res.SessionsKept, []string{"s1"}) || read(t, filepath.Join(repo, ".freeact", "sessions", "s1", "main.jsonl")) != "{\"a\":1}\n" {
		t.Errorf("the session was not kept: %+v", res)
	}
}

func TestCommitTakesFilesNamedLikePatternsAsThemselves(t *testing.T) {
	repo, m := newRepo(t)
	ctx := context.Background()
	write(t, filepath.Join(repo, ".gitignore"), ".freeact/\n")
	gitT(t, repo, "commit", "-q", "-am", "ignore .freeact")
	mf, err := m.Create(ctx, repo, "odd", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(mf.Path, "*.txt"), "star\n")
	write(t, filepath.Join(mf.Path, "b.txt"), "b\n")
	write(t, filepath.Join(mf.Path, ".freeact", "sessions", "s", "main.jsonl"), "{}\n")
	if err := m.Commit(ctx, mf, "odd"); err != nil {
		t.Fatal(err)
	}
	cs, err := m.Uncommitted(ctx, mf)
	if err != nil || len(cs) != 0 {
		t.Fatalf("left uncommitted: %v, %v", cs, err)
	}
	if got := gitT(t, repo, "ls-tree", "--name-only", mf.Branch); !strings.Contains(got, "*.txt") || !strings.Contains(got, "b.txt") {
		t.Errorf("branch holds:\n%s", got)
	}
}

func TestAWorktreeWhoseGitFilePointsElsewhereRunsNoGit(t *testing.T) {
	repo, m := newRepo(t)
	ctx := context.Background()
	mf, err := m.Create(ctx, repo, "tamper", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Code in the worktree makes a repository of its own whose config
	// names a clean filter, and points the worktree at it.
	evil := filepath.Join(t.TempDir(), "evil")
	gitT(t, t.TempDir(), "init", "-q", evil)
	ran := filepath.Join(t.TempDir(), "ran")
	gitT(t, evil, "config", "filter.x.clean", "touch "+ran+"; cat")
	write(t, filepath.Join(mf.Path, ".gitattributes"), "* filter=x\n")
	write(t, filepath.Join(mf.Path, "new.txt"), "n\n")
	write(t, filepath.Join(mf.Path, ".git"), "gitdir: "+filepath.Join(evil, ".git")+"\n")
	for name, op := range map[string]func() error{
		"review": func() error { _, err := m.Review(ctx, mf); return err },
		"commit": func() error { return m.Commit(ctx, mf, "x") },
		"merge":  func() error { _, err := m.Merge(ctx, mf, false); return err },
		"remove": func() error { _, err := m.Remove(ctx, mf, RemoveOptions{Commit: true}); return err },
	} {
		if err := op(); !IsKind(err, Tampered) {
			t.Errorf("%s: %v, want %s", name, err, Tampered)
		}
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the planted filter ran")
	}
	if _, err := os.Stat(mf.Path); err != nil {
		t.Error("the worktree was removed")
	}
}

func TestReviewGivesEachFileItsOwnPatchEvenAcrossATypeChange(t *testing.T) {
	repo, m := newRepo(t)
	ctx := context.Background()
	write(t, filepath.Join(repo, "b.txt"), "b\n")
	write(t, filepath.Join(repo, "c.txt"), "c\n")
	gitT(t, repo, "add", "-A")
	gitT(t, repo, "commit", "-q", "-m", "more")
	mf, err := m.Create(ctx, repo, "types", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(mf.Path, "a.txt"), "A\n")
	write(t, filepath.Join(mf.Path, "c.txt"), "C\n")
	rv, err := m.Review(ctx, mf)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rv.Files {
		if !strings.Contains(f.Patch, "a/"+f.Path) || strings.Count(f.Patch, "diff --git ") != 1 {
			t.Errorf("%s got the patch:\n%s", f.Path, f.Patch)
		}
	}
	// b.txt becomes a link: a type change, two patches for one name.
	if err := os.Remove(filepath.Join(mf.Path, "b.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(mf.Path, "b.txt")); err != nil {
		t.Fatal(err)
	}
	rv, err = m.Review(ctx, mf)
	if err != nil {
		t.Fatal(err)
	}
	if len(rv.Files) != 3 {
		t.Fatalf("files %+v", rv.Files)
	}
	for _, f := range rv.Files {
		if !strings.Contains(f.Patch, "a/"+f.Path) {
			t.Errorf("%s (%s) got the patch:\n%s", f.Path, f.Status, f.Patch)
		}
	}
}
