package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// safeConfig is given to every git command: the repository's hooks and
// file-system monitor (both run programs the repository's config names)
// are off, and nothing asks on a terminal.
var safeConfig = []string{
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.fsmonitor=false",
	"-c", "advice.detachedHead=false",
}

// keptEnv are the GIT_ variables passed on: who a commit is by. Every
// other GIT_ variable could point git at another repository, index,
// object store, configuration or program (GIT_DIR, GIT_WORK_TREE,
// GIT_INDEX_FILE, GIT_CONFIG_*, GIT_EXEC_PATH, GIT_SSH_COMMAND, ...).
var keptEnv = []string{
	"GIT_AUTHOR_NAME=", "GIT_AUTHOR_EMAIL=", "GIT_AUTHOR_DATE=",
	"GIT_COMMITTER_NAME=", "GIT_COMMITTER_EMAIL=", "GIT_COMMITTER_DATE=",
}

// gitEnv is the environment of a git command: the process's, without the
// GIT_ variables that redirect git, in the C locale, never prompting.
func gitEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") && !keep(kv) {
			continue
		}
		if strings.HasPrefix(kv, "LC_ALL=") || strings.HasPrefix(kv, "LANGUAGE=") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
	return append(env, extra...)
}

func keep(kv string) bool {
	for _, k := range keptEnv {
		if strings.HasPrefix(kv, k) {
			return true
		}
	}
	return false
}

// gitError is a git command that failed: its arguments and what it said.
type gitError struct {
	args   []string
	stderr string
	code   int
	err    error
}

func (e *gitError) Error() string {
	msg := strings.TrimSpace(e.stderr)
	if msg == "" {
		msg = e.err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.args, " "), msg)
}

func (e *gitError) Unwrap() error { return e.err }

// exitCode is the exit status of a failed git command, -1 if it did not
// exit.
func exitCode(err error) int {
	var g *gitError
	if errors.As(err, &g) {
		return g.code
	}
	return -1
}

// gitPath finds the git binary: m.Git, else git on PATH.
func (m *Manager) gitPath() (string, error) {
	name := m.Git
	if name == "" {
		name = "git"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", &Error{Kind: GitMissing,
			Msg:   "git is not installed (no git on PATH)",
			Offer: "install git (for example: sudo apt install git) and try again, or start the conversation without a worktree"}
	}
	return p, nil
}

// run runs git in dir with args (no shell) and returns its standard
// output. env adds variables (only ones this package sets itself).
func (m *Manager) run(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	return m.runIn(ctx, dir, "", env, args...)
}

// runIn is run with stdin as git's standard input.
func (m *Manager) runIn(ctx context.Context, dir, stdin string, env []string, args ...string) (string, error) {
	git, err := m.gitPath()
	if err != nil {
		return "", err
	}
	full := append(append([]string{}, safeConfig...), "-C", dir)
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, git, full...)
	cmd.Env = gitEnv(env...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Stdin = strings.NewReader(stdin)
	start := time.Now()
	err = cmd.Run()
	if m.Trace != nil {
		m.Trace(args, time.Since(start))
	}
	if err != nil {
		code := -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		return out.String(), &gitError{args: args, stderr: errb.String(), code: code, err: err}
	}
	return out.String(), nil
}

// git runs git in dir and returns its output with the last newline cut.
func (m *Manager) git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := m.run(ctx, dir, nil, args...)
	return strings.TrimSuffix(out, "\n"), err
}

// identity are the -c options that give a commit an author when the
// user's git has none configured.
func (m *Manager) identity(ctx context.Context, dir string) []string {
	if email, _ := m.git(ctx, dir, "config", "user.email"); email != "" {
		return nil
	}
	if os.Getenv("GIT_AUTHOR_EMAIL") != "" && os.Getenv("GIT_COMMITTER_EMAIL") != "" {
		return nil
	}
	return []string{"-c", "user.name=freeact", "-c", "user.email=freeact@localhost"}
}

// splitZ splits git's NUL-separated output.
func splitZ(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "\x00") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
