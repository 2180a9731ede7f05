package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/agenttest"
)

// streamUntil streams a turn and calls act once, when stop reports true for
// an event; approvals are answered yes unless act handles them.
func streamUntil(t *testing.T, a *agent.Agent, prompt string, stop func(agent.Event) bool, act func(agent.Event)) []agent.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var events []agent.Event
	done := false
	for ev := range a.Stream(ctx, agent.Text(prompt)) {
		events = append(events, ev)
		if !done && stop(ev) {
			done = true
			act(ev)
			continue
		}
		if r, ok := ev.(*agent.ApprovalRequest); ok {
			r.Approve(true)
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("turn did not end:%s", describe(events))
	}
	return events
}

func cancelledPhase(t *testing.T, events []agent.Event) string {
	t.Helper()
	var c []*agent.Cancelled
	for _, e := range of[*agent.Cancelled](events) {
		if e.AgentID == "main" {
			c = append(c, e)
		}
	}
	if len(c) != 1 {
		t.Fatalf("want one Cancelled event:%s", describe(events))
	}
	if _, last := events[len(events)-1].(*agent.Cancelled); !last {
		t.Errorf("Cancelled is not the last event:%s", describe(events))
	}
	return c[0].Phase
}

func TestCancelWhileStreaming(t *testing.T) {
	a, _, _ := fakeKernels(nil).start(t, `
turns:
  - reply: [{text: "Partial answer"}]
    then: hang
  - expect:
      has: [{role: model, text: "Partial answer"}]
      last: [{role: user, text: "Go on."}]
    reply: [{text: "Continued."}]
`)
	events := streamUntil(t, a, "Start.", func(ev agent.Event) bool {
		_, ok := ev.(*agent.ResponseChunk)
		return ok
	}, func(agent.Event) { a.Cancel() })
	if p := cancelledPhase(t, events); p != agent.PhaseStreaming {
		t.Errorf("phase %q", p)
	}
	// The partial text stays in history and the next turn continues.
	events = run(t, a, "Go on.", nil)
	if r := of[*agent.Response](events); len(r) != 1 || r[0].Text != "Continued." {
		t.Errorf("next turn:%s", describe(events))
	}
}

func TestCancelDuringExecution(t *testing.T) {
	tiers(t, cells{
		"import time\nprint('started', flush=True)\ntime.sleep(600)": sleeps("started"),
		"print(time.time() > 0)": func(c *agenttest.Cell) {
			if _, ok := c.Get("time"); !ok {
				c.Raise("NameError", "name 'time' is not defined")
			}
			c.Print("True")
		},
	}, func(t *testing.T, x tier) {
		a, _, _ := x.start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "import time\nprint('started', flush=True)\ntime.sleep(600)"}}}]
  - expect:
      has: [{role: user, response: ipybox_execute_ipython_cell, output: "Interrupted by user"}]
      last: [{role: user, text: "Next."}]
    reply: [{text: "Fine."}]
`)
		var cancelled time.Time
		events := streamUntil(t, a, "Sleep.", func(ev agent.Event) bool {
			c, ok := ev.(*agent.CodeExecutionOutputChunk)
			return ok && strings.Contains(c.Text, "started")
		}, func(agent.Event) { cancelled = time.Now(); a.Cancel() })
		if d := time.Since(cancelled); d > 30*time.Second {
			t.Errorf("cancel took %v: the cell was not interrupted", d)
		}
		if p := cancelledPhase(t, events); p != agent.PhaseTools {
			t.Errorf("phase %q", p)
		}
		outs := of[*agent.ToolOutput](events)
		if len(outs) != 1 || !strings.Contains(outs[0].Content, "Interrupted by user") || !strings.Contains(outs[0].Content, "started") {
			t.Errorf("tool output:%s", describe(events))
		}
		// The cell's card keeps what it printed before the stop.
		cells := of[*agent.CodeExecutionOutput](events)
		if len(cells) != 1 || !strings.Contains(cells[0].Text, "started") || cells[0].ErrorText != "Interrupted by user" {
			t.Errorf("cell output:%s", describe(events))
		}
		// The kernel is usable again.
		run(t, a, "Next.", nil)
		res, err := a.Kernel().Execute(context.Background(), "print(time.time() > 0)", nil)
		if err != nil || strings.TrimSpace(res.Text) != "True" {
			t.Errorf("kernel after cancel: %v %+v", err, res)
		}
	})
}

func TestCancelRejectsPendingApproval(t *testing.T) {
	a, _, _ := fakeKernels(nil).start(t, `
