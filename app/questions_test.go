package app

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/app/internal/fronttest"
	"github.com/freeact/desktop/app/terminal"
	"github.com/freeact/desktop/internal/testenv"
)

// These tests drive `freeact run --json` as a script does: they read its
// events line by line and answer its questions on stdin, with the real
// server-everything asking for forms.

// jsonRun is a running `freeact run --json`.
type jsonRun struct {
	t      *testing.T
	stdin  io.WriteCloser
	events chan map[string]any
	// exited is closed when freeact has exited, with its status in
	// exitErr: closed, not sent, so that both wait and the test's cleanup
	// see it (a value sent once made the cleanup wait out its 30 s).
	exited  chan struct{}
	exitErr error
	mu      sync.Mutex
	out     []string // every line of stdout
	stderr  bytes.Buffer
}

// everythingWorkspace adds server-everything to the workspace of
// terminalEnv: as JSON tools (mcp_servers) or as code (ptc_servers).
func everythingWorkspace(t *testing.T, ws, group string) {
	t.Helper()
	js := testenv.MCPServer(t, "server-everything")
	p := filepath.Join(ws, ".freeact", "agent.json")
	var cfg map[string]any
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg[group] = map[string]any{"everything": map[string]any{"command": "node", "args": []string{js, "stdio"}, "connect_timeout": 60}}
	if b, err = json.Marshal(cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func startJSON(t *testing.T, bin string, env []string, args ...string) *jsonRun {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"run", "--json"}, args...)...)
	cmd.Env = env
	r := &jsonRun{t: t, events: make(chan map[string]any, 1000), exited: make(chan struct{})}
	cmd.Stderr = &fronttest.SyncWriter{Mu: &r.mu, W: &r.stderr}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.stdin = in
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			r.mu.Lock()
			r.out = append(r.out, sc.Text())
			r.mu.Unlock()
			var ev map[string]any
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				ev = map[string]any{"type": "NotJSON", "line": sc.Text()}
			}
			r.events <- ev
		}
		close(r.events)
		r.exitErr = cmd.Wait()
		close(r.exited)
	}()
	t.Cleanup(func() {
		in.Close()
		select {
		case <-r.exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("stdout:\n%s\nstderr:\n%s", r.transcript(), r.errText())
		}
	})
	return r
}

func (r *jsonRun) transcript() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.out, "\n")
}

func (r *jsonRun) errText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stderr.String()
}

// next waits for the next event of type typ, passing over others; a
// NotJSON line fails the test.
func (r *jsonRun) next(typ string) map[string]any {
	r.t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case ev, ok := <-r.events:
			if !ok {
				r.t.Fatalf("freeact ended before a %s event", typ)
			}
			if ev["type"] == "NotJSON" {
				r.t.Fatalf("a line of stdout is not JSON: %q", ev["line"])
			}
			if ev["type"] == typ {
				return ev
			}
		case <-deadline:
			r.t.Fatalf("no %s event came", typ)
		}
	}
}

// send writes a line to stdin.
func (r *jsonRun) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.stdin, line+"\n"); err != nil {
		r.t.Fatalf("write %q: %v", line, err)
	}
}

// wait closes stdin and waits for the exit, which must be status want.
func (r *jsonRun) wait(want int) {
	r.t.Helper()
	r.stdin.Close()
	for range r.events {
	}
	testenv.Receive(r.t, r.exited, 2*time.Minute, "the exit of freeact")
	err := r.exitErr
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		r.t.Fatal(err)
	}
	if status != want {
		r.t.Fatalf("exit status %d, want %d", status, want)
	}
}

// ada is a filled-in answer to server-everything's form.
func ada(id, name string) string {
	return fmt.Sprintf(`{"id":%q,"action":"accept","content":{"name":%q,"check":true,"email":"ada@example.com","untitledMultipleSelectEnum":["Piano"]}}`, id, name)
}

