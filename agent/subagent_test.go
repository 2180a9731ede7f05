package agent_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/agenttest"
)

var subID = regexp.MustCompile(`^sub-[0-9a-f]{4}$`)

func TestSubagent(t *testing.T) {
	tiers(t, cells{
		"secret = 7 * 6\nprint(secret)": func(c *agenttest.Cell) { c.Set("secret", "42"); c.Print(42) },
		"print('secret' in dir())":      inDir("secret"),
	}, func(t *testing.T, x tier) {
		a, fake, _ := x.start(t, `
turns:
  - reply: [{call: {id: s1, name: subagent_task, args: {prompt: "Compute the secret.", max_turns: 5}}}]
  - expect:
      messages: 1
      last: [{role: user, text: "Compute the secret."}]
    reply: [{call: {id: k1, name: ipybox_execute_ipython_cell, args: {code: "secret = 7 * 6\nprint(secret)"}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "42"}]
    reply: [{text: "The secret is 42."}]
  - expect:
      last: [{role: user, response: subagent_task, output: "The secret is 42."}]
    reply: [{text: "Done."}]
`)
		events := run(t, a, "Delegate.", nil)

		reqs := of[*agent.ApprovalRequest](events)
		if len(reqs) != 2 {
			t.Fatalf("approvals:%s", describe(events))
		}
		if reqs[0].AgentID != "main" || reqs[0].ToolCall.Name() != "subagent_task" {
			t.Errorf("first approval %+v", reqs[0])
		}
		sub := reqs[1].AgentID
		if !subID.MatchString(sub) {
			t.Errorf("subagent's approval comes from %q", sub)
		}
		outs := of[*agent.CodeExecutionOutput](events)
		if len(outs) != 1 || outs[0].AgentID != sub || outs[0].CorrelationID != "k1" {
			t.Errorf("subagent output %+v", outs)
		}
		// The subagent is offered no subagent tool.
		for _, tool := range fake.Requests()[1].Tools {
			if tool.Name == "subagent_task" {
				t.Error("subagent may spawn subagents")
			}
		}
		// Separate kernels: the subagent's variable is not in the main kernel.
		res, err := a.Kernel().Execute(context.Background(), "print('secret' in dir())", nil)
		if err != nil || strings.TrimSpace(res.Text) != "False" {
			t.Errorf("main kernel sees the subagent's state: %v %+v", err, res)
		}
		// The subagent's messages are kept in its own session file.
		var subResp []string
		for _, r := range of[*agent.Response](events) {
			if r.AgentID == sub {
				subResp = append(subResp, r.Text)
			}
		}
		if strings.Join(subResp, "|") != "The secret is 42." {
			t.Errorf("subagent responses %q", subResp)
		}
	})
}

func TestSubagentFailureIsAResult(t *testing.T) {
	a, _, ws := fakeKernels(nil).start(t, `
turns:
  - reply: [{call: {id: s1, name: subagent_task, args: {prompt: "Fail."}}}]
  - error: {status: 400, message: "invalid request for the subagent"}
  - expect:
      last: [{role: user, response: subagent_task, output: "invalid request for the subagent", is_error: true}]
    reply: [{text: "The subagent failed."}]
`)
	events := run(t, a, "Delegate.", nil)
	if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "The subagent failed." {
		t.Errorf("events:%s", describe(events))
	}
	// The subagent's failed turn is taken back out of its session file,
	// as out of its history: nothing of it is left.
	subs, _ := filepath.Glob(filepath.Join(ws, ".freeact", "sessions", a.SessionID(), "sub-*.jsonl"))
	if len(subs) != 0 {
		t.Errorf("subagent files left by its failed turn: %v", subs)
	}
}

func TestSubagentLimit(t *testing.T) {
	tiers(t, cells{"print('working')": prints("working")}, func(t *testing.T, x tier) {
		ws := workspace(t, `{"max_subagents": 1}`)
		a, _ := x.startIn(t, ws, `
turns:
  - reply:
      - call: {id: s1, name: subagent_task, args: {prompt: "One."}}
      - call: {id: s2, name: subagent_task, args: {prompt: "Two."}}
  - reply: [{call: {id: k1, name: ipybox_execute_ipython_cell, args: {code: "print('working')"}}}]
  - reply: [{text: "Sub done."}]
  - reply: [{call: {id: k2, name: ipybox_execute_ipython_cell, args: {code: "print('working')"}}}]
  - reply: [{text: "Sub done."}]
  - reply: [{text: "Both done."}]
`)
		events := run(t, a, "Two tasks.", nil)
		// With one slot, the second subagent starts only after the first ended:
		// their events do not interleave.
		var order []string
		for _, ev := range events {
			if id := ev.Agent(); id != "main" && (len(order) == 0 || order[len(order)-1] != id) {
				order = append(order, id)
			}
		}
		if len(order) != 2 || order[0] == order[1] {
			t.Errorf("subagent events interleave: %q", order)
		}
		if r := of[*agent.Response](events); r[len(r)-1].Text != "Both done." {
			t.Errorf("events:%s", describe(events))
		}
	})
}

func TestSubagentsDisabled(t *testing.T) {
	ws := workspace(t, `{"enable_subagents": false}`)
	a, _ := fakeKernels(nil).startIn(t, ws, `
turns:
  - reply: [{call: {id: s1, name: subagent_task, args: {prompt: "x"}}}]
  - expect:
      last: [{role: user, response: subagent_task, output: "Unknown tool name: subagent_task"}]
    reply: [{text: "No subagents."}]
`)
	run(t, a, "Delegate.", nil)
}

func TestCancelReachesSubagent(t *testing.T) {
	tiers(t, cells{"import time\nprint('sleeping', flush=True)\ntime.sleep(60)": sleeps("sleeping")}, func(t *testing.T, x tier) {
		a, _, _ := x.start(t, `
turns:
  - reply: [{call: {id: s1, name: subagent_task, args: {prompt: "Sleep."}}}]
  - reply: [{call: {id: k1, name: ipybox_execute_ipython_cell, args: {code: "import time\nprint('sleeping', flush=True)\ntime.sleep(60)"}}}]
`)
		events := streamUntil(t, a, "Delegate.", func(ev agent.Event) bool {
			c, ok := ev.(*agent.CodeExecutionOutputChunk)
			return ok && strings.Contains(c.Text, "sleeping")
		}, func(agent.Event) { a.Cancel() })
		if p := cancelledPhase(t, events); p != agent.PhaseTools {
			t.Errorf("phase %q", p)
		}
		var subCancelled bool
		for _, c := range of[*agent.Cancelled](events) {
			subCancelled = subCancelled || c.AgentID != "main"
		}
		if !subCancelled {
			t.Error("the subagent's lane did not end with Cancelled")
		}
		outs := of[*agent.ToolOutput](events)
		last := outs[len(outs)-1]
		if last.ToolName != "subagent_task" || !strings.Contains(last.Content, "Interrupted by user") {
			t.Errorf("subagent result:%s", describe(events))
		}
	})
}