turns:
  - reply:
      - call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(1)"}}
      - call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "print(2)"}}
`)
	var held *agent.ApprovalRequest
	events := streamUntil(t, a, "Two cells.", func(ev agent.Event) bool {
		_, ok := ev.(*agent.ApprovalRequest)
		return ok
	}, func(ev agent.Event) {
		held = ev.(*agent.ApprovalRequest)
		a.Cancel()
	})
	if p := cancelledPhase(t, events); p != agent.PhaseTools {
		t.Errorf("phase %q", p)
	}
	if held.Approve(true) {
		t.Error("a request pending at cancel could still be approved")
	}
	if n := len(of[*agent.CodeExecutionOutput](events)); n != 0 {
		t.Errorf("%d cells ran after cancel", n)
	}
	for _, o := range of[*agent.ToolOutput](events) {
		if o.Content != "Interrupted by user" {
			t.Errorf("output %q", o.Content)
		}
	}
	// Both calls are answered in the history.
	hist := a.History()
	if r := hist[len(hist)-1].FunctionResponses(); len(r) != 2 {
		t.Errorf("history ends with %+v", hist[len(hist)-1])
	}
}

// A cancel after a cell's result, before the next model call, ends the turn
// without calling the model. Reacting to the result event alone races the
// turn, which goes on while the consumer reads (under load it had already
// called the model): the reply's second call waits for its approval, which
// is held, so the turn cannot go on until the cancel.
func TestCancelBetweenTurns(t *testing.T) {
	tiers(t, cells{"print('ran')": prints("ran"), "print('held')": prints("held")}, func(t *testing.T, x tier) {
		a, fake, _ := x.start(t, `
turns:
  - reply:
      - call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print('ran')"}}
      - call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "print('held')"}}
  - expect:
      has: [{role: user, response: ipybox_execute_ipython_cell, output: "ran"}]
      last: [{role: user, text: "Again."}]
    reply: [{text: "Again it is."}]
`)
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		var events []agent.Event
		var held *agent.ApprovalRequest
		ran, cancelled := false, false
		for ev := range a.Stream(ctx, agent.Text("Run.")) {
			events = append(events, ev)
			switch e := ev.(type) {
			case *agent.ApprovalRequest:
				if e.CorrelationID == "c2" {
					held = e
				} else {
					e.Approve(true)
				}
			case *agent.CodeExecutionOutput:
				ran = ran || e.CorrelationID == "c1"
			}
			if ran && held != nil && !cancelled {
				cancelled = true
				a.Cancel()
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("turn did not end:%s", describe(events))
		}
		if p := cancelledPhase(t, events); p != agent.PhaseTools {
			t.Errorf("phase %q", p)
		}
		if len(fake.Requests()) != 1 {
			t.Errorf("model called after cancel")
		}
		run(t, a, "Again.", nil)
	})
}

func TestBreakingTheLoopCancels(t *testing.T) {
	a, _, _ := fakeKernels(nil).start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(1)"}}}]
  - reply: [{text: "Next turn."}]
`)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var req *agent.ApprovalRequest
	for ev := range a.Stream(ctx, agent.Text("Go.")) {
		if r, ok := ev.(*agent.ApprovalRequest); ok {
			req = r
			break
		}
	}
	if req == nil {
		t.Fatal("no approval request")
	}
	if req.Approve(true) {
		t.Error("request still open after the stream was closed")
	}
	// The agent takes the next turn.
	events := run(t, a, "Next.", nil)
	if r := of[*agent.Response](events); len(r) != 1 || r[0].Text != "Next turn." {
		t.Errorf("events:%s", describe(events))
	}
}

func TestOneTurnAtATime(t *testing.T) {
	a, _, _ := fakeKernels(cells{"print(1)": prints("1")}).start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(1)"}}}]
  - reply: [{text: "ok"}]
`)
	ctx := context.Background()
	for ev := range a.Stream(ctx, agent.Text("First.")) {
		if r, ok := ev.(*agent.ApprovalRequest); ok {
			var second []agent.Event
			for e := range a.Stream(ctx, agent.Text("Second.")) {
				second = append(second, e)
			}
			f := of[*agent.Failed](second)
			if len(f) != 1 || !strings.Contains(f[0].Error, "already running") {
				t.Errorf("second stream:%s", describe(second))
			}
			r.Approve(true)
		}
	}
}
