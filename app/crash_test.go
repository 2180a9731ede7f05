package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/app/internal/fronttest"
	"github.com/freeact/desktop/internal/testenv"
)

// The crash harness (make test-crash): the real freeact binary, built with
// -tags crashtest, is killed with SIGKILL at kill points it reaches
// (internal/crashpoint), chosen by count rather than by time: a first run
// counts how often each point is reached, then each chosen point gets a
// run of its own that dies there. After each kill freeact starts again and
// the test checks that the workspace is wholly before or after (or is
// made so by the step freeact offers), that the history matches the
// files, that every change can be reverted, and that Undo restores it.
//
// FREEACT_CRASH_POINTS sets how many kill points each operation tries
// besides those reached only once or twice; without it the harness is
// skipped (each point costs a kernel start or two and thousands of file
// writes: tens of seconds).

func crashPointsPerOp(t *testing.T) int {
	n, err := strconv.Atoi(os.Getenv("FREEACT_CRASH_POINTS"))
	if err != nil || n <= 0 {
		t.Skip("the crash harness runs with FREEACT_CRASH_POINTS=N (make test-crash)")
	}
	return n
}

// crashRig is the harness of the crash tests over fronttest.CrashRig.
type crashRig struct{ *fronttest.CrashRig }

func newCrashRig(t *testing.T) *crashRig {
	r := &crashRig{&fronttest.CrashRig{T: t, Bin: fronttest.CrashBinary(t), Py: testPython(t), Home: t.TempDir()}}
	r.WS = filepath.Join(t.TempDir(), "ws")
	return r
}

// must runs freeact and fails the test unless it exits 0.
func (r *crashRig) must(env []string, stdin string, args ...string) string {
	r.T.Helper()
	out, killed, err := r.Run(env, stdin, args...)
	if err != nil || killed {
		r.T.Fatalf("freeact %s: %v (killed %v)\n%s", strings.Join(args, " "), err, killed, out)
	}
	return out
}

// countPoints runs once with counting on and returns how often each kill
// point was reached.
func (r *crashRig) countPoints(scenario, stdin string, args ...string) map[string]int {
	r.T.Helper()
	file := filepath.Join(r.T.TempDir(), "points")
	r.must(r.Env(scenario, "", 0, file), stdin, args...)
	data, _ := os.ReadFile(file)
	n := map[string]int{}
	for _, l := range strings.Fields(string(data)) {
		n[l]++
	}
	return n
}

// crashPlan picks, among the points reached, k kill points spread evenly
// over all visits (so a point reached thousands of times is tried in its
// first, middle and last visits), always including each point reached
// only a few times.
func crashPlan(n map[string]int, k int) [][2]any {
	names := sortedKeys(n)
	var visits []string // each visit of each point, in a stable order
	for _, name := range names {
		for i := 1; i <= n[name]; i++ {
			visits = append(visits, fmt.Sprintf("%s:%d", name, i))
		}
	}
	var out [][2]any
	seen := map[string]bool{}
	add := func(v string) {
		if seen[v] {
			return
		}
		seen[v] = true
		name, i, _ := strings.Cut(v, ":")
		num, _ := strconv.Atoi(i)
		out = append(out, [2]any{name, num})
	}
	for _, name := range names {
		if n[name] <= 2 {
			add(fmt.Sprintf("%s:%d", name, n[name]))
		}
	}
	for i := 0; i < k && len(visits) > 0; i++ {
		add(visits[(i*len(visits))/k+(len(visits)/k)/2])
	}
	return out
}

func sortedKeys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sizes of the harness's code action: how many files it rewrites, deletes
// and creates.
type sizes struct{ rewrite, delete, create int }

// big is the action of the report that asked for the harness; small
// keeps the many runs of the code action's kill points quicker.
var (
	big   = sizes{1000, 200, 2000}
	small = sizes{300, 50, 500}
)

