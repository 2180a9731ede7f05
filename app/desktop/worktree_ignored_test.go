package desktop

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/testenv"
)

// The cleanup dialog's list holds the ignored files that may hold work,
// marked; "commit" never takes them, and they go only with the
// confirmation of their list.
func TestRemoveWorktreeListsIgnoredFilesAndNeverCommitsThem(t *testing.T) {
	t.Setenv("GIT_AUTHOR_NAME", "Test")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Test")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@example.com")
	d, h, ws := scenarioDesktop(t, "turns: []")
	gitIn(t, ws, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(ws, ".gitignore"), []byte(".freeact/\n.env\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".worktreeinclude"), []byte(".env\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte("KEY=main\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gitIn(t, ws, "add", ".gitignore", ".worktreeinclude")
	gitIn(t, ws, "commit", "-q", "-m", "init")
	n := h.statusCount()
	if out, err := d.NewWorktreeConversation("ign"); err != nil || out.Problem != nil {
		t.Fatalf("NewWorktreeConversation: %+v, %v", out.Problem, err)
	}
	wt := d.CurrentWorktree()
	if wt == nil {
		t.Fatal("no worktree open")
	}
	testenv.Eventually(t, 2*time.Minute, func() error {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, s := range h.status[n:] {
			if s.State == KernelReady {
				return nil
			}
		}
		return fmt.Errorf("the worktree's kernel is not ready: %+v", h.status[n:])
	})
	if err := os.WriteFile(filepath.Join(wt.Path, ".env"), []byte("KEY=edited\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wt.Path, "work.txt"), []byte("w\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rm, err := d.RemoveWorktree(RemoveAsk, nil)
	if err != nil || rm.Problem == nil || rm.Problem.Kind != "unsaved-work" || !slices.Equal(rm.Problem.Files, []string{"work.txt", ".env (ignored)"}) {
		t.Fatalf("RemoveWorktree: %+v, %v", rm.Problem, err)
	}
	rm, err = d.RemoveWorktree(RemoveCommit, nil)
	if err != nil || rm.Problem == nil || rm.Problem.Kind != "unsaved-work" || !slices.Equal(rm.Problem.Files, []string{".env (ignored)"}) {
		t.Fatalf("RemoveWorktree commit: %+v, %v", rm.Problem, err)
	}
	if _, err := os.Stat(filepath.Join(wt.Path, ".env")); err != nil {
		t.Fatal("the edited .env went on a refused removal")
	}
	rm, err = d.RemoveWorktree(RemoveCommitDelete, rm.Problem.Files)
	if err != nil || rm.Problem != nil || rm.Removed == nil || !rm.Removed.Committed || !slices.Equal(rm.Removed.Discarded, []string{".env (ignored)"}) {
		t.Fatalf("RemoveWorktree commit-delete: %+v, %+v, %v", rm.Problem, rm.Removed, err)
	}
	if got := gitIn(t, ws, "show", "freeact/ign:work.txt"); got != "w" {
		t.Errorf("work.txt on the branch: %q", got)
	}
}
