package agent_test

import (
	"context"
	agentcells "github.com/freeact/desktop/agent/cells"
	"github.com/freeact/desktop/agent/history"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/agenttest"
)

// Scripts shared by the tests of the user's own cells: what the Python
// does, for the fast tier.
var arithmetic = cells{
	"x = 20": func(c *agenttest.Cell) { c.Set("x", "20") },
	"x = 21": func(c *agenttest.Cell) { c.Set("x", "21") },
	"print(x + 1)": func(c *agenttest.Cell) {
		v, ok := c.Get("x")
		if !ok {
			c.Raise("NameError", "name 'x' is not defined")
		}
		n, _ := strconv.Atoi(v)
		c.Print(n + 1)
	},
	"y = x * 2": func(c *agenttest.Cell) {
		v, ok := c.Get("x")
		if !ok {
			c.Raise("NameError", "name 'x' is not defined")
		}
		n, _ := strconv.Atoi(v)
		c.Set("y", strconv.Itoa(2*n))
	},
	"print(y)": func(c *agenttest.Cell) {
		v, ok := c.Get("y")
		if !ok {
			c.Raise("NameError", "name 'y' is not defined")
		}
		c.Print(v)
	},
	"raise ValueError('boom')": func(c *agenttest.Cell) { c.Raise("ValueError", "boom") },
	"print('model')":           prints("model"),
	"print('user')":            prints("user"),
	"!echo hi\nprint('after')": func(c *agenttest.Cell) {
		if c.Shell("echo hi") {
			c.Print("hi")
		}
		c.Print("after")
	},
}

// runCells runs the user's cells and answers approvals with answer (nil:
// yes to all).
func runCells(t *testing.T, seq func(func(agent.Event) bool), answer func(*agent.ApprovalRequest) agent.Decision) []agent.Event {
	t.Helper()
	var events []agent.Event
	for ev := range seq {
		events = append(events, ev)
		if r, ok := ev.(*agent.ApprovalRequest); ok {
			d := agent.Once
			if answer != nil {
				d = answer(r)
			}
			r.Answer(d, "")
		}
	}
	return events
}

func userCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// A code action answered with an edited cell runs the edited code; the
// model's history holds the code that ran with a note that the user
// edited it.
func TestEditBeforeApproving(t *testing.T) {
	tiers(t, arithmetic, func(t *testing.T, x tier) {
		a, fake, _ := x.start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print('model')"}}}]
  - expect:
      last:
        - {role: user, response: ipybox_execute_ipython_cell, output: "The user edited your code before running it"}
        - {role: user, response: ipybox_execute_ipython_cell, output: "print('user')"}
    reply: [{text: "Noted."}]
`)
		events := run(t, a, "Print something.", func(r *agent.ApprovalRequest) agent.Decision {
			if !r.Edit("print('user')") {
				t.Error("Edit of a code action was not taken")
			}
			return agent.Reject // too late: Edit answered it
		})
		edited := of[*agent.CodeEdited](events)
		if len(edited) != 1 || edited[0].Code != "print('user')" || edited[0].CorrelationID != "c1" {
			t.Errorf("CodeEdited events %+v", edited)
		}
		outs := of[*agent.CodeExecutionOutput](events)
		if len(outs) != 1 || strings.TrimSpace(outs[0].Text) != "user" {
			t.Fatalf("outputs:%s", describe(events))
		}
		// The model reads the note; the record of the code that ran stays
		// in the session, not on the wire.
		resp := fake.Requests()[1].Messages
		if got := resp[len(resp)-1].FunctionResponses()[0]; got.Output != agent.ExportedEditedResult("print('user')", "user\n") || got.Ran != nil {
			t.Errorf("the model got %q (record %+v)", got.Output, got.Ran)
		}
		hist := a.History()
		code, out, ok := history.EditedCode(hist[len(hist)-2].FunctionResponses()[0])
		if !ok || code != "print('user')" || strings.TrimSpace(out) != "user" {
			t.Errorf("the session records %q / %q, %v", code, out, ok)
		}
		cells := history.Cells(a.History())
		if len(cells) != 1 || cells[0].By != agent.ByEdited || cells[0].Code != "print('user')" || cells[0].ID != "c1" {
			t.Errorf("cells %+v", cells)
		}
	})
}

// Only a code action can be edited: an edit of a shell command is refused
// and leaves the request open.
func TestEditOnlyCodeActions(t *testing.T) {
	a, _, _ := fakeKernels(arithmetic).start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "!echo hi\nprint('after')"}}}]
  - reply: [{text: "Done."}]
`)
	run(t, a, "Echo.", func(r *agent.ApprovalRequest) agent.Decision {
		if _, shell := r.ToolCall.(agent.ShellAction); shell && r.Edit("echo bye") {
			t.Error("an edit of a shell command was taken")
		}
		return agent.Once
	})
}

// A past cell run again runs in the current kernel as the user's own
// action: no model call and no approval, output as events, and the next
// model call sees what the user ran and its result.
func TestRunCellAgain(t *testing.T) {
	tiers(t, arithmetic, func(t *testing.T, x tier) {
		a, fake, _ := x.start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "x = 20"}}}]
  - reply: [{text: "Set."}]
  - expect:
      has: [{role: user, text: "The user ran this code in the kernel themselves"}]
      last:
        - {role: user, text: "print(x + 1)"}
        - {role: user, text: "21"}
        - {role: user, text: "What did I get?"}
    reply: [{text: "You got 21."}]
