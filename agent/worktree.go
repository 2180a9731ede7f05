package agent

import (
	"context"

	"github.com/freeact/desktop/internal/worktree"
)

// A conversation in a git worktree runs in a folder of its own on a new
// branch, below the app's data folder: open the worktree with
// OpenWorktree, then the workspace on its Workdir() with OpenWorkspace.
// Review, merging back and removal are methods of Worktrees
// (docs/behaviour.md, "Worktrees").

// Worktree is a git worktree a conversation works in: its branch, the
// branch and commit it started from, its folder.
type Worktree = worktree.Manifest

// Worktrees creates, reviews, merges and removes worktrees.
type Worktrees = worktree.Manager

// WorktreeError is a worktree failure with an offer (Kind, Msg, Offer,
// Files).
type WorktreeError = worktree.Error

// WorktreeRemoveOptions say what a removal does with files not committed
// to the worktree's branch.
type WorktreeRemoveOptions = worktree.RemoveOptions

// NewWorktrees is the manager of the worktrees below dataDir/worktrees
// (the app's data folder, appdirs.Dirs.Data).
func NewWorktrees(dataDir string) *Worktrees { return worktree.New(dataDir) }

// OpenWorktree returns worktree name of the git repository dir is in,
// creating it (branch freeact/NAME from the current branch) when there is
// none. The conversation then works in its Workdir().
func OpenWorktree(ctx context.Context, dataDir, dir, name string) (*Worktree, error) {
	mf, _, err := NewWorktrees(dataDir).OpenOrCreate(ctx, dir, name)
	return mf, err
}
