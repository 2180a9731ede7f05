package worktree

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Merged is what a merge did.
type Merged struct {
	Commit     string `json:"commit"`
	BaseBranch string `json:"base_branch"`
	Squash     bool   `json:"squash"`
	// UpToDate: the branch had nothing the base lacks; nothing was done.
	UpToDate bool `json:"up_to_date,omitempty"`
}

// journal is written before the main checkout is moved, and removed after:
// one left behind is a merge a crash interrupted.
type journal struct {
	Name   string `json:"name"`
	Repo   string `json:"repo"`
	Base   string `json:"base_branch"`
	Old    string `json:"old"`
	New    string `json:"new"`
	Squash bool   `json:"squash"`
	PID    int    `json:"pid"`
}

// Merge merges (or squashes) the worktree's branch into its base branch in
// the main checkout. The merge is computed without touching any checkout
// (git merge-tree): a conflict is an Error of kind Conflict listing the
// files, and nothing changed. Only a clean result moves the main
// checkout, by a fast-forward to the new commit. The main checkout must be
// on the base branch with no uncommitted changes; the worktree's own
// uncommitted files must be committed first.
func (m *Manager) Merge(ctx context.Context, mf *Manifest, squash bool) (*Merged, error) {
	if st, err := os.Stat(mf.Path); err != nil || !st.IsDir() {
		return nil, missingErr(mf)
	}
	if _, err := m.Recover(ctx, mf.Repo); err != nil {
		return nil, err
	}
	if cs, err := m.Uncommitted(ctx, mf); err != nil {
		return nil, err
	} else if len(cs) > 0 {
		return nil, &Error{Kind: Unsaved, Msg: fmt.Sprintf("worktree %s has files not committed to %s", mf.Name, mf.Branch), Files: paths(cs),
			Offer: "commit them to the branch first (freeact worktree commit " + mf.Name + "), then merge"}
	}
	head, err := m.git(ctx, mf.Repo, "symbolic-ref", "-q", "--short", "HEAD")
	if err != nil || head != mf.BaseBranch {
		at := head
		if at == "" {
			at = "a detached HEAD"
		}
		return nil, &Error{Kind: NotOnBase, Msg: fmt.Sprintf("the main checkout %s is on %s, not on %s, the branch worktree %s started from", mf.Repo, at, mf.BaseBranch, mf.Name),
			Offer: "switch it to " + mf.BaseBranch + " (git switch " + mf.BaseBranch + ") and merge again"}
	}
	dirty, err := m.run(ctx, mf.Repo, nil, "status", "--porcelain=v1", "-z", "--untracked-files=no")
	if err != nil {
		return nil, fmt.Errorf("check the main checkout %s: %w", mf.Repo, err)
	}
	if d := splitZ(dirty); len(d) > 0 {
		var files []string
		for _, e := range d {
			if len(e) > 3 {
				files = append(files, e[3:])
			}
		}
		return nil, &Error{Kind: DirtyMain, Msg: fmt.Sprintf("the main checkout %s has uncommitted changes", mf.Repo), Files: files,
			Offer: "commit or stash them there (git stash), then merge again"}
	}
	old, err := m.git(ctx, mf.Repo, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return nil, fmt.Errorf("merge worktree %s: %w", mf.Name, err)
	}
	tip, err := m.git(ctx, mf.Repo, "rev-parse", "--verify", "refs/heads/"+mf.Branch+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("merge worktree %s: the branch %s: %w", mf.Name, mf.Branch, err)
	}
	if _, err := m.git(ctx, mf.Repo, "merge-base", "--is-ancestor", tip, old); err == nil {
		return &Merged{Commit: old, BaseBranch: mf.BaseBranch, Squash: squash, UpToDate: true}, nil
	}
	out, err := m.git(ctx, mf.Repo, "merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", old, tip)
	if exitCode(err) == 1 {
		parts := splitZ(out)
		var files []string
		if len(parts) > 1 {
			files = parts[1:]
		}
		return nil, &Error{Kind: Conflict, Msg: fmt.Sprintf("merging %s into %s conflicts; nothing was changed", mf.Branch, mf.BaseBranch), Files: files,
			Offer: "resolve it in the worktree (merge " + mf.BaseBranch + " into " + mf.Branch + " there and commit), then merge back again"}
	}
	if err != nil {
		return nil, fmt.Errorf("merge worktree %s: %w", mf.Name, err)
	}
	tree, _, _ := strings.Cut(out, "\x00")
	tree = strings.TrimSpace(tree)
	var commitArgs []string
	if squash {
		commitArgs = []string{"commit-tree", tree, "-p", old, "-m", "Squashed worktree " + mf.Name + " (" + mf.Branch + ")"}
	} else {
		commitArgs = []string{"commit-tree", tree, "-p", old, "-p", tip, "-m", "Merge branch '" + mf.Branch + "' into " + mf.BaseBranch}
	}
	newc, err := m.git(ctx, mf.Repo, append(m.identity(ctx, mf.Repo), commitArgs...)...)
	if err != nil {
		return nil, fmt.Errorf("merge worktree %s: %w", mf.Name, err)
	}
	j := journal{Name: mf.Name, Repo: mf.Repo, Base: mf.BaseBranch, Old: old, New: newc, Squash: squash, PID: os.Getpid()}
	jp := m.journalPath(mf.Repo, mf.Name)
	if err := writeJSON(jp, j); err != nil {
		return nil, fmt.Errorf("merge worktree %s: %w", mf.Name, err)
	}
	if _, err := m.git(ctx, mf.Repo, "merge", "--ff-only", "--no-stat", "-q", newc); err != nil {
		if _, rerr := m.settle(context.WithoutCancel(ctx), j, jp); rerr != nil {
			return nil, errors.Join(fmt.Errorf("merge worktree %s: %w", mf.Name, err), rerr)
		}
		return nil, fmt.Errorf("merge worktree %s: %w", mf.Name, err)
	}
	if err := os.Remove(jp); err != nil {
		return nil, fmt.Errorf("merge worktree %s: %w", mf.Name, err)
	}
	return &Merged{Commit: newc, BaseBranch: mf.BaseBranch, Squash: squash}, nil
}