`)
		run(t, a, "Set x.", nil)
		calls := len(fake.Requests())
		events := runCells(t, a.RunCells(userCtx(t), []agentcells.UserCell{{Code: "print(x + 1)", Source: history.CellRerun, Of: "c1"}}), func(r *agent.ApprovalRequest) agent.Decision {
			t.Errorf("the user's own cell asked %s", agent.TypeName(r.ToolCall))
			return agent.Once
		})
		if n := len(fake.Requests()); n != calls {
			t.Errorf("running a cell made %d model calls", n-calls)
		}
		started := of[*agent.CellStarted](events)
		if len(started) != 1 || started[0].Of != "c1" || started[0].Source != history.CellRerun || started[0].Index != 1 || started[0].Total != 1 || started[0].CorrelationID == "" {
			t.Fatalf("CellStarted %+v", started)
		}
		outs := of[*agent.CodeExecutionOutput](events)
		if len(outs) != 1 || strings.TrimSpace(outs[0].Text) != "21" || outs[0].CorrelationID != started[0].CorrelationID {
			t.Fatalf("outputs:%s", describe(events))
		}
		if f := of[*agent.CellsFinished](events); len(f) != 1 || f[0].Ran != 1 || f[0].Failed != 0 || f[0].Stopped {
			t.Errorf("CellsFinished %+v", f)
		}
		cells := history.Cells(a.History())
		if len(cells) != 2 || cells[1].By != history.CellRerun || cells[1].Of != "c1" || strings.TrimSpace(cells[1].Output) != "21" {
			t.Errorf("cells %+v", cells)
		}
		run(t, a, "What did I get?", nil)
	})
}

// Shell commands inside the user's cells are still asked; a "no" stops the
// batch.
func TestUserCellShellIsAsked(t *testing.T) {
	tiers(t, arithmetic, func(t *testing.T, x tier) {
		a, _, _ := x.start(t, "turns: []\n")
		var asked []string
		events := runCells(t, a.RunCells(userCtx(t), []agentcells.UserCell{
			{Code: "!echo hi\nprint('after')", Source: history.CellRerun},
			{Code: "x = 20", Source: history.CellRerun},
		}), func(r *agent.ApprovalRequest) agent.Decision {
			if s, ok := r.ToolCall.(agent.ShellAction); ok {
				asked = append(asked, s.Command)
			}
			return agent.Reject
		})
		if len(asked) != 1 || asked[0] != "echo hi" {
			t.Errorf("asked %q, want the shell command", asked)
		}
		outs := of[*agent.CodeExecutionOutput](events)
		if len(outs) != 1 || outs[0].Rejected != "echo hi" || strings.Contains(outs[0].Text, "after") {
			t.Errorf("outputs:%s\n%+v", describe(events), outs)
		}
		// The model is told what the user rejected.
		if h := a.History(); len(h) == 0 || !strings.Contains(h[len(h)-1].Text(), "The user rejected the shell command: echo hi") {
			t.Errorf("the note does not say what was rejected: %+v", h)
		}
		if f := of[*agent.CellsFinished](events); len(f) != 1 || f[0].Ran != 1 || !f[0].Stopped {
			t.Errorf("CellsFinished %+v: the second cell must not run after a no", f)
		}
	})
}

// Only one of a turn and the user's cells runs at a time.
func TestUserCellsWaitForNoTurn(t *testing.T) {
	a, _, _ := fakeKernels(cells{"import time\ntime.sleep(60)": sleeps("sleeping")}).start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "import time\ntime.sleep(60)"}}}]
`)
	streamUntil(t, a, "Sleep.", func(ev agent.Event) bool {
		c, ok := ev.(*agent.CodeExecutionOutputChunk)
		return ok && strings.Contains(c.Text, "sleeping")
	}, func(agent.Event) {
		events := runCells(t, a.RunCells(userCtx(t), []agentcells.UserCell{{Code: "x = 20", Source: history.CellRerun}}), nil)
		if f := of[*agent.Failed](events); len(f) != 1 || !strings.Contains(f[0].Error, "a turn is already running") {
			t.Errorf("cells during a turn:%s", describe(events))
		}
		if _, err := a.RestartKernel(userCtx(t)); err == nil || !strings.Contains(err.Error(), "a turn is already running") {
			t.Errorf("restart during a turn: %v", err)
		}
		a.Cancel()
	})
}