func (r *crashRig) seed(z sizes) {
	r.T.Helper()
	if err := os.RemoveAll(r.WS); err != nil {
		r.T.Fatal(err)
	}
	for _, d := range []string{"files", "del", ".freeact"} {
		if err := os.MkdirAll(filepath.Join(r.WS, d), 0o755); err != nil {
			r.T.Fatal(err)
		}
	}
	for i := range z.rewrite {
		fronttest.Write1(r.T, filepath.Join(r.WS, "files", fmt.Sprintf("f%04d.txt", i)), fmt.Sprintf("old %d\n", i))
	}
	for i := range z.delete {
		fronttest.Write1(r.T, filepath.Join(r.WS, "del", fmt.Sprintf("d%04d.txt", i)), fmt.Sprintf("doomed %d\n", i))
	}
	agentJSON, _ := json.Marshal(map[string]any{"python": r.Py, "enable_subagents": false})
	fronttest.Write1(r.T, filepath.Join(r.WS, ".freeact", "agent.json"), string(agentJSON))
}

func actionScenario(z sizes) string {
	code, _ := json.Marshal(fmt.Sprintf(`import os
for i in range(%d):
    open(f"files/f{i:04d}.txt", "w").write(f"new {i}\n")
for i in range(%d):
    os.remove(f"del/d{i:04d}.txt")
os.makedirs("made", exist_ok=True)
for i in range(%d):
    open(f"made/m{i:04d}.txt", "w").write(f"made {i}\n")
print("done")`, z.rewrite, z.delete, z.create))
	return `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: ` + string(code) + `}}}]
  - reply: [{text: "Changed the files."}]
`
}

const resumeScenario = `
turns:
  - reply: [{text: "Still here."}]
`

// sessionID returns the one session of the workspace; "" when none was
// written.
func (r *crashRig) sessionID() string {
	entries, _ := os.ReadDir(filepath.Join(r.WS, ".freeact", "sessions"))
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			if _, err := os.Stat(filepath.Join(r.WS, ".freeact", "sessions", e.Name(), "main.jsonl")); err == nil {
				return e.Name()
			}
		}
	}
	return ""
}

// snapshotDirs copies the workspace and the XDG folders (the checkpoint
// store) aside, for restore.
func (r *crashRig) snapshotDirs() string {
	r.T.Helper()
	dir := r.T.TempDir()
	for _, p := range []string{r.WS, r.Home} {
		if out, err := exec.Command("cp", "-a", p, filepath.Join(dir, filepath.Base(p))).CombinedOutput(); err != nil {
			r.T.Fatalf("cp: %v %s", err, out)
		}
	}
	return dir
}

// restoreDirs puts back what snapshotDirs copied.
func (r *crashRig) restoreDirs(saved string) {
	r.T.Helper()
	for _, p := range []string{r.WS, r.Home} {
		if err := os.RemoveAll(p); err != nil {
			r.T.Fatal(err)
		}
		if out, err := exec.Command("cp", "-a", filepath.Join(saved, filepath.Base(p)), p).CombinedOutput(); err != nil {
			r.T.Fatalf("cp: %v %s", err, out)
		}
	}
}

var revertID = regexp.MustCompile(`checkpoint ([0-9a-f]{8})`)

// checkRevertable reverts the latest turn (it must give want) and undoes
// the revert (it must give back what was there).
func (r *crashRig) checkRevertable(env []string, want map[string]string) {
	r.T.Helper()
	now := fronttest.WSFiles(r.T, r.WS)
	out := r.must(env, "", "checkpoints", "revert", "--yes", "--force", "--workspace", r.WS)
	if got := fronttest.WSFiles(r.T, r.WS); !fronttest.SameFiles(got, want) {
		r.T.Fatalf("the revert did not restore the files before the turn: %s\n%s", fronttest.DiffFiles(got, want), out)
	}
	m := revertID.FindStringSubmatch(out)
	if m == nil {
		r.T.Fatalf("the revert named no checkpoint:\n%s", out)
	}
	out = r.must(env, "", "checkpoints", "revert", "--yes", "--force", "--workspace", r.WS, m[1])
	if got := fronttest.WSFiles(r.T, r.WS); !fronttest.SameFiles(got, now) {
		r.T.Fatalf("undoing the revert did not bring back everything it changed: %s\n%s", fronttest.DiffFiles(got, now), out)
	}
}

// checkResume resumes the session (when one was written): its history
// must load, and the run must succeed.
func (r *crashRig) checkResume() string {
	r.T.Helper()
	sid := r.sessionID()
	if sid == "" {
		return ""
	}
	return r.must(r.Env(resumeScenario, "", 0, ""), "", "run", "--workspace", r.WS, "--session-id", sid, "--prompt", "Still there?")
}

