package adapter

import (
	"github.com/freeact/desktop/agent/worktree"
	"github.com/freeact/desktop/internal/appdirs"
)

// Worktrees is the one manager of the conversations' git worktrees, below
// the app's data folder (every front end opens them through it).
func Worktrees(dirs appdirs.Dirs) *worktree.Manager { return worktree.New(dirs.Data) }
