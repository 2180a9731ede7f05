package desktop

import (
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/model/modeltest"
)

// Retry of a turn that failed after its action ran continues it, in this
// window and in a new one that reopened the session: the model gets the
// action's result and a note to go on, no prompt is sent again, and the
// action is not asked for (nor run) a second time.
func TestContinueTurnAfterAKeptFailure(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "runs = globals().get('runs', 0) + 1"}}}]
  - error: {status: 400, message: "bad request"}
  - expect:
      has: [{role: user, response: ipybox_execute_ipython_cell}]
      last: [{role: user, text: "turn-resumed"}]
    error: {status: 400, message: "bad again"}
  - expect:
      last: [{role: user, text: "turn-resumed"}]
    reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "print(runs)"}}}]
  - reply: [{text: "Counted once."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	ready := h.waitState(t, KernelReady)
	if err := d.ContinueTurn(); err != nil {
		t.Fatal(err)
	}
	f, i := h.waitEvent(t, "Failed", 0)
	if f["kept"] == true {
		t.Errorf("nothing had failed, yet Continue ran: %v", f)
	}
	i = h.waitTurnEnded(t, i)
	if err := d.Send("Count the runs.", nil); err != nil {
		t.Fatal(err)
	}
	appr, i := h.waitEvent(t, "ApprovalRequest", i)
	if err := d.Approve(appr["request_id"].(string), "yes", ""); err != nil {
		t.Fatal(err)
	}
	f, i = h.waitEvent(t, "Failed", i)
	if f["kept"] != true {
		t.Fatalf("the turn's failure is not kept: %v", f)
	}
	i = h.waitTurnEnded(t, i)

	if err := d.ContinueTurn(); err != nil {
		t.Fatal(err)
	}
	f, i = h.waitEvent(t, "Failed", i)
	if f["kept"] != true {
		t.Fatalf("a Continue that failed again lost the kept turn: %v", f)
	}
	i = h.waitTurnEnded(t, i)
	if err := d.ContinueTurn(); err != nil {
		t.Fatal(err)
	}
	appr, i = h.waitEvent(t, "ApprovalRequest", i)
	call, _ := appr["tool_call"].(map[string]any)
	if call["code"] != "print(runs)" {
		t.Fatalf("Continue asked for %v, want the next step", call["code"])
	}
	if err := d.Approve(appr["request_id"].(string), "yes", ""); err != nil {
		t.Fatal(err)
	}
	out, i := h.waitEvent(t, "CodeExecutionOutput", i)
	if text, _ := out["text"].(string); strings.TrimSpace(text) != "1" {
		t.Errorf("runs = %q after Continue, want 1: the kept action ran again", text)
	}
	r, i := h.waitEvent(t, "Response", i)
	if r["text"] != "Counted once." {
		t.Errorf("response %v", r["text"])
	}
	h.waitTurnEnded(t, i)
	if n := h.countAfter("UserMessage", 0); n != 1 {
		t.Errorf("%d prompts shown, want 1: Continue sent a prompt", n)
	}

	// Reopened in a new window, the finished turn has nothing to continue.
	d.shutdown()
	h2 := &fakeHost{}
	d2 := &Desktop{build: d.build, host: h2, store: d.store, log: d.log}
	if _, err := d2.OpenWorkspace(ws, ready.SessionID); err != nil {
		t.Fatal(err)
	}
	h2.waitState(t, KernelReady)
	h2.waitEvent(t, "TurnEnded", 0)
	// The history shows the kept failure too: look only after it.
	h2.mu.Lock()
	j := len(h2.events)
	h2.mu.Unlock()
	if err := d2.ContinueTurn(); err != nil {
		t.Fatal(err)
	}
	if f, _ := h2.waitEvent(t, "Failed", j); f["kept"] == true || !strings.Contains(f["error"].(string), "no failed turn to continue") {
		t.Errorf("Continue after a finished turn: %v", f)
	}
	d2.shutdown()
}

// waitTurnEnded waits for the end of the turn running after event from.
func (h *fakeHost) waitTurnEnded(t *testing.T, from int) int {
	t.Helper()
	_, i := h.waitEvent(t, "TurnEnded", from)
	return i
}
