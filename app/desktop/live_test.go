package desktop

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/internal/notify/notifytest"
	"github.com/freeact/desktop/internal/testenv"
)

// live returns the live conversation on session id.
func live(d *Desktop, id string) (LiveConversation, bool) {
	for _, c := range d.Conversations() {
		if c.SessionID == id {
			return c, true
		}
	}
	return LiveConversation{}, false
}

// waitLive waits for the conversation id to be in state with waiting
// requests.
func waitLive(t *testing.T, d *Desktop, id, state string, waiting int) LiveConversation {
	t.Helper()
	var c LiveConversation
	testenv.Eventually(t, 90*time.Second, func() error {
		var ok bool
		c, ok = live(d, id)
		if ok && c.State == state && c.Waiting == waiting {
			return nil
		}
		return fmt.Errorf("conversation %s is %+v, want %s with %d waiting; all: %+v", id, c, state, waiting, d.Conversations())
	})
	return c
}

// Two conversations run at once: the first's turn goes on while the
// second is in view; its approval waits in it (not answerable from the
// other), the desktop is notified, a click on the notification brings it
// back with the approval, and both finish.
func TestConversationsKeepRunningOutOfView(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: a1, name: ipybox_execute_ipython_cell, args: {code: "import os, time\nwhile not os.path.exists('go'):\n    time.sleep(0.02)\nprint('went')"}}}]
  - reply: [{text: "Second conversation answered."}]
  - expect:
      last: [{response: ipybox_execute_ipython_cell, output: "went"}]
    reply: [{call: {id: a2, name: ipybox_execute_ipython_cell, args: {code: "print('approved late')"}}}]
  - expect:
      last: [{response: ipybox_execute_ipython_cell, output: "approved late"}]
    reply: [{text: "First conversation done."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	addr := notifytest.Bus(t)
	srv := notifytest.Serve(t, addr)
	d.notify = newNotifier(d, addr)
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	first := h.waitState(t, KernelReady).SessionID
	if err := d.Send("Wait for the go file", nil); err != nil {
		t.Fatal(err)
	}
	appr, i := h.waitEvent(t, "ApprovalRequest", 0)
	waitLive(t, d, first, ConvWaiting, 1)
	if err := d.Approve(appr["request_id"].(string), "yes", ""); err != nil {
		t.Fatal(err)
	}
	waitLive(t, d, first, ConvRunning, 0)

	// A new conversation while the first one's cell runs: once refused.
	if err := d.NewSession(); err != nil {
		t.Fatalf("a new conversation while one runs: %v", err)
	}
	second := h.waitStateAfter(t, KernelReady, first).SessionID
	if c, _ := live(d, first); c.State != ConvRunning || c.InView {
		t.Errorf("the first conversation, left: %+v, want running out of view", c)
	}
	if err := d.Send("Answer in the second", nil); err != nil {
		t.Fatal(err)
	}
	h.waitEvent(t, "TurnEnded", i)
	waitLive(t, d, second, ConvFinished, 0)
	h.mu.Lock()
	left := len(h.events)
	h.mu.Unlock()
	if err := os.WriteFile(filepath.Join(ws, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitLive(t, d, first, ConvWaiting, 1)
	// Nothing of the first reached the window showing the second.
	h.mu.Lock()
	for _, e := range h.events[left:] {
		if strings.Contains(string(e), "ApprovalRequest") || strings.Contains(string(e), "went") {
			t.Errorf("an event of the conversation out of view reached the window: %s", e)
		}
	}
	h.mu.Unlock()
	// Its approval waits in it: not answerable from the second.
	if err := d.Approve(appr["request_id"].(string), "yes", ""); err == nil {
		t.Error("the first conversation's approval was answered from the second")
	}

	var note notifytest.Notification
	testenv.Eventually(t, 30*time.Second, func() error {
		for _, n := range srv.Got() {
			if strings.Contains(n.Summary, "waits") {
				note = n
				return nil
			}
		}
		return fmt.Errorf("no notification of the wait: %+v", srv.Got())
	})
	if note.App != "freeact" || !strings.Contains(note.Body, filepath.Base(ws)) || strings.Contains(note.Body, "approved late") {
		t.Errorf("notification %+v: want the app, the folder's name, no conversation text", note)
	}
	// The second's end in view notified nothing.
	for _, n := range srv.Got() {
		if strings.Contains(n.Summary, "finished") {
			t.Errorf("a notification about the conversation in view: %+v", n)
		}
	}

	h.mu.Lock()
	from := len(h.events)
	h.mu.Unlock()
	if err := srv.Click(note.ID); err != nil {
		t.Fatal(err)
	}
	// The replay shows the turn again: its first (answered) approval, then
	// the one waiting.
	again, j := h.waitEvent(t, "ApprovalRequest", from)
	for again["correlation_id"] != "a2" {
		again, j = h.waitEvent(t, "ApprovalRequest", j+1)
	}
	if c, _ := live(d, first); !c.InView {
		t.Errorf("the click did not bring the first conversation into view: %+v", d.Conversations())
	}
	h.mu.Lock()
	raised := h.raised
	reset := false
	for _, e := range h.events[from:j] {
		reset = reset || strings.Contains(string(e), `"Reset"`)
	}
	h.mu.Unlock()
	answered := false
	h.mu.Lock()
	for _, e := range h.events[from:j] {
		answered = answered || strings.Contains(string(e), `"type":"Answered"`) && strings.Contains(string(e), `"request_id":"r1"`)
	}
	h.mu.Unlock()
	if !answered {
		t.Error("the replay does not say the first approval was answered: the window would ask it again")
	}
	if raised == 0 || !reset {
		t.Errorf("raised %d times, reset %v: want the window raised and the conversation shown anew", raised, reset)
	}
	if st := d.Workspace().Kernel; st.SessionID != first {
		t.Errorf("the window's status is of %s, want %s", st.SessionID, first)
	}
	if err := d.Approve(again["request_id"].(string), "yes", ""); err != nil {
		t.Fatal(err)
	}
	end, _ := h.waitEvent(t, "TurnEnded", j)
	_ = end
	waitLive(t, d, first, ConvFinished, 0)
	waitLive(t, d, second, ConvFinished, 0)
	var shown []string
	h.mu.Lock()
	for _, e := range h.events[from:] {
		var m map[string]any
		_ = json.Unmarshal(e, &m)
		if m["type"] == "ResponseChunk" || m["type"] == "Response" {
			shown = append(shown, fmt.Sprint(m["text"]))
		}
	}
	h.mu.Unlock()
	if !strings.Contains(strings.Join(shown, ""), "First conversation done.") {
		t.Errorf("the first conversation's answer was not shown: %q", shown)
	}
}

// Idle conversations beyond the live-kernel limit stop, least recently
// used first, never one whose turn runs; one stopped is offered the
// replay of its cells when it is opened again. One that finishes out of
// view notifies the desktop; one whose turn runs cannot be deleted.
func TestLiveKernelLimitStopsIdleConversations(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: a1, name: ipybox_execute_ipython_cell, args: {code: "x = 41"}}}]
  - reply: [{text: "Set."}]
  - reply: [{call: {id: b1, name: ipybox_execute_ipython_cell, args: {code: "import os, time\nwhile not os.path.exists('go'):\n    time.sleep(0.02)"}}}]
  - reply: [{text: "Went."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	addr := notifytest.Bus(t)
	srv := notifytest.Serve(t, addr)
	d.notify = newNotifier(d, addr)
	if err := d.SetLiveKernelLimit(0); err == nil {
		t.Error("a limit of 0 was accepted")
	}
	if d.LiveKernelLimit() != DefaultLiveKernels {
		t.Errorf("limit %d, want the default %d", d.LiveKernelLimit(), DefaultLiveKernels)
	}
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	defer d.shutdown()
	first := h.waitState(t, KernelReady).SessionID
	if err := d.Send("Set x", nil); err != nil {
		t.Fatal(err)
	}
	appr, i := h.waitEvent(t, "ApprovalRequest", 0)
	if err := d.Approve(appr["request_id"].(string), "yes", ""); err != nil {
		t.Fatal(err)
	}
	_, i = h.waitEvent(t, "TurnEnded", i)
	waitLive(t, d, first, ConvFinished, 0)

	// The second conversation's turn runs (its cell waits for a file).
	if err := d.NewSession(); err != nil {
		t.Fatal(err)
	}
	second := h.waitStateAfter(t, KernelReady, first).SessionID
	if err := d.Send("Wait", nil); err != nil {
		t.Fatal(err)
	}
	appr, _ = h.waitEvent(t, "ApprovalRequest", i)
	if err := d.Approve(appr["request_id"].(string), "yes", ""); err != nil {
		t.Fatal(err)
	}
	waitLive(t, d, second, ConvRunning, 0)
	if _, ok := live(d, first); !ok {
		t.Fatalf("the first, idle, conversation stopped under the default limit: %+v", d.Conversations())
	}

	// A limit of 1: the first (idle) stops; the second, in view, runs on.
	if err := d.SetLiveKernelLimit(1); err != nil {
		t.Fatal(err)
	}
	if c, ok := live(d, first); ok {
		t.Errorf("the idle conversation beyond the limit still runs: %+v", c)
	}
	// Opening the first again: the second, running, is kept although
	// beyond the limit; the first starts anew and offers the replay.
	from := h.statusCount()
	if err := d.ResumeSession(first); err != nil {
		t.Fatal(err)
	}
	st := h.waitStatusAfter(t, KernelReady, from)
	if st.SessionID != first || st.ReplayCells != 1 || st.ReplayReason != "resumed" {
		t.Errorf("the first conversation opened again: %+v, want the offer to replay its one cell", st)
	}
	if c, ok := live(d, second); !ok || c.State != ConvRunning {
		t.Errorf("the running conversation was stopped to make room: %+v", d.Conversations())
	}
	if err := d.DeleteSession(second); err == nil || !strings.Contains(err.Error(), "stop the turn") {
		t.Errorf("deleting a conversation whose turn runs out of view: %v, want it refused", err)
	}
	if err := os.WriteFile(filepath.Join(ws, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitLive(t, d, second, ConvFinished, 0)
	// It finished out of view: the desktop is told, once.
	testenv.Eventually(t, 30*time.Second, func() error {
		if got := srv.Got(); len(got) != 1 || got[0].Summary != "A conversation finished" {
			return fmt.Errorf("notifications %+v, want one that a conversation finished", got)
		}
		return nil
	})
	// Finished and idle now, out of view, beyond the limit: it stops at the
	// next change of view.
	if err := d.ResumeSession(second); err != nil {
		t.Fatal(err)
	}
	if c, ok := live(d, first); ok {
		t.Errorf("the idle first conversation beyond the limit still runs: %+v", c)
	}
}
