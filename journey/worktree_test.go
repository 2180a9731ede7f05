//go:build journey

package journey

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-c", "user.name=Test", "-c", "user.email=t@example.com", "-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// Issue 39, worktrees, on the production binary: a new conversation in a
// worktree shows its branch, its cell writes in the worktree and not in
// the main checkout, Review shows the file, and Remove asks about the
// uncommitted file and keeps the worktree when told to.
func TestWorktreeConversationInTheWindow(t *testing.T) {
	atSizes(t, func(t *testing.T, w, h int) {
		ws := Workspace(t, nil)
		gitRun(t, ws, "init", "-q", "-b", "main")
		if err := os.WriteFile(filepath.Join(ws, ".gitignore"), []byte(".freeact/\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		gitRun(t, ws, "add", ".gitignore")
		gitRun(t, ws, "commit", "-q", "-m", "init")
		app := Start(t, Options{Workspace: ws, Scenario: "testdata/worktree.yaml", Width: w, Height: h})
		app.WaitFor(Text("Kernel ready"))

		app.Click(Button("New conversation in a worktree"))
		app.Click(Field("Name"))
		app.Key("ctrl+a")
		app.Type("journey")
		app.Click(Button("Create"))
		app.WaitFor(Text("freeact/journey"))
		// The window's workspace is the worktree now, its kernel started
		// anew there (the workspace event came before the branch).
		app.WaitFor(Text("Kernel ready"))
		app.Shot("worktree-branch")

		app.Send("Write a file")
		app.WaitFor(Role("landmark", "Approval request"))
		app.Key("y")
		app.WaitFor(Text("Wrote it in the worktree."))
		made, _ := filepath.Glob(filepath.Join(app.Home, ".local", "share", "freeact", "worktrees", "project-*", "journey", "made.txt"))
		if len(made) != 1 {
			t.Fatalf("made.txt is not in the worktree: %v", made)
		}
		if _, err := os.Stat(filepath.Join(ws, "made.txt")); err == nil {
			t.Fatal("the cell wrote into the main checkout")
		}

		app.Click(Button("Review worktree"))
		app.WaitFor(Text("made.txt"))
		app.Shot("worktree-review")
		app.Click(Button("Close"))

		app.Click(Button("Remove worktree"))
		app.WaitFor(Button("Keep the worktree"))
		app.Shot("worktree-cleanup")
		app.Click(Button("Keep the worktree"))
		app.WaitGone(Button("Keep the worktree"))
		if _, err := os.Stat(made[0]); err != nil {
			t.Errorf("the worktree's file is gone after Keep: %v", err)
		}
	})
}
