package worktree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
)

// RemoveOptions are how a removal treats files not committed to the
// worktree's branch.
type RemoveOptions struct {
	// Commit commits them to the branch first, with CommitMessage.
	Commit        bool
	CommitMessage string
	// Discard deletes them. It is the second confirmation: Confirmed
	// must be the very list of files the refusal named (Error.Files), so
	// a file that appeared since is never deleted unseen.
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
	// Discarded are the files deleted with it.
	Discarded []string `json:"discarded,omitempty"`
	// Pruned: the folder was gone; git's record of it was pruned.
	Pruned bool `json:"pruned,omitempty"`
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
	cs, err := m.Uncommitted(ctx, mf)
	if err != nil {
		return nil, err
	}
	if len(cs) > 0 {
		switch {
		case opts.Commit:
			if err := m.Commit(ctx, mf, opts.CommitMessage); err != nil {
				return nil, err
			}
			res.Committed = true
		case opts.Discard:
			files := paths(cs)
			if !slices.Equal(sorted(files), sorted(opts.Confirmed)) {
				return nil, &Error{Kind: Changed, Msg: fmt.Sprintf("the uncommitted files of worktree %s are not the ones confirmed", mf.Name), Files: files,
					Offer: "confirm this list to delete them, or commit them"}
			}
			res.Discarded = files
		default:
			return nil, &Error{Kind: Unsaved, Msg: fmt.Sprintf("worktree %s has files not committed to %s", mf.Name, mf.Branch), Files: paths(cs),
				Offer: "commit them to the branch, keep the worktree, or delete them with it (asked again)"}
		}
	}
	args := []string{"worktree", "remove"}
	if len(res.Discarded) > 0 {
		args = append(args, "--force")
	}
	if _, err := m.git(ctx, mf.Repo, append(args, "--", mf.Path)...); err != nil {
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
