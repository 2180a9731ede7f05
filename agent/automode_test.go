package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/approval"
)

// A judge's call is a model call like any other: over
// max_cost_per_session the user is asked to raise the budget before the
// judge is asked, and a no sends the action to the user labelled as a
// judge that could not be asked (never a silent allow or a denial).
func TestJudgeCallsAskBeforeGoingOverTheBudget(t *testing.T) {
	ws := workspace(t, `{"max_cost_per_session": 0.01}`)
	a, fake := fakeKernels(nil).startIn(t, ws, `
turns:
  - reply: [{call: {id: w1, name: filesystem_write_text_file, args: {path: notes.txt, content: "new\n"}}}]
    usage: {input: 15000, output: 800}
  - reply: [{text: "Wrote them."}]
`, agent.WithApprovalMode(approval.Auto))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var budgets int
	var asked []*agent.ApprovalRequest
	callsAtBudget := -1
	for ev := range a.Stream(ctx, agent.Text("Write the notes.")) {
		switch e := ev.(type) {
		case *agent.BudgetRequest:
			budgets++
			if budgets == 1 {
				callsAtBudget = len(fake.Requests())
				e.Continue(false)
			} else {
				e.Continue(true)
			}
		case *agent.ApprovalRequest:
			asked = append(asked, e)
			e.Approve(true)
		}
	}
	// $0.0099 spent; the judge's call would go over $0.01.
	if callsAtBudget != 1 {
		t.Fatalf("the first budget request came after %d model calls, want 1 (before the judge's)", callsAtBudget)
	}
	if len(asked) != 1 || asked[0].Judge != approval.JudgeFailed || !strings.Contains(asked[0].Reason, "budget") {
		t.Fatalf("approval requests %+v, want one labelled %q naming the budget", asked, approval.JudgeFailed)
	}
	for _, r := range fake.Requests() {
		if strings.Contains(r.System, "You review one action") {
			t.Errorf("the judge was asked over the budget")
		}
	}
	if got := readFile(t, ws, "notes.txt"); got != "new\n" {
		t.Errorf("notes.txt %q: the user's yes should have run the write", got)
	}
}

// The judge's calls count in the session's cost on a line of their own,
// and a resumed session still counts them.
func TestJudgeCostIsKeptOnALineOfItsOwn(t *testing.T) {
	ws := workspace(t, "")
	a, _ := fakeKernels(nil).startIn(t, ws, `
turns:
  - reply: [{call: {id: w1, name: filesystem_write_text_file, args: {path: notes.txt, content: "new\n"}}}]
    usage: {input: 1000, output: 100}
  - expect: {system_contains: "You review one action"}
    reply: [{text: '{"verdict":"allow","reason":"asked for"}'}]
    usage: {input: 2000, output: 10}
  - reply: [{text: "Wrote them."}]
    usage: {input: 1000, output: 100}
`, agent.WithApprovalMode(approval.Auto))
	events := run(t, a, "Write the notes.", nil)
	if len(of[*agent.ApprovalRequest](events)) != 0 {
		t.Fatalf("the judge's allow still asked")
	}
	// gemini-3-flash-preview: $0.50 input, $3 output, a million tokens.
	judgeCost := (2000*0.5 + 10*3) / 1e6
	total := judgeCost + 2*(1000*0.5+100*3)/1e6
	su := of[*agent.SessionUsage](events)
	last := su[len(su)-1]
	if !approxEqual(last.Cost, total) || !approxEqual(last.JudgeCost, judgeCost) || last.JudgeCalls != 1 {
		t.Errorf("session usage cost %v judge %v (%d calls), want %v judge %v (1)", last.Cost, last.JudgeCost, last.JudgeCalls, total, judgeCost)
	}
	id := a.SessionID()
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	b, _ := fakeKernels(nil).startIn(t, ws, "turns: []", agent.WithSessionID(id))
	got := b.SessionUsage()
	if !approxEqual(got.Cost, total) || !approxEqual(got.JudgeCost, judgeCost) || got.JudgeCalls != 1 {
		t.Errorf("the resumed session cost %v judge %v (%d calls), want %v judge %v (1)", got.Cost, got.JudgeCost, got.JudgeCalls, total, judgeCost)
	}
}
