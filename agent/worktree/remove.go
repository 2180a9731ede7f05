package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/freeact/desktop/internal/beneath"
)

// RemoveOptions are how a removal treats files not committed to the
// worktree's branch.
type RemoveOptions struct {
	// Commit commits them to the branch first, with CommitMessage.
	Commit        bool
	CommitMessage string
	// Discard deletes them. It is the second confirmation: Confirmed
	// must be the very list of files the refusal named (Error.Files), so
	// a file that appeared since is never deleted unseen. With Commit,
	// Confirmed is the list of ignored entries, which are not committed.
	Discard   bool
	Confirmed []string
}

// Removed is what a removal did.
type Removed struct {
	// BranchKept: the branch has commits its base branch lacks and stays
	// (git branch -D deletes it).
	BranchKept bool   `json:"branch_kept"`
	Branch     string `json:"branch"`
	// Committed: the uncommitted files were committed to the branch first.
	Committed bool `json:"committed,omitempty"`
	// Discarded are the files deleted with it (ignored ones marked).
	Discarded []string `json:"discarded,omitempty"`
	// Pruned: the folder was gone; git's record of it was pruned.
	Pruned bool `json:"pruned,omitempty"`
	// SessionsKept are the conversations of the worktree moved to the
	// main checkout's .freeact/sessions.
	SessionsKept []string `json:"sessions_kept,omitempty"`
}

// keepSessions copies the worktree's conversations (its .freeact/sessions
// folders) into the main checkout's, where no session of that id is, so
// removing the worktree loses no conversation. Links are not followed.
func (m *Manager) keepSessions(mf *Manifest) ([]string, error) {
	rel := filepath.Join(mf.Sub, ".freeact", "sessions")
	ids, err := os.ReadDir(filepath.Join(mf.Path, rel))
	if err != nil {
		return nil, nil
	}
	src, err := beneath.Open(mf.Path)
	if err != nil {
		return nil, fmt.Errorf("keep the sessions of worktree %s: %w", mf.Name, err)
	}
	defer src.Close()
	dst, err := beneath.Open(mf.Repo)
	if err != nil {
		return nil, fmt.Errorf("keep the sessions of worktree %s: %w", mf.Name, err)
	}
	defer dst.Close()
	var kept []string
	for _, id := range ids {
		if !id.IsDir() {
			continue
		}
		to := filepath.Join(rel, id.Name())
		if _, _, err := dst.Lstat(to); err == nil {
			continue // a session of that id is there: not overwritten
		}
		err := filepath.WalkDir(filepath.Join(mf.Path, to), func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err // links and other odd files are left
			}
			p, _ := filepath.Rel(mf.Path, path)
			data, err := src.ReadFile(p, 1<<30)
			if err != nil {
				return err
			}
			return dst.WriteFile(p, data, 0o600)
		})
		if err != nil {
			return kept, fmt.Errorf("keep session %s of worktree %s: %w", id.Name(), mf.Name, err)
		}
		kept = append(kept, id.Name())
	}
	return kept, nil
}

// CheckRemove is the refusal Remove would give, without changing
// anything: the files the removal would lose (uncommitted and untracked
// files, and the ignored ones of Ignored, marked "ignored") must be
// committed (Commit; ignored files are never committed) or be the very
// list confirmed (Discard, Confirmed). It returns the entries a
// confirmed removal deletes, and whether there is anything to commit.
func (m *Manager) CheckRemove(ctx context.Context, mf *Manifest, opts RemoveOptions) (lost []string, commit bool, err error) {
	cs, err := m.Uncommitted(ctx, mf)
	if err != nil {
		return nil, false, err
	}
	ign, err := m.Ignored(ctx, mf)
	if err != nil {
		return nil, false, err
	}
	all := append(paths(cs), ign...)
	if len(all) == 0 {
		return nil, false, nil
	}
	lost, commit = all, false
	if opts.Commit {
		lost, commit = ign, len(cs) > 0
	}
	switch {
	case len(lost) == 0:
		return nil, commit, nil
	case opts.Discard && slices.Equal(sorted(lost), sorted(opts.Confirmed)):
		return lost, commit, nil
	case opts.Discard:
		return nil, false, &Error{Kind: Changed, Msg: fmt.Sprintf("the files worktree %s would lose are not the ones confirmed", mf.Name), Files: lost,
			Offer: "confirm this list to delete them, or keep the worktree"}
	case opts.Commit:
		return nil, false, &Error{Kind: Unsaved, Msg: fmt.Sprintf("worktree %s has ignored files, which are never committed", mf.Name), Files: lost,
			Offer: "keep the worktree, or delete them with it (asked again)"}
	default:
		offer := "commit them to the branch, keep the worktree, or delete them with it (asked again)"
		if len(ign) > 0 {
			offer = "commit them to the branch (not the ignored ones: those are kept with the worktree or deleted, asked again), keep the worktree, or delete them with it (asked again)"
		}
		return nil, false, &Error{Kind: Unsaved, Msg: fmt.Sprintf("worktree %s has files not committed to %s", mf.Name, mf.Branch), Files: all, Offer: offer}
	}
}

// Remove removes a worktree's folder. Files not committed to its branch
// are never lost unasked: without Commit or a confirmed Discard the
// removal is refused with an Error of kind Unsaved listing them. The
// branch is deleted only when its base branch holds all of it; otherwise
// it is kept. A folder deleted outside the app is pruned from git's list.
func (m *Manager) Remove(ctx context.Context, mf *Manifest, opts RemoveOptions) (*Removed, error) {
	res := &Removed{Branch: mf.Branch}
	if st, err := os.Stat(mf.Path); err != nil || !st.IsDir() {
		if _, err := m.git(ctx, mf.Repo, "worktree", "prune"); err != nil {
			return nil, fmt.Errorf("prune worktree %s: %w", mf.Name, err)
		}
		res.Pruned, res.BranchKept = true, true
		return res, m.forget(mf)
	}
	lost, commit, err := m.CheckRemove(ctx, mf, opts)
	if err != nil {
		return nil, err
	}
	if commit {
		if err := m.Commit(ctx, mf, opts.CommitMessage); err != nil {
			return nil, err
		}
		res.Committed = true
	}
	res.Discarded = lost
	kept, err := m.keepSessions(mf)
	if err != nil {
		return nil, err
	}
	res.SessionsKept = kept
	// --force: what is left untracked is the app's own folder (its
	// sessions now kept) or what was confirmed for deletion.
	if _, err := m.git(ctx, mf.Repo, "worktree", "remove", "--force", "--", mf.Path); err != nil {
		return nil, fmt.Errorf("remove worktree %s: %w", mf.Name, err)
	}
	base, err := m.git(ctx, mf.Repo, "rev-parse", "--verify", "-q", "refs/heads/"+mf.BaseBranch)
	merged := false
	if err == nil {
		_, aerr := m.git(ctx, mf.Repo, "merge-base", "--is-ancestor", "refs/heads/"+mf.Branch, base)
		merged = aerr == nil
	}
	if merged {
		if _, err := m.git(ctx, mf.Repo, "branch", "-D", "--", mf.Branch); err != nil {
			return nil, fmt.Errorf("delete branch %s: %w", mf.Branch, err)
		}
	} else {
		res.BranchKept = true
	}
	return res, m.forget(mf)
}

func (m *Manager) forget(mf *Manifest) error {
	if err := os.Remove(m.manifestPath(mf.Repo, mf.Name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("forget worktree %s: %w", mf.Name, err)
	}
	return nil
}

func sorted(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}