// A code action killed at points spread over its snapshots, its record
// and its session writes: after each, the files are the action's result,
// its record is there (completed late when it was pending), reverting it
// restores the files before, and undoing that restores the action's.
func TestCrashCodeAction(t *testing.T) {
	k := crashPointsPerOp(t)
	r := newCrashRig(t)
	r.seed(small)
	before := fronttest.WSFiles(t, r.WS)
	saved := r.snapshotDirs()
	args := []string{"run", "--workspace", r.WS, "--skip-permissions", "--prompt", "Change the files."}
	n := r.countPoints(actionScenario(small), "", args...)
	after := fronttest.WSFiles(t, r.WS)
	if fronttest.SameFiles(before, after) {
		t.Fatal("the action changed nothing")
	}
	t.Logf("kill points reached by a code action: %v", n)
	for _, p := range crashPlan(n, k) {
		name, at := p[0].(string), p[1].(int)
		t.Run(fmt.Sprintf("%s:%d", name, at), func(t *testing.T) {
			r.T = t
			r.restoreDirs(saved)
			out, killed, err := r.Run(r.Env(actionScenario(small), name, at, ""), "", args...)
			if err != nil || !killed {
				t.Fatalf("the run was not killed at %s:%d: %v\n%s", name, at, err, out)
			}
			env := r.Env("", "", 0, "")
			list := r.must(env, "", "checkpoints", "list", "--workspace", r.WS)
			got := fronttest.WSFiles(t, r.WS)
			switch {
			case fronttest.SameFiles(got, before):
				if strings.Contains(list, "turn 1") {
					t.Fatalf("a turn that changed nothing is listed:\n%s", list)
				}
			case fronttest.SameFiles(got, after):
				if strings.Contains(list, "No checkpoints") {
					t.Fatalf("the action's changes are not recorded:\n%s", list)
				}
				r.checkRevertable(env, before)
			default:
				t.Fatalf("the workspace is neither before nor after the action: %s", fronttest.DiffFiles(got, after))
			}
			r.checkResume()
		})
	}
}

// revertRow finds the id of the newest revert in `checkpoints list`.
var revertRow = regexp.MustCompile(`(?m)^([0-9a-f]{8})\s.*\sRevert`)

// undo reverts the revert id and checks that it gives want.
func (r *crashRig) undo(env []string, id string, want map[string]string) {
	r.T.Helper()
	out := r.must(env, "", "checkpoints", "revert", "--yes", "--force", "--workspace", r.WS, id)
	if got := fronttest.WSFiles(r.T, r.WS); !fronttest.SameFiles(got, want) {
		r.T.Fatalf("Undo did not restore everything the revert changed: %s\n%s", fronttest.DiffFiles(got, want), out)
	}
}

