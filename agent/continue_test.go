package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
)

// cont carries on the failed turn, approving every call.
func cont(t *testing.T, a *agent.Agent) []agent.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var events []agent.Event
	for ev := range a.Continue(ctx) {
		events = append(events, ev)
		if req, ok := ev.(*agent.ApprovalRequest); ok {
			req.Answer(agent.Once, "")
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("Continue did not end within its deadline; events: %s", describe(events))
	}
	return events
}

// A turn that failed after an action ran is carried on, not sent again:
// the model gets the history with the action's result and a note to go
// on, the action does not run a second time (the real kernel counts its
// runs), and a carrying on that fails before an action of its own leaves
// the history as it was, to be continued again.
func TestContinueCarriesOnAKeptFailedTurn(t *testing.T) {
	const count = "runs = globals().get('runs', 0) + 1"
	tiers(t, cells{count: prints(), "print(runs)": prints("1")}, func(t *testing.T, x tier) {
		a, fake, _ := x.start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "`+count+`"}}}]
  - error: {status: 400, message: "bad request"}
  - expect:
      has: [{role: user, response: ipybox_execute_ipython_cell}, {role: user, text: "turn-failed"}]
      last: [{role: user, text: "turn-resumed"}]
    error: {status: 400, message: "still bad"}
  - expect:
      has: [{role: user, response: ipybox_execute_ipython_cell}]
      last: [{role: user, text: "do not run them again"}]
    reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "print(runs)"}}}]
  - reply: [{text: "It ran once."}]
`)
		events := run(t, a, "Count, then print the count.", nil)
		if f := of[*agent.Failed](events); len(f) != 1 || !f[0].Kept {
			t.Fatalf("the turn did not fail with its action kept:%s", describe(events))
		}
		kept := a.History()

		// The first try fails before any action: nothing changes.
		events = cont(t, a)
		if f := of[*agent.Failed](events); len(f) != 1 || !f[0].Kept || !strings.Contains(f[0].Error, "still bad") {
			t.Fatalf("a failed Continue:%s", describe(events))
		}
		if got := a.History(); !sameMessages(got, kept) {
			t.Fatalf("a Continue that failed changed the history: %d messages, want %d", len(got), len(kept))
		}

		events = cont(t, a)
		var asked []string
		for _, r := range of[*agent.ApprovalRequest](events) {
			asked = append(asked, r.ToolCall.(agent.CodeAction).Code)
		}
		if strings.Join(asked, "|") != "print(runs)" {
			t.Errorf("asked for %q, want only the step after the kept action", asked)
		}
		out := of[*agent.CodeExecutionOutput](events)
		if len(out) != 1 || strings.TrimSpace(out[0].Text) != "1" {
			t.Errorf("the kept action ran again (runs is not 1):%s", describe(events))
		}
		if r := of[*agent.Response](events); len(r) != 1 || r[0].Text != "It ran once." || len(of[*agent.Failed](events)) > 0 {
			t.Errorf("Continue did not finish the turn:%s", describe(events))
		}
		if len(fake.Requests()) != 5 {
			t.Errorf("%d model requests, want 5", len(fake.Requests()))
		}
		// The note is the agent's: the turn has one prompt, the user's.
		prompts := 0
		for _, m := range a.History() {
			if agent.IsPrompt(m) {
				prompts++
			}
		}
		if prompts != 1 {
			t.Errorf("%d prompts in the history, want 1", prompts)
		}

		// Now nothing failed: there is nothing to continue.
		events = cont(t, a)
		if f := of[*agent.Failed](events); len(f) != 1 || !strings.Contains(f[0].Error, agent.ErrNothingToContinue.Error()) {
			t.Errorf("Continue after a finished turn:%s", describe(events))
		}
	})
}
