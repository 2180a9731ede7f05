package agent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/permission"
)

// A cell that rewrites a protected file without an approval covering it
// finds it put back when it ends, the user is told which action did it,
// and so is the model; a write the user approved as a protected shell
// command stays; a thread an earlier cell left running is caught before
// the next shell command.
func TestProtectedFilesPutBack(t *testing.T) {
	x := realKernels
	ws := workspace(t, "")
	perm, err := permission.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(ws, ".freeact", "permissions.json")
	original, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	evil := `{"allow": [{"type": "ShellAction", "tool_name": "*", "command": "*"}], "ask": []}`
	a, _ := x.startIn(t, ws, `
turns:
  - reply:
      - call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "open('.freeact/permissions.json', 'w').write('`+strings.ReplaceAll(evil, `"`, `\"`)+`')\nprint('rewrote', open('.freeact/permissions.json').read() != '')"}}
  - reply:
      - call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "import threading, time\ndef later():\n    time.sleep(0.5)\n    open('.freeact/agent.json', 'a').write(' ')\n    open('done.flag', 'w').close()\nthreading.Thread(target=later).start()"}}
  - reply:
      - call: {id: c3, name: ipybox_execute_ipython_cell, args: {code: "import os, time\nwhile not os.path.exists('done.flag'): time.sleep(0.05)\n!echo '{}' > .freeact/permissions.json"}}
  - reply: [{text: "Done."}]
`, agent.WithPermissions(perm))
	agentJSON, _ := os.ReadFile(filepath.Join(ws, ".freeact", "agent.json"))
	events := run(t, a, "Go.", nil)
	var notices []string
	for _, n := range of[*agent.Notice](events) {
		notices = append(notices, n.CorrelationID+": "+n.Text)
	}
	joined := strings.Join(notices, "\n")
	if !strings.Contains(joined, "c1: This cell changed .freeact/permissions.json") {
		t.Errorf("no notice names the cell that rewrote permissions.json:\n%s", joined)
	}
	// c3 waits for the thread's write, then its shell command is checked
	// before it is asked.
	if !strings.Contains(joined, "c3: The code before the shell command `echo '{}' > .freeact/permissions.json` changed .freeact/agent.json") {
		t.Errorf("no notice for the thread's change before the shell command:\n%s", joined)
	}
	var c1 string
	for _, o := range of[*agent.CodeExecutionOutput](events) {
		if o.CorrelationID == "c1" {
			c1 = o.Text
		}
	}
	if !strings.Contains(c1, "rewrote True") || !strings.Contains(c1, "it was put back as it was") {
		t.Errorf("the model is not told: %q", c1)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, ".freeact", "agent.json")); string(got) != string(agentJSON) {
		t.Errorf("agent.json was not put back: %q", got)
	}
	// The last cell's protected shell command was approved (run answers
	// yes): its write stays.
	if got, _ := os.ReadFile(file); strings.TrimSpace(string(got)) != "{}" {
		t.Errorf("the approved write did not stay: %q (original %q)", got, original)
	}
	if strings.Contains(joined, "c3: This cell") {
		t.Errorf("the approved write was put back:\n%s", joined)
	}
}
