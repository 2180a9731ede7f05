package app

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/testenv"
)

var raceBuilt struct {
	once sync.Once
	bin  string
	err  error
}

// raceBinary is freeact built with the race detector: a data race in the
// program makes it print "DATA RACE" and exit with status 66.
func raceBinary(t *testing.T) string {
	t.Helper()
	testenv.Integration(t, "the freeact binary and Python with ipykernel")
	raceBuilt.once.Do(func() {
		dir, err := os.MkdirTemp("", "freeact-race-bin-")
		if err != nil {
			raceBuilt.err = err
			return
		}
		raceBuilt.bin = filepath.Join(dir, "freeact")
		out, err := exec.Command("go", "build", "-race", "-o", raceBuilt.bin, "github.com/freeact/desktop").CombinedOutput()
		if err != nil {
			raceBuilt.err = errors.New(string(out))
		}
	})
	if raceBuilt.err != nil {
		t.Fatalf("build freeact -race: %v", raceBuilt.err)
	}
	return raceBuilt.bin
}

// A server's form and an approval opened at once by two threads of one
// cell are asked one after the other in the interactive terminal: the
// second waits (saying so) until the first is answered, then says it is
// next, and each answer reaches the question it was typed for. The
// program runs under the race detector: no two readers share stdin.
func TestTerminalAsksAFormAndAnApprovalOneAtATime(t *testing.T) {
	bin := raceBinary(t)
	cell := `import threading
from freeact_runtime import call_tool
out = {}
def run(k, tool, args):
    try:
        out[k] = call_tool("everything", tool, args)
    except Exception as e:
        out[k] = "refused: %s" % e
ts = [threading.Thread(target=run, args=("form", "trigger-elicitation-request", {})),
      threading.Thread(target=run, args=("echo", "echo", {"message": "hello there"}))]
for th in ts: th.start()
for th in ts: th.join()
print("FORM:", out["form"])
print("ECHO:", out["echo"])`
	code, _ := json.Marshal(cell)
	ws, env, _ := terminalEnv(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: `+string(code)+`}}}]
  - reply: [{text: "Both answered."}]
`)
	everythingWorkspace(t, ws, "ptc_servers")
	// The form's call needs no approval: it opens while the echo's
	// approval is asked, or the other way round.
	perms := `{"allow":[{"type":"GenericCall","tool_name":"everything_trigger-elicitation-request"}],"ask":[]}`
	if err := os.WriteFile(filepath.Join(ws, ".freeact", "permissions.json"), []byte(perms), 0o644); err != nil {
		t.Fatal(err)
	}
	scr, send, exited := startTerminal(t, exec.Command(bin, "run", "--workspace", ws), env, 200)
	scr.expect(t, "> ")
	send("Ask me twice.\r")
	scr.expect(t, "Approve?") // the cell
	send("y\r")

	formFirst := `(an approval waits until a form of MCP server "everything" is answered)`
	approvalFirst := `(a form of MCP server "everything" waits until an approval is answered)`
	var first string
	testenv.Eventually(t, 2*time.Minute, func() error {
		s := scr.String()
		switch {
		case strings.Contains(s, formFirst):
			first = "form"
		case strings.Contains(s, approvalFirst):
			first = "approval"
		default:
			return errors.New("the two questions are not both open, one waiting")
		}
		return nil
	})
	if first == "form" {
		scr.expect(t, "Answer it? [y/N/c(ancel)]")
		send("n\r") // declines the form; taken by the approval it would reject the echo
		scr.expect(t, "── next: an approval ──")
		scr.expect(t, "Approve?")
		send("y\r")
	} else {
		scr.expect(t, "Approve?")
		send("y\r")
		scr.expect(t, `── next: a form of MCP server "everything" ──`)
		scr.expect(t, "Answer it? [y/N/c(ancel)]")
		send("n\r")
	}
	scr.expect(t, "Both answered.")
	scr.expect(t, "> ")
	quit(t, send, exited)
	s := scr.String()
	if !strings.Contains(s, "ECHO: ") || !strings.Contains(s, "hello there") || strings.Contains(s, "ECHO: refused") {
		t.Errorf("the approved echo did not run:\n%s", s)
	}
	if !strings.Contains(s, "FORM: ") || !strings.Contains(strings.ToLower(s[strings.Index(s, "FORM: "):]), "declined") {
		t.Errorf("the form was not declined:\n%s", s)
	}
	if strings.Contains(s, "DATA RACE") {
		t.Errorf("a data race:\n%s", s)
	}
}
