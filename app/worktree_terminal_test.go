package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/worktree"
	"github.com/freeact/desktop/app/internal/fronttest"
)

// gitIn runs git in dir for a test's setup.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Test", "-c", "user.email=t@example.com", "-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// jsonLines runs freeact with args and stdin and returns its JSON events
// and exit status.
func jsonLines(t *testing.T, bin string, env []string, stdin string, args ...string) ([]map[string]any, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	status := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var evs []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("%v: line %q is not JSON: %v\nstderr:\n%s", args, sc.Text(), err, stderr.String())
		}
		evs = append(evs, ev)
	}
	if t.Failed() || status != 0 {
		t.Logf("%v: status %d, stderr:\n%s", args, status, stderr.String())
	}
	return evs, status
}

func find(evs []map[string]any, typ string) map[string]any {
	for _, ev := range evs {
		if ev["type"] == typ {
			return ev
		}
	}
	return nil
}

// A conversation in a worktree from the terminal, end to end: a real
// kernel cell writes in the worktree and not in the main checkout; the
// review shows it; removal asks what to do with the uncommitted file
// (kept); merge refuses until it is committed; squash brings it to main;
// a second worktree's untracked file is deleted only after the second
// confirmation.
func TestRunWorktreeJSONCreateRunReviewMergeRemove(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, marker := terminalEnv(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "import os; open('made.txt','w').write('42'); print(os.getcwd())"}}}]
  - reply: [{text: "Done."}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "open('made.txt','w').write('43')"}}}]
  - reply: [{text: "Done."}]
