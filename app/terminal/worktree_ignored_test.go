package terminal

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/worktree"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/internal/appdirs"
)

// `freeact worktree remove --json` lists ignored files that may hold work
// in its cleanup question, marked; "commit" commits the others and asks
// to delete the ignored ones, never committing them.
func TestWorktreeRemoveAsksAboutIgnoredFilesAndNeverCommitsThem(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, kv := range [][2]string{{"GIT_AUTHOR_NAME", "Test"}, {"GIT_AUTHOR_EMAIL", "t@example.com"}, {"GIT_COMMITTER_NAME", "Test"}, {"GIT_COMMITTER_EMAIL", "t@example.com"}} {
		t.Setenv(kv[0], kv[1])
	}
	ctx := context.Background()
	root := t.TempDir()
	ws := filepath.Join(root, "repo")
	files := map[string]string{".gitignore": ".env\n", ".worktreeinclude": ".env\n", "a.txt": "a\n"}
	for name, content := range files {
		if err := os.MkdirAll(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-c", "init.defaultBranch=main", "-C", ws}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "init")
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte("KEY=main\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := adapter.Build{Dirs: appdirs.In(filepath.Join(root, "app"))}
	mf, err := adapter.Worktrees(b.Dirs).Create(ctx, ws, "t", worktree.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mf.Path, ".env"), []byte("KEY=edited\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mf.Path, "a.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(stdin string) []map[string]any {
		t.Helper()
		var out, errb bytes.Buffer
		err := RunWorktree(ctx, []string{"remove", "t", "--workspace", ws, "--json"}, b, adapter.Streams{In: strings.NewReader(stdin), Out: &out, Err: &errb})
		if err != nil {
			t.Fatalf("worktree remove: %v\n%s", err, errb.String())
		}
		var evs []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var ev map[string]any
			if err := json.Unmarshal([]byte(l), &ev); err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			evs = append(evs, ev)
		}
		return evs
	}
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	// Commit, then decline deleting the ignored .env: all is kept.
	evs := run(`{"id":"q1","action":"commit"}` + "\n" + `{"id":"q2","action":"decline"}` + "\n")
	if q := evs[0]; q["type"] != "WorktreeCleanup" || js(q["files"]) != `["a.txt",".env (ignored)"]` || js(q["ignored"]) != `[".env (ignored)"]` {
		t.Fatalf("cleanup question: %v", evs)
	}
	if len(evs) < 2 || evs[1]["type"] != "Confirm" {
		t.Fatalf("no second confirmation for the ignored file: %v", evs)
	}
	if data, err := os.ReadFile(filepath.Join(mf.Path, ".env")); err != nil || string(data) != "KEY=edited\n" {
		t.Fatalf("the edited .env after declining: %q %v", data, err)
	}
	// Commit and confirm: a.txt is on the branch, .env is not.
	evs = run(`{"id":"q1","action":"commit"}` + "\n" + `{"id":"q2","action":"accept"}` + "\n")
	rm := evs[len(evs)-1]
	if rm["type"] != "WorktreeRemoved" || rm["committed"] != true || js(rm["discarded"]) != `[".env (ignored)"]` {
		t.Fatalf("remove: %v", evs)
	}
	tree := strings.Split(git("ls-tree", "-r", "--name-only", mf.Branch), "\n")
	if slices.Contains(tree, ".env") || git("show", mf.Branch+":a.txt") != "changed" {
		t.Errorf("the branch holds %q", tree)
	}
}
