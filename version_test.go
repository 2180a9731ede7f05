package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// scripts/version.sh, make's VERSION, on repositories built here: the
// release in VERSION on the commit that set it, +gitN.HASH after it, no
// tags involved, a shallow clone that lacks the VERSION commit, a dirty
// tree, and a tree outside git.
func TestVersionScript(t *testing.T) {
	script, err := filepath.Abs("scripts/version.sh")
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	run := func(dir, name string, args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	git := func(dir string, args ...string) string {
		t.Helper()
		out, err := run(dir, "git", args...)
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	version := func(dir string) string {
		t.Helper()
		out, err := run(dir, "bash", script, dir)
		if err != nil {
			t.Fatalf("version.sh in %s: %v\n%s", dir, err, out)
		}
		if ok, _ := exec.Command("dpkg", "--validate-version", out).CombinedOutput(); len(ok) != 0 {
			t.Errorf("%q is not a Debian version: %s", out, ok)
		}
		return out
	}
	write := func(dir, name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	dir := t.TempDir()
	write(dir, "VERSION", "0.3.0\n")
	if got := version(dir); got != "0.3.0" {
		t.Errorf("outside git: %q, want 0.3.0", got)
	}
	git(dir, "init", "-q", "-b", "main")
	write(dir, "a", "1")
	git(dir, "add", "a")
	git(dir, "commit", "-q", "-m", "before the release")
	git(dir, "add", "VERSION")
	git(dir, "commit", "-q", "-m", "release 0.3.0")
	if got := version(dir); got != "0.3.0" {
		t.Errorf("on the VERSION commit: %q, want 0.3.0", got)
	}
	git(dir, "tag", "v9.9.9") // tags are not read
	for i := range 3 {
		write(dir, "a", strings.Repeat("x", i+2))
		git(dir, "commit", "-q", "-am", "work")
	}
	head := git(dir, "rev-parse", "--short=7", "HEAD")
	if got, want := version(dir), "0.3.0+git3."+head; got != want {
		t.Errorf("three commits on: %q, want %q", got, want)
	}
	write(dir, "a", "changed")
	if got, want := version(dir), "0.3.0+git3."+head+".dirty"; got != want {
		t.Errorf("with a change: %q, want %q", got, want)
	}
	git(dir, "checkout", "-q", "a")

	clone := filepath.Join(t.TempDir(), "clone")
	git(dir, "clone", "-q", "--no-tags", "file://"+dir, clone)
	if got, want := version(clone), "0.3.0+git3."+head; got != want {
		t.Errorf("a clone without tags: %q, want %q", got, want)
	}
	shallow := filepath.Join(t.TempDir(), "shallow")
	git(dir, "clone", "-q", "--depth", "1", "file://"+dir, shallow)
	if got, want := version(shallow), "0.3.0+git."+head; got != want {
		t.Errorf("a shallow clone without the VERSION commit: %q, want %q", got, want)
	}

	write(dir, "VERSION", "v0.4\n")
	if out, err := run(dir, "bash", script, dir); err == nil || !regexp.MustCompile(`VERSION holds 'v0.4', want a release like 0.3.0`).MatchString(out) {
		t.Errorf("a malformed VERSION: %v, %q; want an error naming it", err, out)
	}
}
