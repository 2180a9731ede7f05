package desktop

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/worktree"
	"github.com/freeact/desktop/internal/testenv"
)

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-c", "user.name=Test", "-c", "user.email=t@example.com", "-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// The window's worktree conversation: created from the open workspace,
// its kernel runs there (a real cell writes a file in the worktree only),
// Review shows it, Remove asks (the cleanup dialog's question, a stale
// confirmation refused), Merge back brings it to main, and Remove goes
// back to the main checkout.
func TestWindowWorktreeConversationCreateRunReviewMergeRemove(t *testing.T) {
	t.Setenv("GIT_AUTHOR_NAME", "Test")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Test")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@example.com")
	d, h, ws := scenarioDesktop(t, "turns: []")
	gitIn(t, ws, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(ws, ".gitignore"), []byte(".freeact/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, ws, "add", ".gitignore")
	gitIn(t, ws, "commit", "-q", "-m", "init")

	if d.CurrentWorktree() != nil {
		t.Fatal("the main checkout is reported as a worktree")
	}
	prop, err := d.ProposeWorktree()
	if err != nil || prop.Problem != nil || prop.Proposed == "" {
		t.Fatalf("ProposeWorktree: %+v, %v", prop, err)
	}
	n := h.statusCount()
	out, err := d.NewWorktreeConversation("win")
	if err != nil || out.Problem != nil {
		t.Fatalf("NewWorktreeConversation: %+v, %v", out.Problem, err)
	}
	wt := d.CurrentWorktree()
	if wt == nil || wt.Branch != "freeact/win" || wt.BaseBranch != "main" || d.Workspace().Path != wt.Path {
		t.Fatalf("CurrentWorktree: %+v, workspace %s", wt, d.Workspace().Path)
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
	// The settings were copied in (.freeact/ is ignored in the repository).
	if _, err := os.Stat(filepath.Join(wt.Path, ".freeact", "agent.json")); err != nil {
		t.Fatalf("agent.json not in the worktree: %v", err)
	}
	if err := d.RunCell("open('cell.txt','w').write('from the kernel')", "", "rerun"); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, func() error {
		_, err := os.Stat(filepath.Join(wt.Path, "cell.txt"))
		return err
	})
	if _, err := os.Stat(filepath.Join(ws, "cell.txt")); err == nil {
		t.Fatal("the cell wrote into the main checkout")
	}
	rv, err := d.ReviewWorktree()
	if err != nil || rv.Review == nil || len(rv.Review.Files) != 1 || rv.Review.Files[0].Path != "cell.txt" {
		t.Fatalf("ReviewWorktree: %+v, %v", rv.Review, err)
	}
	if mf := d.worktrees().ByWorkdir(wt.Path); mf == nil || mf.ConversationID == "" || mf.ConversationID != d.Workspace().Kernel.SessionID {
		t.Errorf("the manifest does not name the conversation: %+v", mf)
	}
	// The cleanup dialog's question, then a stale confirmation.
	rm, err := d.RemoveWorktree(RemoveAsk, nil)
	if err != nil || rm.Problem == nil || rm.Problem.Kind != "unsaved-work" || strings.Join(rm.Problem.Files, ",") != "cell.txt" {
		t.Fatalf("RemoveWorktree: %+v, %v", rm.Problem, err)
	}
	rm, err = d.RemoveWorktree(RemoveDelete, []string{"other.txt"})
	if err != nil || rm.Problem == nil || rm.Problem.Kind != "files-changed" {
		t.Fatalf("RemoveWorktree with a stale list: %+v, %v", rm.Problem, err)
	}
	if mg, err := d.MergeWorktree(false); err != nil || mg.Problem == nil || mg.Problem.Kind != "unsaved-work" {
		t.Fatalf("MergeWorktree with uncommitted files: %+v, %v", mg.Problem, err)
	}
	if c, err := d.CommitWorktree("cell"); err != nil || c.Problem != nil {
		t.Fatalf("CommitWorktree: %+v, %v", c.Problem, err)
	}
	mg, err := d.MergeWorktree(true)
	if err != nil || mg.Problem != nil || mg.Merged == nil {
		t.Fatalf("MergeWorktree: %+v, %v", mg.Problem, err)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "cell.txt")); string(data) != "from the kernel" {
		t.Errorf("cell.txt in main after the squash: %q", data)
	}
	rm, err = d.RemoveWorktree(RemoveAsk, nil)
	if err != nil || rm.Problem != nil || rm.Removed == nil {
		t.Fatalf("RemoveWorktree: %+v, %v", rm.Problem, err)
	}
	if _, err := os.Stat(wt.Path); err == nil {
		t.Error("the worktree's folder is left")
	}
	if d.Workspace().Path != ws || d.CurrentWorktree() != nil {
		t.Errorf("after removal the window is on %s", d.Workspace().Path)
	}
}

func TestWindowWorktreeOffersAFixOutsideARepository(t *testing.T) {
	d, _, _ := scenarioDesktop(t, "turns: []")
	out, err := d.NewWorktreeConversation("x")
	if err != nil || out.Problem == nil || out.Problem.Kind != "not-a-repository" || !strings.Contains(out.Problem.Offer, "git init") {
		t.Fatalf("NewWorktreeConversation outside a repository: %+v, %v", out.Problem, err)
	}
}

