//go:build unix

package worktree

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The crash helper: the test binary run again as a process that creates or
// merges a worktree through a git that stops where the test wants, to be
// killed there with SIGKILL.
func TestMain(m *testing.M) {
	if op := os.Getenv("WT_CRASH_OP"); op != "" {
		os.Exit(crashHelper(op))
	}
	os.Exit(m.Run())
}

func crashHelper(op string) int {
	ctx := context.Background()
	m := &Manager{Root: os.Getenv("WT_ROOT"), Git: os.Getenv("WT_GIT")}
	repo := os.Getenv("WT_REPO")
	var err error
	switch op {
	case "create":
		_, err = m.Create(ctx, repo, "crash", CreateOptions{})
	case "merge":
		var mf *Manifest
		if mf, err = m.Open(ctx, repo, "crash"); err == nil {
			_, err = m.Merge(ctx, mf, false)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// stoppingGit writes a git that, for the command whose arguments contain
// trigger, tells the test it got there (by opening the fifo ready) and
// waits for ever: before running the real git, after it, or half-way
// through a merge's checkout (the files changed, HEAD not moved, git's
// index lock left).
func stoppingGit(t *testing.T, trigger, when string) (git, ready string) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	ready = filepath.Join(dir, "ready")
	hold := filepath.Join(dir, "hold")
	for _, f := range []string{ready, hold} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	stop := fmt.Sprintf("echo stopped > %q; read x < %q", ready, hold)
	var body string
	switch when {
	case "before":
		body = stop + "\nexec " + fmt.Sprintf("%q", real) + ` "$@"`
	case "after":
		body = fmt.Sprintf("%q \"$@\" || exit $?\n", real) + stop
	case "midway":
		body = `for a; do last=$a; done
` + fmt.Sprintf("%q", real) + ` -C "$WT_REPO" read-tree -u -m HEAD "$last" || exit 1
: > "$WT_REPO/.git/index.lock"
` + stop
	}
	script := fmt.Sprintf("#!/bin/sh\ncase \" $* \" in\n*\" %s \"*)\n%s\n;;\nesac\nexec %q \"$@\"\n", trigger, body, real)
	git = filepath.Join(dir, "git")
	if err := os.WriteFile(git, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return git, ready
}

// killWhenStopped runs the helper for op and kills it, and its git, with
// SIGKILL once git has stopped.
func killWhenStopped(t *testing.T, op, repo string, m *Manager, git, ready string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "WT_CRASH_OP="+op, "WT_ROOT="+m.Root, "WT_GIT="+git, "WT_REPO="+repo)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := make(chan error, 1)
	go func() {
		f, err := os.Open(ready) // blocks until git has stopped
		if err == nil {
			f.Close()
		}
		stopped <- err
	}()
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatal(err)
		}
	case err := <-exited:
		// Unblock the reader of the fifo.
		if w, oerr := os.OpenFile(ready, os.O_WRONLY|os.O_APPEND, 0); oerr == nil {
			w.Close()
		}
		t.Fatalf("the helper ended before git stopped: %v\n%s", err, stderr.String())
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
}

func TestAKillDuringWorktreeAddIsTakenBackAtTheNextStart(t *testing.T) {
	for _, when := range []string{"before", "after"} {
		t.Run("kill "+when+" git worktree add", func(t *testing.T) {
			repo, m := newRepo(t)
			ctx := context.Background()
			git, ready := stoppingGit(t, "worktree add", when)
			killWhenStopped(t, "create", repo, m, git, ready)

			rec, err := m.Recover(ctx, repo)
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.Undone) != 1 || rec.Undone[0] != "crash" {
				t.Errorf("Recover: %+v", rec)
			}
			path := filepath.Join(m.dir(repo), "crash")
			if _, err := os.Lstat(path); err == nil {
				t.Errorf("the unfinished worktree %s is left", path)
			}
			if out := gitT(t, repo, "branch", "--list", "freeact/crash"); out != "" {
				t.Errorf("the branch is left: %q", out)
			}
			if out := gitT(t, repo, "worktree", "list"); strings.Contains(out, path) {
				t.Errorf("git still lists it:\n%s", out)
			}
			if _, err := m.Create(ctx, repo, "crash", CreateOptions{}); err != nil {
				t.Fatalf("the name is not free again: %v", err)
			}
		})
	}
}

func TestAKillDuringAMergeIsSettledOrRolledBackAtTheNextStart(t *testing.T) {
	cases := []struct {
		when       string
		atNew      bool
		halfway    bool
		reportHas  string
		wantFileIn bool
	}{
		{when: "before", reportHas: "before it changed anything"},
		{when: "after", atNew: true, reportHas: "had finished", wantFileIn: true},
		{when: "midway", halfway: true},
	}
	for _, c := range cases {
		t.Run("kill "+c.when+" the fast-forward", func(t *testing.T) {
			repo, m := newRepo(t)
			ctx := context.Background()
			mf, err := m.Create(ctx, repo, "crash", CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(mf.Path, "feature.txt"), "f\n")
			if err := m.Commit(ctx, mf, "feature"); err != nil {
				t.Fatal(err)
			}
			old := gitT(t, repo, "rev-parse", "HEAD")
			git, ready := stoppingGit(t, "merge --ff-only", c.when)
			killWhenStopped(t, "merge", repo, m, git, ready)

			rec, err := m.Recover(ctx, repo)
			if c.halfway {
				if !IsKind(err, Interrupted) || !strings.Contains(err.Error(), "roll it back") {
					t.Fatalf("Recover of a half-way merge: %v", err)
				}
				if _, err := m.Open(ctx, repo, "crash"); !IsKind(err, Interrupted) {
					t.Errorf("Open goes on past a half-way merge: %v", err)
				}
				if err := m.RollBack(ctx, repo, "crash"); err != nil {
					t.Fatal(err)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if len(rec.Merges) != 1 || !strings.Contains(rec.Merges[0], c.reportHas) {
					t.Errorf("Recover: %+v, want %q", rec, c.reportHas)
				}
			}
			head := gitT(t, repo, "rev-parse", "HEAD")
			if (head != old) != c.atNew {
				t.Errorf("HEAD %s (old %s), want at new %v", head, old, c.atNew)
			}
			if st := gitT(t, repo, "status", "--porcelain"); st != "" {
				t.Errorf("the main checkout is not clean: %q", st)
			}
			_, err = os.Stat(filepath.Join(repo, "feature.txt"))
			if (err == nil) != c.wantFileIn {
				t.Errorf("feature.txt in the main checkout: %v, want %v", err == nil, c.wantFileIn)
			}
			if !c.atNew {
				if _, err := m.Merge(ctx, mf, false); err != nil {
					t.Fatalf("merging again: %v", err)
				}
			}
		})
	}
}
