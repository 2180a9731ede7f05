package agent_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/sandboxcfg"
	"github.com/freeact/desktop/agent/worktree"
	"github.com/freeact/desktop/internal/appdirs"
)

// A conversation in a worktree works under the main checkout's rules: its
// .freeact/ settings and permissions are copied in (when the repository
// does not track them), the sandbox's writable root is the worktree, and
// the protected files are the worktree's own.
func TestAWorktreeWorksUnderTheMainCheckoutsSettingsSandboxAndProtectedFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.com", "-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(repo, ".gitignore"), []byte(".freeact/\n.env\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", ".gitignore")
	run("commit", "-q", "-m", "init")
	dirs := appdirs.In(t.TempDir())
	if _, err := agent.OpenWorkspace(repo, agent.WorkspaceOptions{Dirs: dirs}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".freeact", "agent.json"), []byte(`{"sandbox": true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".env"), []byte("SECRET=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	wt, err := worktree.Open(context.Background(), dirs.Data, repo, "rules")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := agent.OpenWorkspace(wt.Workdir(), agent.WorkspaceOptions{Dirs: dirs})
	if err != nil {
		t.Fatal(err)
	}
	if ws.Created {
		t.Error("the worktree's .freeact/ was scaffolded anew instead of copied")
	}
	if !ws.Config.Options.Sandbox {
		t.Error("agent.json's sandbox setting did not reach the worktree")
	}
	for _, f := range []string{"permissions.json"} {
		a, _ := os.ReadFile(filepath.Join(repo, ".freeact", f))
		b, err := os.ReadFile(filepath.Join(wt.Workdir(), ".freeact", f))
		if err != nil || string(a) != string(b) {
			t.Errorf("%s differs in the worktree: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(wt.Workdir(), ".env")); err == nil {
		t.Error(".env was copied without being listed in .worktreeinclude")
	}
	sb, err := sandboxcfg.Settings(ws.Config, nil)
	if err != nil || sb == nil {
		t.Fatalf("sandbox: %v", err)
	}
	if sb.Workspace != wt.Workdir() || sb.Config != filepath.Join(wt.Workdir(), ".freeact") {
		t.Errorf("sandbox writable root %s, config %s; want the worktree %s", sb.Workspace, sb.Config, wt.Workdir())
	}
	sandboxcfg.ProtectConfig(ws.Permissions, ws.Config)
	protected := ws.Permissions.ProtectedFiles()
	if !slices.Contains(protected, filepath.Join(wt.Workdir(), ".freeact", "agent.json")) {
		t.Errorf("the worktree's agent.json is not protected: %v", protected)
	}
	for _, p := range protected {
		if strings.HasPrefix(p, repo+string(filepath.Separator)) {
			t.Errorf("a protected file of the main checkout stands for the worktree's: %s", p)
		}
	}
}
