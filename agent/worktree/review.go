package worktree

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Change is a file of the worktree not committed to its branch.
type Change struct {
	Path string `json:"path"`
	// Status is git's two-letter short status ("??" untracked, " M"
	// modified, "A " added, ...).
	Status string `json:"status"`
}

// Uncommitted lists the worktree's modified, added, deleted and untracked
// files (not the ignored ones): what removing it would lose.
func (m *Manager) Uncommitted(ctx context.Context, mf *Manifest) ([]Change, error) {
	if err := checkLink(mf); err != nil {
		return nil, err
	}
	out, err := m.run(ctx, mf.Path, nil, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		return nil, fmt.Errorf("list the uncommitted files of worktree %s: %w", mf.Name, err)
	}
	var cs []Change
	own := mf.ownDir() + "/"
	for _, e := range splitZ(out) {
		if len(e) < 4 {
			continue
		}
		c := Change{Status: e[:2], Path: e[3:]}
		if c.Status == "??" && strings.HasPrefix(c.Path, own) {
			continue // the app's own: settings copied in, the conversation's session
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// ownDir is the workspace's .freeact folder, relative to the worktree's
// top, slash-separated: untracked files there are the app's (the settings
// copied in, the conversation's session), never committed by it nor
// counted as work; the sessions are moved to the main checkout when the
// worktree is removed.
func (mf *Manifest) ownDir() string {
	return filepath.ToSlash(filepath.Join(mf.Sub, ".freeact"))
}

// addAll stages the worktree's changes, tracked and untracked, except the
// untracked files of the app's own folder.
func (m *Manager) addAll(ctx context.Context, mf *Manifest, env []string) error {
	if _, err := m.run(ctx, mf.Path, env, "add", "-u", "--", "."); err != nil {
		return err
	}
	out, err := m.run(ctx, mf.Path, env, "ls-files", "-z", "--others", "--exclude-standard", "--full-name", "--", ":(top)")
	if err != nil {
		return err
	}
	own := mf.ownDir() + "/"
	var add []string
	for _, p := range splitZ(out) {
		if !strings.HasPrefix(p, own) {
			add = append(add, p)
		}
	}
	if len(add) == 0 {
		return nil
	}
	// The names are files, not patterns.
	lit := append(append([]string{}, env...), "GIT_LITERAL_PATHSPECS=1")
	_, err = m.runIn(ctx, mf.Path, strings.Join(add, "\x00")+"\x00", lit, "add", "--pathspec-from-file=-", "--pathspec-file-nul")
	return err
}

func paths(cs []Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Path
	}
	return out
}

// FileDiff is one file of a review.
type FileDiff struct {
	Path string `json:"path"`
	// Status is A added, M modified, D deleted, T type changed.
	Status string `json:"status"`
	// Patch is the file's unified diff.
	Patch string `json:"patch"`
}

// Review is a worktree's changes against the commit it started from.
type Review struct {
	Name       string     `json:"name"`
	Branch     string     `json:"branch"`
	BaseBranch string     `json:"base_branch"`
	BaseCommit string     `json:"base_commit"`
	Files      []FileDiff `json:"files"`
	// Uncommitted are the files among them not committed yet.
	Uncommitted []Change `json:"uncommitted,omitempty"`
}

// Review diffs everything of the worktree, committed, uncommitted and
// untracked (not ignored), against the commit it started from. The
// worktree's own index is not touched: the untracked files are added to a
// copy of it.
func (m *Manager) Review(ctx context.Context, mf *Manifest) (*Review, error) {
	if st, err := os.Stat(mf.Path); err != nil || !st.IsDir() {
		return nil, missingErr(mf)
	}
	if err := checkLink(mf); err != nil {
		return nil, err
	}
	idx, err := m.git(ctx, mf.Path, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return nil, fmt.Errorf("review worktree %s: %w", mf.Name, err)
	}
	tmp, err := os.MkdirTemp("", "freeact-review-")
	if err != nil {
		return nil, fmt.Errorf("review worktree %s: %w", mf.Name, err)
	}
	defer os.RemoveAll(tmp)
	tmpIdx := filepath.Join(tmp, "index")
	if data, err := os.ReadFile(idx); err == nil {
		if err := os.WriteFile(tmpIdx, data, 0o600); err != nil {
			return nil, fmt.Errorf("review worktree %s: %w", mf.Name, err)
		}
	}
	env := []string{"GIT_INDEX_FILE=" + tmpIdx}
	if err := m.addAll(ctx, mf, env); err != nil {
		return nil, fmt.Errorf("review worktree %s: %w", mf.Name, err)
	}
	names, err := m.run(ctx, mf.Path, env, "diff", "--cached", "--no-renames", "--name-status", "-z", mf.BaseCommit, "--")
	if err != nil {
		return nil, fmt.Errorf("review worktree %s: %w", mf.Name, err)
	}
	rv := &Review{Name: mf.Name, Branch: mf.Branch, BaseBranch: mf.BaseBranch, BaseCommit: mf.BaseCommit}
	parts := splitZ(names)
	diffArgs := []string{"diff", "--cached", "--no-ext-diff", "--no-textconv", "--no-color", "--no-renames", mf.BaseCommit, "--"}
	// One diff for all the files, cut at its file headers; the k-th patch
	// is the k-th name (both in git's order). Where they do not pair up
	// (a type change is two patches), each file is diffed alone.
	whole, err := m.run(ctx, mf.Path, env, diffArgs...)
	if err != nil {
		return nil, fmt.Errorf("review worktree %s: %w", mf.Name, err)
	}
	patches := splitPatches(whole)
	paired := len(patches) == len(parts)/2
	for i := 0; i+1 < len(parts); i += 2 {
		status, path := parts[i], parts[i+1]
		var patch string
		if paired {
			patch = patches[i/2]
		} else if patch, err = m.run(ctx, mf.Path, env, append(diffArgs, path)...); err != nil {
			return nil, fmt.Errorf("review %s of worktree %s: %w", path, mf.Name, err)
		}
		rv.Files = append(rv.Files, FileDiff{Path: path, Status: status, Patch: patch})
	}
	if rv.Uncommitted, err = m.Uncommitted(ctx, mf); err != nil {
		return nil, err
	}
	return rv, nil
}

// Patch is the whole review as one unified diff.
func (r *Review) Patch() string {
	var b strings.Builder
	for _, f := range r.Files {
		b.WriteString(f.Patch)
	}
	return b.String()
}

// Commit commits all the worktree's uncommitted and untracked files to its
// branch, with message (or a default one).
func (m *Manager) Commit(ctx context.Context, mf *Manifest, message string) error {
	if st, err := os.Stat(mf.Path); err != nil || !st.IsDir() {
		return missingErr(mf)
	}
	if err := checkLink(mf); err != nil {
		return err
	}
	if strings.TrimSpace(message) == "" {
		message = "freeact: work of worktree " + mf.Name
	}
	if err := m.addAll(ctx, mf, nil); err != nil {
		return fmt.Errorf("commit worktree %s: %w", mf.Name, err)
	}
	args := append(m.identity(ctx, mf.Path), "commit", "--no-verify", "-q", "-m", message)
	if _, err := m.git(ctx, mf.Path, args...); err != nil {
		return fmt.Errorf("commit worktree %s: %w", mf.Name, err)
	}
	return nil
}

// splitPatches cuts a unified diff at its "diff --git " headers.
func splitPatches(diff string) []string {
	var out []string
	start := -1
	for i := 0; i < len(diff); {
		if strings.HasPrefix(diff[i:], "diff --git ") {
			if start >= 0 {
				out = append(out, diff[start:i])
			}
			start = i
		}
		nl := strings.IndexByte(diff[i:], '\n')
		if nl < 0 {
			break
		}
		i += nl + 1
	}
	if start >= 0 {
		out = append(out, diff[start:])
	}
	return out
}