`)
	gitIn(t, ws, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(ws, "README"), []byte("r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, ws, "add", "README")
	gitIn(t, ws, "commit", "-q", "-m", "init")

	evs, status := jsonLines(t, bin, env, "y\n", "run", "--workspace", ws, "--worktree", "w1", "--prompt", "make a file", "--json")
	if status != 0 {
		t.Fatalf("run: status %d", status)
	}
	wtEv := find(evs, "Worktree")
	if wtEv == nil || wtEv["branch"] != "freeact/w1" || wtEv["base_branch"] != "main" || wtEv["agent_id"] != "main" {
		t.Fatalf("no Worktree event: %v", evs)
	}
	workdir := wtEv["workdir"].(string)
	if strings.HasPrefix(workdir, ws) {
		t.Errorf("the worktree %s is inside the repository", workdir)
	}
	out := find(evs, "CodeExecutionOutput")
	if out == nil || strings.TrimSpace(out["text"].(string)) != workdir {
		t.Errorf("the kernel did not run in the worktree: %v", out)
	}
	if _, err := os.Stat(filepath.Join(workdir, "made.txt")); err != nil {
		t.Errorf("made.txt not in the worktree: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "made.txt")); err == nil {
		t.Error("made.txt leaked into the main checkout")
	}

	evs, _ = jsonLines(t, bin, env, "", "worktree", "review", "w1", "--workspace", ws, "--json")
	rv := find(evs, "WorktreeReview")
	if rv == nil || !strings.Contains(toJSON(rv["files"]), `"path":"made.txt","status":"A"`) {
		t.Fatalf("review: %v", evs)
	}

	evs, status = jsonLines(t, bin, env, `{"id":"q1","action":"keep"}`+"\n", "worktree", "remove", "w1", "--workspace", ws, "--json")
	q := find(evs, "WorktreeCleanup")
	if status != 0 || q == nil || q["id"] != "q1" || toJSON(q["files"]) != `["made.txt"]` {
		t.Fatalf("remove with an uncommitted file: %d %v", status, evs)
	}
	if _, err := os.Stat(filepath.Join(workdir, "made.txt")); err != nil {
		t.Fatal("the worktree was not kept")
	}

	evs, status = jsonLines(t, bin, env, "", "worktree", "merge", "w1", "--workspace", ws, "--json")
	if e := find(evs, "WorktreeError"); status != 1 || e == nil || e["kind"] != "unsaved-work" {
		t.Fatalf("merge with an uncommitted file: %d %v", status, evs)
	}
	if _, status = jsonLines(t, bin, env, "", "worktree", "commit", "w1", "--workspace", ws, "--json"); status != 0 {
		t.Fatal("commit")
	}
	evs, status = jsonLines(t, bin, env, "", "worktree", "merge", "w1", "--squash", "--workspace", ws, "--json")
	if status != 0 || find(evs, "WorktreeMerged") == nil {
		t.Fatalf("squash: %v", evs)
	}
	if data, err := os.ReadFile(filepath.Join(ws, "made.txt")); err != nil || string(data) != "42" {
		t.Errorf("made.txt in the main checkout after the squash: %q %v", data, err)
	}
	evs, status = jsonLines(t, bin, env, "", "worktree", "remove", "w1", "--workspace", ws, "--json")
	rm := find(evs, "WorktreeRemoved")
	if status != 0 || rm == nil || rm["sessions_kept"] == nil {
		t.Fatalf("remove: %v", evs)
	}
	if _, err := os.Stat(workdir); err == nil {
		t.Error("the worktree's folder is left")
	}

	// Discard: the second confirmation is asked, and declining keeps it.
	if _, status = jsonLines(t, bin, env, "y\n", "run", "--workspace", ws, "--worktree", "w2", "--prompt", "make a file", "--json"); status != 0 {
		t.Fatal("run w2")
	}
	evs, _ = jsonLines(t, bin, env, `{"id":"q1","action":"delete"}`+"\n"+`{"id":"q2","action":"decline"}`+"\n", "worktree", "remove", "w2", "--workspace", ws, "--json")
	if find(evs, "Confirm") == nil || find(evs, "WorktreeRemoved") != nil {
		t.Fatalf("delete declined: %v", evs)
	}
	evs, _ = jsonLines(t, bin, env, "d\ny\n", "worktree", "remove", "w2", "--workspace", ws, "--json")
	if rm := find(evs, "WorktreeRemoved"); rm == nil || toJSON(rm["discarded"]) != `["made.txt"]` {
		t.Fatalf("delete confirmed: %v", evs)
	}
	if pids := fronttest.ProcessesWith(marker); len(pids) > 0 {
		t.Errorf("processes left running: %v", pids)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Each worktree failure of the terminal says what is wrong and what to
// do, before any kernel starts.
func TestRunWorktreeErrorsOfferAFix(t *testing.T) {
	bin := freeactBinary(t)
	cases := []struct {
		name  string
		setup func(t *testing.T, ws string)
		want  []string
	}{
		{"not a git repository", func(t *testing.T, ws string) {}, []string{"is not in a git repository", "git init"}},
		{"detached HEAD", func(t *testing.T, ws string) {
			gitIn(t, ws, "init", "-q", "-b", "main")
			gitIn(t, ws, "commit", "-q", "--allow-empty", "-m", "init")
			gitIn(t, ws, "checkout", "-q", "--detach")
		}, []string{"detached HEAD", "git switch"}},
		{"branch name taken", func(t *testing.T, ws string) {
			gitIn(t, ws, "init", "-q", "-b", "main")
			gitIn(t, ws, "commit", "-q", "--allow-empty", "-m", "init")
			gitIn(t, ws, "branch", "freeact/w")
		}, []string{"the branch freeact/w exists already", "pick another name"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws, env, _ := terminalEnv(t, "turns: []")
			c.setup(t, ws)
			cmd := exec.Command(bin, "run", "--workspace", ws, "--worktree", "w", "--prompt", "hi")
			cmd.Env = env
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("exit: %v\n%s", err, stderr.String())
			}
			for _, w := range c.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
			if strings.Contains(stderr.String(), "Starting the kernel") {
				t.Error("a kernel started")
			}
		})
	}
}

// The cleanup question on the interactive terminal: Enter keeps the
// worktree, d asks again and y deletes the files listed.
func TestWorktreeRemoveAsksOnTheTerminal(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, marker := terminalEnv(t, "turns: []")
	gitIn(t, ws, "init", "-q", "-b", "main")
	gitIn(t, ws, "commit", "-q", "--allow-empty", "-m", "init")
	m := worktree.New(filepath.Join(marker, "data", "freeact"))
	mf, err := m.Create(context.Background(), ws, "t", worktree.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mf.Path, "draft.md"), []byte("d\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	remove := func(stdin string) string {
		cmd := exec.Command(bin, "worktree", "remove", "t", "--workspace", ws)
		cmd.Env = env
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("remove: %v\n%s", err, out)
		}
		return string(out)
	}
	out := remove("\n")
	if !strings.Contains(out, "draft.md") || !strings.Contains(out, "Kept worktree t") {
		t.Fatalf("Enter:\n%s", out)
	}
	out = remove("d\n\n")
	if !strings.Contains(out, "Delete this file for good?") || !strings.Contains(out, "Kept worktree t") {
		t.Fatalf("d, then Enter:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(mf.Path, "draft.md")); err != nil {
		t.Fatal("deleted without the second yes")
	}
	out = remove("d\ny\n")
	if !strings.Contains(out, "Removed worktree t.") {
		t.Fatalf("d, y:\n%s", out)
	}
	if _, err := os.Stat(mf.Path); err == nil {
		t.Error("the folder is left")
	}
}