// The window lists the repository's worktrees, reports one whose folder
// was deleted outside the app (and does not make it again), forgets it on
// request keeping its branch, and reopens a worktree's conversation.
func TestWindowListsWorktreesAndReportsADeletedFolder(t *testing.T) {
	t.Setenv("GIT_AUTHOR_NAME", "Test")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Test")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@example.com")
	d, _, ws := scenarioDesktop(t, "turns: []")
	gitIn(t, ws, "init", "-q", "-b", "main")
	gitIn(t, ws, "commit", "-q", "--allow-empty", "-m", "init")
	ctx := context.Background()
	m := d.worktrees()
	keep, err := m.Create(ctx, ws, "keep", worktree.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gone, err := m.Create(ctx, ws, "gone", worktree.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(gone.Path); err != nil {
		t.Fatal(err)
	}
	list, err := d.ListWorktrees()
	if err != nil || len(list) != 2 || list[0].Name != "gone" || !list[0].Missing || list[1].Missing {
		t.Fatalf("ListWorktrees: %+v, %v", list, err)
	}
	out, err := d.OpenWorktreeConversation("gone")
	if err != nil || out.Problem == nil || out.Problem.Kind != "folder-missing" {
		t.Fatalf("opening a deleted worktree: %+v, %v", out.Problem, err)
	}
	if _, err := os.Stat(gone.Path); err == nil {
		t.Fatal("the deleted folder was made again")
	}
	if out, err := d.ForgetWorktree("keep"); err != nil || out.Problem == nil {
		t.Fatalf("ForgetWorktree of a worktree that is there: %+v, %v", out, err)
	}
	out, err = d.ForgetWorktree("gone")
	if err != nil || out.Problem != nil || out.Removed == nil || !out.Removed.Pruned || !out.Removed.BranchKept {
		t.Fatalf("ForgetWorktree: %+v, %+v, %v", out.Problem, out.Removed, err)
	}
	gitIn(t, ws, "rev-parse", "--verify", "refs/heads/freeact/gone")
	out, err = d.OpenWorktreeConversation("keep")
	if err != nil || out.Problem != nil || d.Workspace().Path != keep.Workdir() {
		t.Fatalf("OpenWorktreeConversation: %+v, %v, window on %s", out.Problem, err, d.Workspace().Path)
	}
	list, _ = d.ListWorktrees()
	if len(list) != 1 || !list[0].Open {
		t.Errorf("after reopening: %+v", list)
	}
}

// A worktree another live conversation works in, out of view, is not
// removed under it: while that one waits for an approval, Remove says so
// and the folder stays; once it is idle, Remove stops it with the folder.
// (On the code before, the folder went under the waiting kernel.)
func TestRemoveWorktreeKeepsAFolderAnotherConversationRunsIn(t *testing.T) {
	t.Setenv("GIT_AUTHOR_NAME", "Test")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Test")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@example.com")
	d, h, ws := scenarioDesktop(t, `
turns:
  - reply: [{call: {id: w1, name: ipybox_execute_ipython_cell, args: {code: "print('in the worktree')"}}}]
  - expect:
      last: [{response: ipybox_execute_ipython_cell, output: "in the worktree"}]
    reply: [{text: "Done there."}]
`)
	gitIn(t, ws, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(ws, ".gitignore"), []byte(".freeact/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, ws, "add", ".gitignore")
	gitIn(t, ws, "commit", "-q", "-m", "init")
	first := h.waitState(t, KernelReady).SessionID
	if out, err := d.NewWorktreeConversation("busy"); err != nil || out.Problem != nil {
		t.Fatalf("NewWorktreeConversation: %+v, %v", out.Problem, err)
	}
	wt := d.CurrentWorktree()
	if wt == nil {
		t.Fatal("no worktree in view")
	}
	there := h.waitStateAfter(t, KernelReady, first).SessionID
	if err := d.Send("Run something there", nil); err != nil {
		t.Fatal(err)
	}
	appr, _ := h.waitEvent(t, "ApprovalRequest", 0)
	waitLive(t, d, there, ConvWaiting, 1)
	// A second conversation in the same worktree; the first waits out of view.
	if err := d.NewSession(); err != nil {
		t.Fatal(err)
	}
	h.waitStateAfter(t, KernelReady, there)
	if c, _ := live(d, there); c.State != ConvWaiting || c.InView {
		t.Fatalf("the first worktree conversation: %+v, want waiting out of view", c)
	}
	rm, err := d.RemoveWorktree(RemoveAsk, nil)
	if err != nil || rm.Problem == nil || rm.Problem.Kind != string(worktree.InUse) {
		t.Fatalf("RemoveWorktree while another conversation waits there: %+v, %v", rm.Problem, err)
	}
	if _, err := os.Stat(wt.Path); err != nil {
		t.Fatalf("the worktree's folder went while a conversation waits there: %v", err)
	}
	// Back to it, approve, and leave it idle out of view again.
	if _, err := d.OpenWorkspace(wt.Path, there); err != nil {
		t.Fatal(err)
	}
	if err := d.Approve(appr["request_id"].(string), "yes", ""); err != nil {
		t.Fatal(err)
	}
	waitLive(t, d, there, ConvFinished, 0)
	if err := d.NewSession(); err != nil {
		t.Fatal(err)
	}
	if c, ok := live(d, there); !ok || c.InView {
		t.Fatalf("the finished worktree conversation: %+v (live %v), want idle out of view", c, ok)
	}
	rm, err = d.RemoveWorktree(RemoveAsk, nil)
	if err != nil || rm.Problem != nil || rm.Removed == nil {
		t.Fatalf("RemoveWorktree once the other is idle: %+v, %v", rm.Problem, err)
	}
	if _, ok := live(d, there); ok {
		t.Error("the idle conversation in the removed worktree is still live")
	}
}