// A revert of thousands of files killed at points spread over its
// snapshots, its journal, its file writes and its record: the next start
// says it was interrupted whenever the files are a mix, and finishing it
// (whose Undo restores everything) or rolling it back leaves them wholly
// after or wholly before.
func TestCrashRevert(t *testing.T) {
	k := crashPointsPerOp(t)
	r := newCrashRig(t)
	r.seed(big)
	orig := fronttest.WSFiles(t, r.WS)
	r.must(r.Env(actionScenario(big), "", 0, ""), "", "run", "--workspace", r.WS, "--skip-permissions", "--prompt", "Change the files.")
	changed := fronttest.WSFiles(t, r.WS)
	saved := r.snapshotDirs()
	args := []string{"checkpoints", "revert", "--yes", "--workspace", r.WS}
	n := r.countPoints("", "", args...)
	t.Logf("kill points reached by a revert of %d changed files: %v", big.rewrite+big.delete+big.create, n)
	for i, p := range crashPlan(n, k) {
		name, at := p[0].(string), p[1].(int)
		t.Run(fmt.Sprintf("%s:%d", name, at), func(t *testing.T) {
			r.T = t
			r.restoreDirs(saved)
			out, killed, err := r.Run(r.Env("", name, at, ""), "", args...)
			if err != nil || !killed {
				t.Fatalf("the revert was not killed at %s:%d: %v\n%s", name, at, err, out)
			}
			env := r.Env("", "", 0, "")
			list := r.must(env, "", "checkpoints", "list", "--workspace", r.WS)
			got := fronttest.WSFiles(t, r.WS)
			if strings.Contains(list, "A revert was interrupted") {
				if i%2 == 0 {
					out := r.must(env, "", "checkpoints", "finish", "--workspace", r.WS)
					if got := fronttest.WSFiles(t, r.WS); !fronttest.SameFiles(got, orig) {
						t.Fatalf("finish left %s\n%s", fronttest.DiffFiles(got, orig), out)
					}
					m := revertID.FindStringSubmatch(out)
					if m == nil {
						t.Fatalf("finish named no checkpoint:\n%s", out)
					}
					r.undo(env, m[1], changed)
					return
				}
				out := r.must(env, "", "checkpoints", "rollback", "--workspace", r.WS)
				if got := fronttest.WSFiles(t, r.WS); !fronttest.SameFiles(got, changed) {
					t.Fatalf("rollback left %s\n%s", fronttest.DiffFiles(got, changed), out)
				}
				r.checkRevertable(env, orig)
				return
			}
			switch {
			case fronttest.SameFiles(got, changed): // it had not begun
				r.checkRevertable(env, orig)
			case fronttest.SameFiles(got, orig): // it was done
				m := revertRow.FindStringSubmatch(list)
				if m == nil {
					t.Fatalf("the files are reverted but no revert is listed:\n%s", list)
				}
				r.undo(env, m[1], changed)
			default:
				t.Fatalf("the files are a mix (%s) and no interrupted revert is reported:\n%s", fronttest.DiffFiles(got, orig), list)
			}
		})
	}
}

// sessionScenario is a short conversation of two turns, for the session
// and export kill points.
const sessionScenario = `
turns:
  - reply: [{text: "Hello to you."}]
  - reply: [{text: "Still here."}]
  - reply: [{text: "We greeted each other twice."}]
`

// seedSession writes a workspace with a session of two turns (Python's
// agent.json, no files) and returns its id.
func (r *crashRig) seedSession() string {
	r.T.Helper()
	r.seed(sizes{})
	r.must(r.Env(sessionScenario, "", 0, ""), "Hello.\nAre you there?\nq\n", "run", "--workspace", r.WS)
	sid := r.sessionID()
	if sid == "" {
		r.T.Fatal("no session was written")
	}
	return sid
}

// A compaction killed at each point it reaches (its summary's record, the
// session lines written meanwhile): the session resumes, with the
// compaction or without it, and a line cut off is reported.
func TestCrashCompaction(t *testing.T) {
	k := crashPointsPerOp(t)
	r := newCrashRig(t)
	sid := r.seedSession()
	saved := r.snapshotDirs()
	args := []string{"run", "--workspace", r.WS, "--session-id", sid}
	const compact = `
turns:
  - reply: [{text: "We greeted each other twice."}]
`
	n := r.countPoints(compact, "/compact\nq\n", args...)
	t.Logf("kill points reached by a compaction: %v", n)
	comps := filepath.Join(r.WS, ".freeact", "sessions", sid, "compactions", "main.jsonl")
	for _, p := range crashPlan(n, k) {
		name, at := p[0].(string), p[1].(int)
		t.Run(fmt.Sprintf("%s:%d", name, at), func(t *testing.T) {
			r.T = t
			r.restoreDirs(saved)
			out, killed, err := r.Run(r.Env(compact, name, at, ""), "/compact\nq\n", args...)
			if err != nil || !killed {
				t.Fatalf("the compaction was not killed at %s:%d: %v\n%s", name, at, err, out)
			}
			data, _ := os.ReadFile(comps)
			torn := len(data) > 0 && data[len(data)-1] != '\n'
			out = r.checkResume()
			if torn && !strings.Contains(out, "compactions/main.jsonl") {
				t.Fatalf("a torn compaction line was not reported:\n%s", out)
			}
			data, _ = os.ReadFile(comps)
			if lines := bytes.Count(data, []byte("\n")); lines > 1 || (len(data) > 0 && data[len(data)-1] != '\n') {
				t.Fatalf("compactions after the resume: %q", data)
			}
		})
	}
}

