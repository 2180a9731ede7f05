package worktree_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/freeact/desktop/agent/worktree"
)

// A conversation in a worktree: open (or create) the worktree, then the
// workspace on its folder; review and merge back when done.
func ExampleOpen() {
	tmp, _ := os.MkdirTemp("", "freeact-example-")
	defer os.RemoveAll(tmp)
	repo := filepath.Join(tmp, "repo")
	for _, args := range [][]string{
		{"init", "-q", "-b", "main", repo},
		{"-C", repo, "-c", "user.name=Ex", "-c", "user.email=ex@example.com", "commit", "-q", "--allow-empty", "-m", "init"},
	} {
		if err := exec.Command("git", args...).Run(); err != nil {
			fmt.Println("git:", err)
			return
		}
	}
	ctx := context.Background()
	dataDir := filepath.Join(tmp, "data") // appdirs.FromXDG().Data in a program
	wt, err := worktree.Open(ctx, dataDir, repo, "fix-login")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(wt.Branch, "from", wt.BaseBranch)
	// ws, err := agent.OpenWorkspace(wt.Workdir(), agent.WorkspaceOptions{...})
	// ... run the conversation there ...
	_ = os.WriteFile(filepath.Join(wt.Workdir(), "fix.txt"), []byte("fixed\n"), 0o644)
	wts := worktree.New(dataDir)
	rv, _ := wts.Review(ctx, wt)
	for _, f := range rv.Files {
		fmt.Println(f.Status, f.Path)
	}
	_, err = wts.Remove(ctx, wt, worktree.RemoveOptions{})
	fmt.Println(err != nil) // fix.txt is not committed: refused
	// Output:
	// freeact/fix-login from main
	// A fix.txt
	// true
}
