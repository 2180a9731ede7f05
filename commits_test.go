package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// scripts/check-commits.sh, run by make lint, on a repository built here:
// only non-merge commits after the base commit count, length is in
// characters, and a clone without that commit is skipped, not failed. The
// default base is in this repository's history, so the check runs here.
func TestCheckCommits(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed: %v", err)
	}
	script, err := filepath.Abs("scripts/check-commits.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	commit := func(subject string) string {
		t.Helper()
		git("commit", "-q", "--allow-empty", "-m", subject+"\n\nthe body may be as long as it likes "+strings.Repeat("x", 100))
		return git("rev-parse", "--short", "HEAD")
	}
	check := func(args ...string) (string, bool) {
		t.Helper()
		cmd := exec.Command("bash", append([]string{script}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if _, exit := err.(*exec.ExitError); err != nil && !exit {
			t.Fatalf("run %s: %v", script, err)
		}
		return string(out), err == nil
	}
	long := func(n int) string { return "x: " + strings.Repeat("→", n-3) }

	git("init", "-q", "-b", "main")
	commit(long(90)) // before the base: history is left alone
	if out, ok := check(); !ok || !strings.Contains(out, "is not in this clone") {
		t.Fatalf("without the default base commit: ok=%v, output %q; want a skip with a note", ok, out)
	}
	base := git("rev-parse", "HEAD")
	commit(long(72)) // 72 characters, 214 bytes
	if out, ok := check(base); !ok {
		t.Fatalf("a 72-character subject failed the check:\n%s", out)
	}

	git("checkout", "-q", "-b", "side")
	commit("side: fine")
	git("checkout", "-q", "main")
	git("merge", "-q", "--no-ff", "-m", "Merge "+strings.Repeat("m", 80), "side") // merges are not checked
	if out, ok := check(base); !ok {
		t.Fatalf("a long merge subject failed the check:\n%s", out)
	}

	hash := commit(long(73))
	out, ok := check(base)
	if ok || !strings.Contains(out, hash+": subject is 73 characters") || strings.Count(out, "subject is") != 1 {
		t.Fatalf("a 73-character subject: ok=%v, output:\n%s\nwant a failure naming %s and its length, and nothing else", ok, out, hash)
	}
}

// The default base commit is in this repository, so make lint checks here
// and in every full clone instead of skipping.
func TestCheckCommitsBaseIsHere(t *testing.T) {
	if out, _ := exec.Command("git", "rev-parse", "--is-shallow-repository").Output(); strings.TrimSpace(string(out)) == "true" {
		t.Skip("a shallow clone may lack the base commit")
	}
	out, err := exec.Command("bash", "scripts/check-commits.sh").CombinedOutput()
	if err != nil || strings.Contains(string(out), "not checked") {
		t.Fatalf("scripts/check-commits.sh in this repository: %v\n%s", err, out)
	}
}