// Session writes killed halfway through a line (a torn write at each
// append of a turn): the resume drops the torn line, says so once, and the
// history loads.
func TestCrashSessionWrite(t *testing.T) {
	k := crashPointsPerOp(t)
	r := newCrashRig(t)
	r.seed(sizes{})
	saved := r.snapshotDirs()
	args := []string{"run", "--workspace", r.WS, "--skip-permissions", "--prompt", "Change the files."}
	n := r.countPoints(actionScenario(sizes{2, 1, 2}), "", args...)
	n = map[string]int{"session.append": n["session.append"]}
	t.Logf("kill points reached by session writes: %v", n)
	for _, p := range crashPlan(n, k) {
		name, at := p[0].(string), p[1].(int)
		t.Run(fmt.Sprintf("%s:%d", name, at), func(t *testing.T) {
			r.T = t
			r.restoreDirs(saved)
			out, killed, err := r.Run(r.Env(actionScenario(sizes{2, 1, 2}), name, at, ""), "", args...)
			if err != nil || !killed {
				t.Fatalf("not killed at %s:%d: %v\n%s", name, at, err, out)
			}
			out = r.checkResume()
			if !strings.Contains(out, "was cut off when freeact stopped") {
				t.Fatalf("the torn line was not reported:\n%s", out)
			}
			if out := r.checkResume(); strings.Contains(out, "was cut off") {
				t.Fatalf("the repair was reported twice:\n%s", out)
			}
		})
	}
}

// An export over an existing file killed at each point it reaches: the
// file is the old one or the whole new one.
func TestCrashExport(t *testing.T) {
	k := crashPointsPerOp(t)
	r := newCrashRig(t)
	sid := r.seedSession()
	dest := filepath.Join(r.WS, "out.ipynb")
	fronttest.Write1(t, dest, "the old export\n")
	saved := r.snapshotDirs()
	args := []string{"export", "--workspace", r.WS, "--session", sid, "-o", dest}
	n := r.countPoints("", "", args...)
	full, _ := os.ReadFile(dest)
	t.Logf("kill points reached by an export: %v", n)
	for _, p := range crashPlan(n, k) {
		name, at := p[0].(string), p[1].(int)
		t.Run(fmt.Sprintf("%s:%d", name, at), func(t *testing.T) {
			r.T = t
			r.restoreDirs(saved)
			out, killed, err := r.Run(r.Env("", name, at, ""), "", args...)
			if err != nil || !killed {
				t.Fatalf("not killed at %s:%d: %v\n%s", name, at, err, out)
			}
			got, _ := os.ReadFile(dest)
			if string(got) != "the old export\n" && !bytes.Equal(got, full) {
				t.Fatalf("the export is neither the old file nor the new one: %d bytes", len(got))
			}
			r.must(r.Env("", "", 0, ""), "", args...)
			if got, _ := os.ReadFile(dest); !bytes.Equal(got, full) {
				t.Fatal("exporting again did not write the whole file")
			}
		})
	}
}