// A form in --json mode is a FormRequest question with an id: a bare y
// still answers the approval before it, lines that do not answer it get
// AnswerError events while it stays open, and an answer naming it
// reaches the server (the defaults of the fields left out with it).
func TestRunJSONAnswersAForm(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, _ := terminalEnv(t, `
turns:
  - reply: [{call: {id: c1, name: everything_trigger-elicitation-request, args: {}}}]
  - expect:
      last: [{role: user, response: everything_trigger-elicitation-request, output: "Name: Ada Lovelace"}]
    reply: [{text: "Done."}]
`)
	everythingWorkspace(t, ws, "mcp_servers")
	r := startJSON(t, bin, env, "--workspace", ws, "--prompt", "Ask me.")
	approval := r.next("ApprovalRequest")
	if approval["id"] != "q1" {
		t.Fatalf("the approval has no id q1: %v", approval)
	}
	r.send("y")
	form := r.next("FormRequest")
	id, _ := form["id"].(string)
	if id != "q2" || form["server"] != "everything" || form["mode"] != "form" || !strings.Contains(fmt.Sprint(form["message"]), "Please provide inputs") {
		t.Fatalf("form event %v", form)
	}
	var names []string
	for _, f := range form["fields"].([]any) {
		names = append(names, f.(map[string]any)["name"].(string))
	}
	if !strings.Contains(strings.Join(names, " "), "name") || !strings.Contains(strings.Join(names, " "), "integer") {
		t.Errorf("fields %v", names)
	}
	for _, bad := range []struct{ line, id, says string }{
		{`{"id":"q2","action":"accept"`, "", "not an answer"},
		{`{"id":"q9","action":"accept"}`, "q9", "no question q9 is open"},
		{`{"id":"q2","action":"maybe"}`, "q2", `action "maybe"`},
		{`{"id":"q2","action":"accept","content":{"name":7}}`, "q2", "name"},
		{`{"id":"q2","action":"accept","content":{},"colour":"red"}`, "", `unknown key "colour"`},
		{`y`, "", "answers no open question"},
	} {
		r.send(bad.line)
		e := r.next("AnswerError")
		if got, _ := e["id"].(string); got != bad.id || !strings.Contains(fmt.Sprint(e["error"]), bad.says) {
			t.Errorf("answer %s: error event %v, want id %q and %q", bad.line, e, bad.id, bad.says)
		}
	}
	r.send(ada("q2", "Ada Lovelace"))
	out := r.next("ToolOutput")
	if c := fmt.Sprint(out["content"]); !strings.Contains(c, "Name: Ada Lovelace") || !strings.Contains(c, "Favorite Integer: 42") {
		t.Errorf("the server did not get the answer and the defaults: %s", c)
	}
	if resp := r.next("Response"); resp["text"] != "Done." {
		t.Errorf("response %v", resp)
	}
	r.wait(0)
	if strings.Contains(r.transcript(), "QuestionClosed") {
		t.Errorf("a question was closed unanswered:\n%s", r.transcript())
	}
}

// Without an answer (stdin ends) the form is declined, and the server is
// told why; the turn goes on.
func TestRunJSONFormDeclinedAtEndOfInput(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, _ := terminalEnv(t, `
turns:
  - reply: [{call: {id: c1, name: everything_trigger-elicitation-request, args: {}}}]
  - expect:
      last: [{role: user, response: everything_trigger-elicitation-request, output: "declined"}]
    reply: [{text: "No answer."}]
`)
	everythingWorkspace(t, ws, "mcp_servers")
	r := startJSON(t, bin, env, "--workspace", ws, "--skip-permissions", "--prompt", "Ask me.")
	r.stdin.Close()
	form := r.next("FormRequest")
	closed := r.next("QuestionClosed")
	if closed["id"] != form["id"] || closed["reason"] != terminal.NoAnswer {
		t.Errorf("closed %v for form %v", closed, form["id"])
	}
	out := r.next("ToolOutput")
	if c := fmt.Sprint(out["content"]); !strings.Contains(c, "User declined") || !strings.Contains(c, terminal.NoAnswer) {
		t.Errorf("the server was not told the form was declined, and why: %s", c)
	}
	r.wait(0)
}

// Two forms open at once (two threads of a cell call the server) are
// answered in the other order: each answer reaches its own call.
func TestRunJSONTwoFormsAnsweredOutOfOrder(t *testing.T) {
	bin := freeactBinary(t)
	cell := `import threading
from freeact_runtime import call_tool
out = {}
def ask(k):
    out[k] = call_tool("everything", "trigger-elicitation-request", {})
ts = [threading.Thread(target=ask, args=(k,)) for k in ("a", "b")]
for th in ts: th.start()
for th in ts: th.join()
print(sorted(str(v) for v in out.values()))`
	code, _ := json.Marshal(cell)
	ws, env, _ := terminalEnv(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: `+string(code)+`}}}]
  - reply: [{text: "Both answered."}]
