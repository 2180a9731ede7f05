package app

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/freeact/desktop/app/internal/fronttest"
)

// In --json mode stdout is only JSON lines: /diff is a Diff event, /undo
// says its plan and outcome in CommandOutput events around its Confirm
// question, /compact and /grants are events, and a revert a killed
// process left unfinished is a RevertInterrupted event at the start.
func TestRunJSONCommandsAreEvents(t *testing.T) {
	bin := fronttest.CrashBinary(t) // the plain binary with the kill points of the crash tests
	ws, env, _ := terminalEnv(t, `
turns:
  - reply: [{call: {id: w1, name: filesystem_write_text_file, args: {path: notes.txt, content: "new notes\n"}}}]
  - reply: [{text: "Changed it."}]
  - expect: {system_contains: "You summarise a working session"}
    reply: [{text: "SUMMARY-J: a file was changed and reverted."}]
`)
	notes := filepath.Join(ws, "notes.txt")
	if err := os.WriteFile(notes, []byte("old notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := startJSON(t, bin, env, "--workspace", ws, "--skip-permissions")
	r.send("Change the file.")
	r.next("Response")
	r.send("/diff")
	d := r.next("Diff")
	files, _ := d["files"].([]any)
	if d["prompt"] != "Change the file." || len(files) != 1 || !strings.Contains(fmt.Sprint(files[0]), "+new notes") {
		t.Errorf("diff event %v", d)
	}
	r.send("/undo")
	if plan := r.next("CommandOutput"); plan["command"] != "/undo" || !strings.Contains(fmt.Sprint(plan["text"]), "Revert turn 1: Change the file.") {
		t.Errorf("the plan %v", plan)
	}
	q := r.next("Confirm")
	r.send("n")
	if out := r.next("CommandOutput"); out["text"] != "Nothing was reverted." {
		t.Errorf("after n: %v", out)
	}
	r.send("/undo")
	r.next("Confirm")
	if q["id"] == nil {
		t.Errorf("the confirm has no id: %v", q)
	}
	r.send("y")
	out := r.next("CommandOutput")
	m := regexp.MustCompile(`checkpoint (\S+);`).FindStringSubmatch(fmt.Sprint(out["text"]))
	if m == nil {
		t.Fatalf("after y: %v", out)
	}
	if b, _ := os.ReadFile(notes); string(b) != "old notes\n" {
		t.Errorf("/undo left notes.txt %q", b)
	}
	r.send("/diff")
	if out := r.next("CommandOutput"); !strings.Contains(fmt.Sprint(out["text"]), "No turn of this session changed files") {
		t.Errorf("/diff after /undo: %v", out)
	}
	r.send("/grants")
	if out := r.next("CommandOutput"); out["command"] != "/grants" {
		t.Errorf("/grants: %v", out)
	}
	r.send("/compact")
	if c := r.next("Compacted"); !strings.Contains(fmt.Sprint(c["summary"]), "SUMMARY-J") {
		t.Errorf("compacted %v", c)
	}
	r.wait(0)
	allJSON(t, r)

	// Take the revert back in a process killed halfway: the next run says
	// so in an event.
	cmd := exec.Command(bin, "checkpoints", "revert", "--yes", "--workspace", ws, m[1])
	cmd.Env = append(env, "FREEACT_CRASH_AT=revert.journal:1")
	if b, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("the revert was not killed:\n%s", b)
	}
	r = startJSON(t, bin, env, "--workspace", ws)
	in := r.next("RevertInterrupted")
	if in["paths"] != 1.0 || !strings.Contains(fmt.Sprint(in["text"]), "freeact checkpoints finish") {
		t.Errorf("interrupted %v", in)
	}
	r.wait(0)
	allJSON(t, r)
}

// allJSON fails the test unless every line r wrote on stdout is a JSON
// object.
func allJSON(t *testing.T, r *jsonRun) {
	t.Helper()
	for _, l := range strings.Split(r.transcript(), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Errorf("a line of stdout is no JSON object: %q", l)
		}
	}
}