// start starts freeact and returns it with a reader of its output.
func (r *crashRig) start(env []string, args ...string) (*exec.Cmd, *screen, func(string)) {
	r.T.Helper()
	cmd := exec.Command(r.Bin, args...)
	cmd.Env = env
	scr := &screen{}
	cmd.Stdout, cmd.Stderr = scr, scr
	in, err := cmd.StdinPipe()
	if err != nil {
		r.T.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		r.T.Fatal(err)
	}
	r.T.Cleanup(func() { in.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, scr, func(s string) {
		if s == "" {
			in.Close()
			return
		}
		_, _ = in.Write([]byte(s))
	}
}

// Two processes on one session: the second is refused with the first's
// pid, can continue in a copy (--fork), and the session's file holds only
// the first one's turns.
func TestTwoProcessesOneSession(t *testing.T) {
	r := newCrashRig(t)
	sid := r.seedSession()
	a, scr, send := r.start(r.Env(resumeScenario, "", 0, ""), "run", "--workspace", r.WS, "--session-id", sid)
	scr.expect(t, "type a request")
	out, _, err := r.Run(r.Env(resumeScenario, "", 0, ""), "", "run", "--workspace", r.WS, "--session-id", sid, "--prompt", "Me too.")
	if err == nil || !strings.Contains(out, fmt.Sprintf("this conversation is open in another freeact window, pid %d", a.Process.Pid)) || !strings.Contains(out, "--fork") {
		t.Fatalf("a second writer was not refused (%v):\n%s", err, out)
	}
	out = r.must(r.Env(resumeScenario, "", 0, ""), "", "run", "--workspace", r.WS, "--session-id", sid, "--fork", "--prompt", "Me too.")
	if !strings.Contains(out, "a copy of session "+sid) || !strings.Contains(out, "Still here.") {
		t.Fatalf("--fork:\n%s", out)
	}
	send("Are you there?\n")
	scr.expect(t, "Still here.")
	send("")
	if err := a.Wait(); err != nil {
		t.Fatalf("the first writer: %v\n%s", err, scr.String())
	}
	data, err := os.ReadFile(filepath.Join(r.WS, ".freeact", "sessions", sid, "main.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("Me too.")) {
		t.Fatal("the refused writer's prompt is in the session")
	}
	if c := bytes.Count(data, []byte("Are you there?")); c != 2 {
		t.Fatalf("the session holds %q %d times, want 2 (the seed's and the first writer's)", "Are you there?", c)
	}
}

// Two processes on one workspace with different sessions, whose actions
// would overlap: the second waits for the first (and says so), and each
// turn's checkpoint holds only its own file, so reverting one leaves the
// other's.
func TestTwoProcessesOneWorkspace(t *testing.T) {
	r := newCrashRig(t)
	r.seed(sizes{})
	ctl := t.TempDir()
	release := filepath.Join(ctl, "release")
	codeA, _ := json.Marshal(fmt.Sprintf("import os, time\nopen('a.txt', 'w').write('a')\nopen(%q, 'w').close()\nwhile not os.path.exists(%q):\n    time.sleep(0.01)\nprint('a done')", filepath.Join(ctl, "a-running"), release))
	codeB, _ := json.Marshal("open('b.txt', 'w').write('b')\nprint('b done')")
	scenario := func(code []byte) string {
		return "turns:\n  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: " + string(code) + "}}}]\n  - reply: [{text: \"Written.\"}]\n"
	}
	a, scrA, _ := r.start(r.Env(scenario(codeA), "", 0, ""), "run", "--workspace", r.WS, "--skip-permissions", "--prompt", "Write a.")
	testenv.Eventually(t, 90*time.Second, func() error {
		if _, err := os.Stat(filepath.Join(ctl, "a-running")); err != nil {
			return fmt.Errorf("A's action did not start: %s", scrA.String())
		}
		return nil
	})
	b, scrB, _ := r.start(r.Env(scenario(codeB), "", 0, ""), "run", "--workspace", r.WS, "--skip-permissions", "--prompt", "Write b.")
	scrB.expect(t, fmt.Sprintf("Waiting for an action of another freeact process on this workspace (pid %d)", a.Process.Pid))
	if _, err := os.Stat(filepath.Join(r.WS, "b.txt")); err == nil {
		t.Fatal("B's action ran while A's was running")
	}
	fronttest.Write1(t, release, "")
	if err := a.Wait(); err != nil {
		t.Fatalf("A: %v\n%s", err, scrA.String())
	}
	if err := b.Wait(); err != nil {
		t.Fatalf("B: %v\n%s", err, scrB.String())
	}
	env := r.Env("", "", 0, "")
	list := r.must(env, "", "checkpoints", "list", "--workspace", r.WS)
	turnA := regexp.MustCompile(`(?m)^([0-9a-f]{8})\s+(\S+)\s.*\s1\s+turn 1: Write a\.`).FindStringSubmatch(list)
	turnB := regexp.MustCompile(`(?m)^([0-9a-f]{8})\s+(\S+)\s.*\s1\s+turn 1: Write b\.`).FindStringSubmatch(list)
	if turnA == nil || turnB == nil || turnA[2] == turnB[2] {
		t.Fatalf("want two turns 1 of two sessions, one file each:\n%s", list)
	}
	r.must(env, "", "checkpoints", "revert", "--yes", "--workspace", r.WS, turnA[1])
	got := fronttest.WSFiles(t, r.WS)
	if _, ok := got["a.txt"]; ok {
		t.Fatal("reverting A's turn left a.txt")
	}
	if _, ok := got["b.txt"]; !ok {
		t.Fatal("reverting A's turn took B's file")
	}
}