`)
	everythingWorkspace(t, ws, "ptc_servers")
	r := startJSON(t, bin, env, "--workspace", ws, "--skip-permissions", "--prompt", "Ask me twice.")
	first, second := r.next("FormRequest"), r.next("FormRequest")
	r.send(ada(second["id"].(string), "Second Answer"))
	r.send(`n`) // a bare line answers no form: an error, both stay as they are
	if e := r.next("AnswerError"); e["id"] != nil {
		t.Errorf("error %v", e)
	}
	r.send(ada(first["id"].(string), "First Answer"))
	out := r.next("CodeExecutionOutput")
	if text := fmt.Sprint(out["text"]); !strings.Contains(text, "Name: First Answer") || !strings.Contains(text, "Name: Second Answer") {
		t.Errorf("the cell's output lacks an answer:\n%s", text)
	}
	r.next("Response")
	r.wait(0)
}

// Approvals are questions too: an answer object naming one answers it,
// with a scope; a bare line that is not y, n, a or s is an error and the
// approval stays open. A cell's input() is a question that a bare line
// answers with its text.
func TestRunJSONApprovalByID(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, _ := terminalEnv(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "print('hi', input('name? '))"}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "hi Ada"}]
    reply: [{text: "It is 42."}]
`)
	r := startJSON(t, bin, env, "--workspace", ws, "--prompt", "What is 6*7?")
	q := r.next("ApprovalRequest")
	r.send("maybe")
	if e := r.next("AnswerError"); e["id"] != q["id"] || !strings.Contains(fmt.Sprint(e["error"]), "send y, n, a, s or d") {
		t.Errorf("error %v", e)
	}
	r.send(fmt.Sprintf(`{"id":%q,"action":"accept","scope":"session"}`, q["id"]))
	if g := r.next("SessionGrants"); !strings.Contains(fmt.Sprint(g["grants"]), "ipybox_execute_ipython_cell") {
		t.Errorf("grants %v", g)
	}
	in := r.next("InputRequest")
	if in["id"] == nil || in["id"] == q["id"] || in["prompt"] != "name? " {
		t.Errorf("input request %v", in)
	}
	r.send("Ada")
	if resp := r.next("Response"); resp["text"] != "It is 42." {
		t.Errorf("response %v", resp)
	}
	r.wait(0)
}

// A resumed session's offer to replay its cells is a question in --json
// mode: accepted, the cells run again and the kernel has their state; a
// request line instead declines it and runs, as scripts written before
// the offer expect.
func TestRunJSONReplayOffer(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, _ := terminalEnv(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "x = 41"}}}]
  - reply: [{text: "Set."}]
  - expect:
      last: [{role: user, text: "What is x+1?"}]
    reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "print(x+1)"}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "42"}]
    reply: [{text: "42."}]
  - expect:
      last: [{role: user, text: "Anything?"}]
    reply: [{text: "Fresh."}]
`)
	r := startJSON(t, bin, env, "--workspace", ws, "--skip-permissions", "--prompt", "Set x.")
	r.next("Response")
	r.wait(0)
	entries, err := os.ReadDir(filepath.Join(ws, ".freeact", "sessions"))
	var id string
	for _, e := range entries {
		if e.IsDir() {
			id = e.Name()
		}
	}
	if err != nil || id == "" {
		t.Fatalf("sessions %v %v", entries, err)
	}

	r = startJSON(t, bin, env, "--workspace", ws, "--skip-permissions", "--session-id", id)
	offer := r.next("ReplayOffer")
	cells, _ := offer["cells"].([]any)
	if offer["id"] != "q1" || offer["reason"] != "resumed" || len(cells) != 1 || cells[0].(map[string]any)["code"] != "x = 41" {
		t.Fatalf("offer %v", offer)
	}
	r.send(`{"id":"q1","action":"accept"}`)
	r.next("CellsFinished")
	r.send("What is x+1?")
	if resp := r.next("Response"); resp["text"] != "42." {
		t.Errorf("response %v", resp)
	}
	r.wait(0)

	r = startJSON(t, bin, env, "--workspace", ws, "--skip-permissions", "--session-id", id)
	r.next("ReplayOffer")
	r.send("Anything?")
	if note := r.next("KernelStateNote"); note["event"] == nil {
		t.Errorf("note %v", note)
	}
	if resp := r.next("Response"); resp["text"] != "Fresh." {
		t.Errorf("response %v", resp)
	}
	r.wait(0)
}

// A budget request is a question too: accepted by its id, the budget is
// raised and the turn goes on.
func TestRunJSONBudgetQuestion(t *testing.T) {
	bin := freeactBinary(t)
	ws, env, _ := terminalEnv(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(1)"}}}]
    usage: {input: 20000, output: 100}
  - reply: [{text: "Spent."}]
`)
	p := filepath.Join(ws, ".freeact", "agent.json")
	data, _ := os.ReadFile(p)
	data = []byte(strings.Replace(string(data), "{", `{"max_cost_per_session": 0.015, `, 1))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := startJSON(t, bin, env, "--workspace", ws, "--skip-permissions", "--prompt", "Spend.")
	q := r.next("BudgetRequest")
	if q["id"] != "q1" || q["budget"] != 0.015 {
		t.Fatalf("budget request %v", q)
	}
	r.send(`{"id":"q1","action":"accept"}`)
	if resp := r.next("Response"); resp["text"] != "Spent." {
		t.Errorf("response %v", resp)
	}
	r.wait(0)
}