// Recovered is what Recover found of work a crash interrupted.
type Recovered struct {
	// Undone are worktrees whose creation did not finish and were taken
	// back.
	Undone []string `json:"undone,omitempty"`
	// Merges are merges that were found finished or not applied.
	Merges []string `json:"merges,omitempty"`
}

// Recover finishes what a crash interrupted in workspace's repository:
// a creation that did not finish is taken back (nobody worked in it yet);
// a merge whose fast-forward did not run, or ran through, is settled. A
// merge stopped half-way (git's index lock left, the main checkout neither
// before nor after) is an Error of kind Interrupted, with RollBack as the
// offer.
func (m *Manager) Recover(ctx context.Context, workspace string) (*Recovered, error) {
	r, err := m.openRepo(ctx, workspace)
	if err != nil {
		return nil, err
	}
	rec := &Recovered{}
	dir := m.dir(r.top)
	mans, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, p := range mans {
		mf, err := readManifest(p)
		if err != nil || mf.State != Creating || alive(mf.PID) {
			continue
		}
		if err := m.undoCreate(ctx, mf); err != nil {
			return rec, err
		}
		rec.Undone = append(rec.Undone, mf.Name)
	}
	js, _ := filepath.Glob(filepath.Join(dir, "*.merge"))
	for _, p := range js {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var j journal
		if err := json.Unmarshal(data, &j); err != nil {
			return rec, fmt.Errorf("read %s: %w", p, err)
		}
		if alive(j.PID) {
			continue // another freeact is merging it now
		}
		msg, err := m.settle(ctx, j, p)
		if err != nil {
			return rec, err
		}
		rec.Merges = append(rec.Merges, msg)
	}
	return rec, nil
}

// settle looks at a merge's journal: the main checkout at the new commit
// and clean (finished) or at the old one and clean (not applied) removes
// the journal; anything else is an Interrupted error.
func (m *Manager) settle(ctx context.Context, j journal, path string) (string, error) {
	head, _ := m.git(ctx, j.Repo, "rev-parse", "--verify", "HEAD^{commit}")
	lock, _ := m.git(ctx, j.Repo, "rev-parse", "--path-format=absolute", "--git-path", "index.lock")
	_, lockErr := os.Lstat(lock)
	clean := false
	if lockErr != nil {
		if out, err := m.run(ctx, j.Repo, nil, "status", "--porcelain=v1", "-z", "--untracked-files=no"); err == nil && out == "" {
			clean = true
		}
	}
	var msg string
	switch {
	case head == j.New && clean:
		msg = fmt.Sprintf("the merge of worktree %s into %s had finished", j.Name, j.Base)
	case head == j.Old && clean:
		msg = fmt.Sprintf("the merge of worktree %s into %s was interrupted before it changed anything; merge again", j.Name, j.Base)
	default:
		return "", &Error{Kind: Interrupted, Worktree: j.Name,
			Msg:   fmt.Sprintf("the merge of worktree %s into %s in %s was interrupted half-way (HEAD %s, index lock %v)", j.Name, j.Base, j.Repo, short(head), lockErr == nil),
			Offer: "roll it back to " + short(j.Old) + " (freeact worktree rollback " + j.Name + ": the main checkout had no uncommitted changes when the merge began), or look at it with git status"}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return msg, nil
}

func short(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// RollBack puts the main checkout back where an interrupted merge of
// worktree name found it. The merge began only on a clean checkout, so
// resetting it to that commit loses nothing of the user's.
func (m *Manager) RollBack(ctx context.Context, workspace, name string) error {
	r, err := m.openRepo(ctx, workspace)
	if err != nil {
		return err
	}
	p := m.journalPath(r.top, name)
	data, err := os.ReadFile(p)
	if err != nil {
		return &Error{Kind: NotFound, Msg: "no interrupted merge of worktree " + name, Offer: "nothing to roll back"}
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("read %s: %w", p, err)
	}
	lock, _ := m.git(ctx, j.Repo, "rev-parse", "--path-format=absolute", "--git-path", "index.lock")
	if err := os.Remove(lock); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("roll back: remove %s: %w", lock, err)
	}
	head, _ := m.git(ctx, j.Repo, "symbolic-ref", "-q", "HEAD")
	if head != "refs/heads/"+j.Base {
		return fmt.Errorf("roll back: the main checkout is not on %s any more; look at it with git status", j.Base)
	}
	if _, err := m.git(ctx, j.Repo, "reset", "-q", "--hard", j.Old); err != nil {
		return fmt.Errorf("roll back the merge of worktree %s: %w", name, err)
	}
	return os.Remove(p)
}
