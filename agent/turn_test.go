package agent_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"github.com/freeact/desktop/agent/history"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/agenttest"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/permission"
	"github.com/freeact/desktop/internal/testenv"
	"github.com/freeact/desktop/kernel"
)

func TestCodeActionApproved(t *testing.T) {
	tiers(t, cells{
		"x = 6*7\nprint(x)": func(c *agenttest.Cell) { c.Set("x", "42"); c.Print(42) },
		"print(x + 1)": func(c *agenttest.Cell) {
			x, _ := c.Get("x")
			n, _ := strconv.Atoi(x)
			c.Print(n + 1)
		},
	}, func(t *testing.T, x tier) {
		a, fake, _ := x.start(t, `
turns:
  - expect:
      tools: [ipybox_execute_ipython_cell, ipybox_reset, filesystem_read_text_file, subagent_task]
      last: [{role: user, text: "What is 6*7?"}]
    reply:
      - thought: "Compute it."
      - text: "Let me compute."
      - call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "x = 6*7\nprint(x)"}}
        signature: sig-1
    usage: {input: 100, output: 20, thinking: 10}
  - expect:
      has: [{role: model, call: ipybox_execute_ipython_cell, signature: sig-1}]
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "42"}]
    reply: [{text: "It is 42."}]
`)
		events := run(t, a, "What is 6*7?", nil)

		reqs := of[*agent.ApprovalRequest](events)
		if len(reqs) != 1 {
			t.Fatalf("want 1 approval request, got %d:%s", len(reqs), describe(events))
		}
		code, ok := reqs[0].ToolCall.(agent.CodeAction)
		if !ok || code.Code != "x = 6*7\nprint(x)" || reqs[0].CorrelationID != "c1" {
			t.Fatalf("approval request = %+v", reqs[0])
		}
		outs := of[*agent.CodeExecutionOutput](events)
		if len(outs) != 1 || strings.TrimSpace(outs[0].Text) != "42" || outs[0].CorrelationID != "c1" || outs[0].AgentID != "main" {
			t.Fatalf("code output = %+v", outs)
		}
		var chunks string
		for _, c := range of[*agent.CodeExecutionOutputChunk](events) {
			if c.CorrelationID != "c1" {
				t.Errorf("chunk with correlation %q", c.CorrelationID)
			}
			chunks += c.Text
		}
		if strings.TrimSpace(chunks) != "42" {
			t.Errorf("chunks = %q", chunks)
		}
		if th := of[*agent.Thoughts](events); len(th) != 1 || th[0].Text != "Compute it." {
			t.Errorf("thoughts = %+v", th)
		}
		resp := of[*agent.Response](events)
		if len(resp) != 2 || resp[0].Text != "Let me compute." || resp[1].Text != "It is 42." {
			t.Errorf("responses:%s", describe(events))
		}
		us := of[*agent.Usage](events)
		if len(us) != 1 || us[0].InputTokens != 100 || us[0].OutputTokens != 20 || us[0].ThinkingTokens != 10 {
			t.Errorf("usage = %+v", us)
		}
		if n := len(fake.Requests()); n != 2 {
			t.Errorf("model called %d times, want 2", n)
		}
		// The kernel is stateful: x is still there in the next cell.
		res, err := a.Kernel().Execute(context.Background(), "print(x + 1)", nil)
		if err != nil || strings.TrimSpace(res.Text) != "43" {
			t.Errorf("kernel state: %v %+v", err, res)
		}
	})
}

func TestRejectEndsTurn(t *testing.T) {
	tiers(t, cells{
		"open('made.txt', 'w').write('x')": func(c *agenttest.Cell) { touch(c, "made.txt") },
	}, func(t *testing.T, x tier) {
		a, fake, ws := x.start(t, `
turns:
  - reply:
      - call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "open('made.txt', 'w').write('x')"}}
`)
		events := run(t, a, "Make a file.", func(*agent.ApprovalRequest) agent.Decision { return agent.Reject })
		if _, err := os.Stat(filepath.Join(ws, "made.txt")); err == nil {
			t.Error("rejected code ran")
		}
		if len(fake.Requests()) != 1 {
			t.Errorf("model called again after a rejection")
		}
		resp := of[*agent.Response](events)
		if len(resp) == 0 || resp[len(resp)-1].Text != "Tool call rejected" {
			t.Errorf("final response:%s", describe(events))
		}
		outs := of[*agent.ToolOutput](events)
		if len(outs) != 1 || outs[0].Content != "Tool call rejected" {
			t.Errorf("tool output:%s", describe(events))
		}
		// The history holds the rejection, so the next turn continues from it.
		hist := a.History()
		last := hist[len(hist)-1].FunctionResponses()
		if len(last) != 1 || last[0].Output != "Tool call rejected" {
			t.Errorf("history ends with %+v", hist[len(hist)-1])
		}
	})
}

func TestShellCommandsApprovedOneByOne(t *testing.T) {
	tiers(t, cells{
		"name = 'first.txt'\n!touch {name} && touch second.txt; echo done": func(c *agenttest.Cell) {
			c.Set("name", "first.txt")
			if c.Shell("touch first.txt && touch second.txt; echo done") {
				touch(c, "first.txt", "second.txt")
				c.Print("done")
			}
		},
	}, func(t *testing.T, x tier) {
		a, _, ws := x.start(t, `
turns:
  - reply:
      - call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "name = 'first.txt'\n!touch {name} && touch second.txt; echo done"}}
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "done"}]
    reply: [{text: "ok"}]
`)
		var shells []string
		run(t, a, "Touch files.", func(r *agent.ApprovalRequest) agent.Decision {
			if s, ok := r.ToolCall.(agent.ShellAction); ok {
				shells = append(shells, s.Command)
				if r.Display != s.Command {
					t.Errorf("display %q for command %q", r.Display, s.Command)
				}
			}
			return agent.Once
		})
		want := []string{"touch first.txt", "touch second.txt", "echo done"}
		if strings.Join(shells, "|") != strings.Join(want, "|") {
			t.Errorf("shell approvals %q, want %q", shells, want)
		}
		for _, f := range []string{"first.txt", "second.txt"} {
			if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
				t.Errorf("%s not made: %v", f, err)
			}
		}
	})
}

func TestRejectedShellPartStopsEverything(t *testing.T) {
	tiers(t, cells{
		"!touch a.txt && touch b.txt\nopen('after.txt', 'w').write('x')": func(c *agenttest.Cell) {
			if c.Shell("touch a.txt && touch b.txt") {
				touch(c, "a.txt", "b.txt")
			}
			touch(c, "after.txt")
		},
	}, func(t *testing.T, x tier) {
		a, fake, ws := x.start(t, `
turns:
  - reply:
      - call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "!touch a.txt && touch b.txt\nopen('after.txt', 'w').write('x')"}}
`)
		events := run(t, a, "Touch.", func(r *agent.ApprovalRequest) agent.Decision {
			if s, ok := r.ToolCall.(agent.ShellAction); ok && s.Command == "touch b.txt" {
				return agent.Reject
			}
			return agent.Once
		})
		for _, f := range []string{"a.txt", "b.txt"} {
			if _, err := os.Stat(filepath.Join(ws, f)); err == nil {
				t.Errorf("%s was made although part of the line was rejected", f)
			}
		}
		if _, err := os.Stat(filepath.Join(ws, "after.txt")); err == nil {
			t.Error("the cell went on after a rejection")
		}
		if len(fake.Requests()) != 1 {
			t.Error("model called again after a rejection")
		}
		if resp := of[*agent.Response](events); resp[len(resp)-1].Text != "Tool call rejected" {
			t.Errorf("final response:%s", describe(events))
		}
		// The model gets one line naming the command, then the rejection;
		// the window gets the command and no interrupt noise.
		const want = "The user rejected the shell command: touch b.txt\nTool call rejected"
		if outs := of[*agent.ToolOutput](events); len(outs) != 1 || outs[0].Content != want || !outs[0].IsError {
			t.Errorf("tool output %+v, want %q", outs, want)
		}
		hist := a.History()
		if last := hist[len(hist)-1].FunctionResponses(); len(last) != 1 || last[0].Output != want {
			t.Errorf("the history ends with %+v", hist[len(hist)-1])
		}
		outs := of[*agent.CodeExecutionOutput](events)
		if len(outs) != 1 || outs[0].Rejected != "touch b.txt" || outs[0].Error {
			t.Errorf("code output %+v, want rejected \"touch b.txt\" and no error", outs)
		}
		for _, c := range of[*agent.CodeExecutionOutputChunk](events) {
			if strings.Contains(c.Text, "KeyboardInterrupt") || strings.Contains(c.Text, "Traceback") {
				t.Errorf("the window got the interrupt's noise: %q", c.Text)
			}
		}
		if len(outs) == 1 && (strings.Contains(outs[0].Text, "KeyboardInterrupt") || strings.Contains(outs[0].Text, "rejected, not run")) {
			t.Errorf("the output shows the interrupt's noise: %q", outs[0].Text)
		}
	})
}

func TestBashCellIsOneShellAction(t *testing.T) {
	tiers(t, cells{
		"%%bash\necho one\necho two": func(c *agenttest.Cell) {
			if c.ShellCell("bash", "echo one\necho two\n") {
				c.Print("one")
				c.Print("two")
			}
		},
	}, func(t *testing.T, x tier) {
		a, _, _ := x.start(t, `
turns:
  - reply:
      - call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "%%bash\necho one\necho two"}}
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "two"}]
    reply: [{text: "ok"}]
`)
		var shells []agent.ShellAction
		var displays []string
		run(t, a, "Run a script.", func(r *agent.ApprovalRequest) agent.Decision {
			if s, ok := r.ToolCall.(agent.ShellAction); ok {
				shells = append(shells, s)
				displays = append(displays, r.Display)
			}
			return agent.Once
		})
		if len(shells) != 1 || shells[0].ToolName != permission.ShellMagicTool || shells[0].Command != "echo one\necho two\n" ||
			filepath.Base(shells[0].Interpreter) != "bash" {
			t.Fatalf("shell approvals %+v", shells)
		}
		if want := "#!" + shells[0].Interpreter + "\necho one\necho two\n"; displays[0] != want {
			t.Errorf("display %q, want %q: the program and the whole script", displays[0], want)
		}
	})
}

func TestUnknownToolNeedsNoApproval(t *testing.T) {
	a, _, _ := fakeKernels(nil).start(t, `
turns:
  - reply: [{call: {id: c1, name: no_such_tool, args: {}}}]
  - expect:
      last: [{role: user, response: no_such_tool, output: "Unknown tool name: no_such_tool", is_error: true}]
    reply: [{text: "Sorry."}]
`)
	events := run(t, a, "Go.", nil)
	if n := len(of[*agent.ApprovalRequest](events)); n != 0 {
		t.Errorf("%d approval requests for an unknown tool", n)
	}
}

// Calls that only read may overlap, but they are asked for in the
// model's order, each once the one before it was answered, and their
// results come in that order too.
func TestReadCallsAskAndAnswerInOrder(t *testing.T) {
	ws := workspace(t, "")
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("content of "+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := fakeKernels(nil).startIn(t, ws, `
turns:
  - reply:
      - call: {id: r1, name: filesystem_read_text_file, args: {path: a.txt}}
      - call: {id: r2, name: filesystem_read_text_file, args: {path: b.txt}}
      - call: {id: r3, name: filesystem_read_text_file, args: {path: c.txt}}
  - expect:
      last:
        - {role: user, response: filesystem_read_text_file, output: "content of a.txt"}
        - {role: user, response: filesystem_read_text_file, output: "content of b.txt"}
        - {role: user, response: filesystem_read_text_file, output: "content of c.txt"}
    reply: [{text: "Read all."}]
`)
	events := run(t, a, "Read all.", nil)
	var asked, answered []string
	for _, ev := range events {
		switch e := ev.(type) {
		case *agent.ApprovalRequest:
			asked = append(asked, e.CorrelationID)
		case *agent.ToolOutput:
			if !strings.Contains(e.Content, "content of") {
				t.Errorf("output %+v", e)
			}
			answered = append(answered, e.CorrelationID)
		}
	}
	want := []string{"r1", "r2", "r3"}
	if !slices.Equal(asked, want) || !slices.Equal(answered, want) {
		t.Fatalf("asked %v, answered %v, want both %v:%s", asked, answered, want, describe(events))
	}
}

func TestSecondAnswerIgnored(t *testing.T) {
	a, _, ws := fakeKernels(nil).start(t, `
turns:
  - reply: [{call: {id: c1, name: filesystem_write_text_file, args: {path: w.txt, content: hi}}}]
  - reply: [{text: "Written."}]
`)
	var second bool
	run(t, a, "Write.", func(r *agent.ApprovalRequest) agent.Decision {
		if !r.Approve(true) {
			t.Error("first answer not taken")
		}
		second = r.Approve(false)
		return agent.Reject // a third answer, ignored as well
	})
	if second {
		t.Error("second answer was taken")
	}
	if b, err := os.ReadFile(filepath.Join(ws, "w.txt")); err != nil || string(b) != "hi" {
		t.Errorf("file: %q %v", b, err)
	}
}

func TestPermissionRules(t *testing.T) {
	tiers(t, cells{
		"!ls": func(c *agenttest.Cell) { c.Shell("ls") },
		"!mkdir -p d1 d2": func(c *agenttest.Cell) {
			if c.Shell("mkdir -p d1 d2") {
				for _, d := range []string{"d1", "d2"} {
					if err := os.MkdirAll(filepath.Join(c.Workspace(), d), 0o755); err != nil {
						c.Raise("OSError", err.Error())
					}
				}
			}
		},
	}, func(t *testing.T, x tier) {
		ws := workspace(t, "")
		if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("notes"), 0o644); err != nil {
			t.Fatal(err)
		}
		perm, err := permission.Open(ws)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := x.startIn(t, ws, `
turns:
  - reply:
      - call: {id: r1, name: filesystem_read_text_file, args: {path: notes.txt}}
      - call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "!ls"}}
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "!mkdir -p d1 d2"}}}]
  - reply: [{text: "Done."}]
`, agent.WithPermissions(perm))
		var asked []string
		run(t, a, "Go.", func(r *agent.ApprovalRequest) agent.Decision {
			asked = append(asked, agent.TypeName(r.ToolCall)+" "+r.Display)
			if s, ok := r.ToolCall.(agent.ShellAction); ok && strings.HasPrefix(s.Command, "mkdir") {
				if r.Suggested != "mkdir *" {
					t.Errorf("suggested %q", r.Suggested)
				}
				return agent.Always
			}
			return agent.Once
		})
		// Reading inside the workspace and `ls` are allowed by the
		// default rules; code actions and mkdir are asked.
		want := []string{"CodeAction ", "CodeAction ", "ShellAction mkdir -p d1 d2"}
		if strings.Join(asked, "|") != strings.Join(want, "|") {
			t.Errorf("asked %q, want %q", asked, want)
		}
		b, err := os.ReadFile(perm.File())
		if err != nil || !strings.Contains(string(b), `"mkdir *"`) {
			t.Errorf("Always did not save the rule: %s %v", b, err)
		}
	})
}

func TestMaxTurns(t *testing.T) {
	tiers(t, cells{"1": func(c *agenttest.Cell) { c.Result("1") }, "2": func(c *agenttest.Cell) { c.Result("2") }}, func(t *testing.T, x tier) {
		a, fake, _ := x.start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "1"}}}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "2"}}}]
`, agent.WithMaxTurns(2))
		events := run(t, a, "Loop.", nil)
		if len(fake.Requests()) != 2 {
			t.Errorf("%d model calls, want 2", len(fake.Requests()))
		}
		resp := of[*agent.Response](events)
		if len(resp) != 1 || !strings.Contains(resp[0].Text, "max_turns") {
			t.Errorf("responses:%s", describe(events))
		}
	})
}

func TestModelFailureRollsBack(t *testing.T) {
	a, _, _ := fakeKernels(nil).start(t, `
turns:
  - error: {status: 400, message: "bad request"}
`)
	events := run(t, a, "Hello.", nil)
	f := of[*agent.Failed](events)
	if len(f) != 1 || !strings.Contains(f[0].Error, "bad request") {
		t.Fatalf("events:%s", describe(events))
	}
	if h := a.History(); len(h) != 0 {
		t.Errorf("history after a failed turn: %+v", h)
	}
}

func TestLargeResultOffloadedOnce(t *testing.T) {
	tiers(t, cells{"print('x' * 40000)": prints(strings.Repeat("x", 40000))}, func(t *testing.T, x tier) {
		a, fake, ws := x.start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print('x' * 40000)"}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "tool-results/"}]
    reply: [{text: "Big."}]
`)
		events := run(t, a, "Print a lot.", nil)
		outs := of[*agent.ToolOutput](events)
		if len(outs) != 1 || len(outs[0].Content) > 8000 || !strings.Contains(outs[0].Content, "40001") {
			t.Fatalf("tool output not offloaded: %d bytes", len(outs[0].Content))
		}
		dir := filepath.Join(ws, ".freeact", "sessions", a.SessionID(), "tool-results")
		entries, err := os.ReadDir(dir)
		if err != nil || len(entries) != 1 {
			t.Fatalf("offloaded files: %v %v", entries, err)
		}
		saved, _ := os.ReadFile(filepath.Join(dir, entries[0].Name()))
		if strings.TrimSpace(string(saved)) != strings.Repeat("x", 40000) {
			t.Errorf("saved file holds %d bytes", len(saved))
		}
		// The model got the notice, not the text.
		got := fake.Requests()[1].Messages
		for _, r := range got[len(got)-1].FunctionResponses() {
			if len(r.Output) > 8000 {
				t.Errorf("model received %d bytes", len(r.Output))
			}
		}
	})
}

func TestResumeSession(t *testing.T) {
	tiers(t, cells{"print('first')": prints("first")}, func(t *testing.T, x tier) {
		ws := workspace(t, "")
		a, _ := x.startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print('first')"}}}]
  - reply: [{text: "First answer."}]
`)
		run(t, a, "First question.", nil)
		id := a.SessionID()
		if err := a.Stop(); err != nil {
			t.Fatal(err)
		}
		b, _ := x.startIn(t, ws, `
turns:
  - expect:
      messages: 5
      has:
        - {role: user, text: "First question."}
        - {role: model, call: ipybox_execute_ipython_cell}
        - {role: model, text: "First answer."}
      last:
        - {role: user, text: "Second question."}
        - {role: user, text: "the user went on without restoring it"}
    reply: [{text: "Second answer."}]
`, agent.WithSessionID(id))
		// The resumed session has a fresh kernel; going on without
		// restoring its state tells the model so, with the prompt.
		if _, ok := b.ReplayOffer(); !ok {
			t.Error("no offer to restore the kernel state of the resumed session")
		}
		events := run(t, b, "Second question.", nil)
		if n := len(b.History()); n != 6 {
			t.Errorf("history has %d messages, want 6", n)
		}
		if notes := of[*agent.KernelStateNote](events); len(notes) != 1 || notes[0].Event != history.StateNotRestored {
			t.Errorf("KernelStateNote events %+v", notes)
		}
		if _, ok := b.ReplayOffer(); ok {
			t.Error("the offer is still open after the next turn")
		}
	})
}

func TestSessionIDNeedsPersistence(t *testing.T) {
	ws := workspace(t, `{"enable_persistence": false}`)
	_, err := agent.New(load(t, ws), agent.WithSessionID("abc"))
	if err == nil || !strings.Contains(err.Error(), "enable_persistence") {
		t.Errorf("err = %v", err)
	}
}

func TestToolOutputsMatchModelHistory(t *testing.T) {
	tiers(t, cells{"raise ValueError('boom')": func(c *agenttest.Cell) { c.Raise("ValueError", "boom") }}, func(t *testing.T, x tier) {
		// What the events report as a result is what the model receives.
		a, _, _ := x.start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "raise ValueError('boom')"}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "ValueError: boom", is_error: true}]
    reply: [{text: "It failed."}]
`)
		events := run(t, a, "Fail.", nil)
		outs := of[*agent.ToolOutput](events)
		hist := a.History()
		var resp model.FunctionResponse
		for _, m := range hist {
			if r := m.FunctionResponses(); len(r) == 1 {
				resp = r[0]
			}
		}
		if len(outs) != 1 || outs[0].Content != resp.Output || !outs[0].IsError {
			t.Errorf("tool output %+v, history %+v", outs, resp)
		}
	})
}

func TestResetTool(t *testing.T) {
	tiers(t, cells{
		"kept = 1":               func(c *agenttest.Cell) { c.Set("kept", "1") },
		"print('kept' in dir())": inDir("kept"),
	}, func(t *testing.T, x tier) {
		a, _, _ := x.start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "kept = 1"}}}]
  - reply: [{call: {id: c2, name: ipybox_reset, args: {}}}]
  - expect:
      last: [{role: user, response: ipybox_reset, output: "restarted"}]
    reply: [{call: {id: c3, name: ipybox_execute_ipython_cell, args: {code: "print('kept' in dir())"}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "False"}]
    reply: [{text: "State is gone."}]
`)
		var asked []string
		run(t, a, "Reset.", func(r *agent.ApprovalRequest) agent.Decision {
			asked = append(asked, agent.TypeName(r.ToolCall)+" "+r.ToolCall.Name())
			return agent.Once
		})
		if len(asked) != 3 || asked[1] != "GenericCall ipybox_reset" {
			t.Errorf("approvals %q", asked)
		}
	})
}

func TestStopDuringTurn(t *testing.T) {
	tiers(t, cells{"import time\nprint('go', flush=True)\ntime.sleep(60)": sleeps("go")}, func(t *testing.T, x tier) {
		a, _, _ := x.start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "import time\nprint('go', flush=True)\ntime.sleep(60)"}}}]
`)
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		var last agent.Event
		for ev := range a.Stream(ctx, agent.Text("Sleep.")) {
			last = ev
			switch e := ev.(type) {
			case *agent.ApprovalRequest:
				e.Approve(true)
			case *agent.CodeExecutionOutputChunk:
				go func() {
					if err := a.Stop(); err != nil {
						t.Errorf("stop: %v", err)
					}
				}()
			}
		}
		if _, ok := last.(*agent.Cancelled); !ok || ctx.Err() != nil {
			t.Errorf("stream ended with %T", last)
		}
	})
}

func TestResumeUnknownSession(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "fake-key")
	ws := workspace(t, "")
	a, err := agent.New(load(t, ws), agent.WithSessionID("no-such-session"), fakeKernels(nil).executors(t))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	if err := a.Start(context.Background()); err == nil || !strings.Contains(err.Error(), `no session "no-such-session"`) {
		t.Errorf("err = %v", err)
	}
}

// A kernel that dies fails its cell with an error result, not the turn; the
// next cell runs in a fresh kernel without the old variables.
func TestKernelDeathIsAnErrorResult(t *testing.T) {
	tiers(t, cells{
		"x = 1":                  func(c *agenttest.Cell) { c.Set("x", "1") },
		"import os\nos._exit(1)": func(c *agenttest.Cell) { c.Die() },
		"print('x' in dir())":    inDir("x"),
	}, func(t *testing.T, x tier) {
		a, _, _ := x.start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "x = 1"}}}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "import os\nos._exit(1)"}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "the kernel died", is_error: true}]
    reply: [{call: {id: c3, name: ipybox_execute_ipython_cell, args: {code: "print('x' in dir())"}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "False"}]
    reply: [{text: "A fresh kernel."}]
`)
		events := run(t, a, "Crash it.", nil)
		outs := of[*agent.CodeExecutionOutput](events)
		if len(outs) != 3 || !outs[1].Error || !strings.Contains(outs[1].Text, kernel.ErrKernelDied.Error()) || outs[2].Error {
			t.Fatalf("outputs:%s", describe(events))
		}
		if r := of[*agent.Response](events); r[len(r)-1].Text != "A fresh kernel." {
			t.Errorf("events:%s", describe(events))
		}
	})
}

// An image a cell shows is saved under the workspace's images folder and
// reported with the cell's output.
func TestImageOutput(t *testing.T) {
	png := tinyPNG(t)
	code := "import base64\nfrom IPython.display import Image, display\ndisplay(Image(data=base64.b64decode('" +
		base64.StdEncoding.EncodeToString(png) + "')))"
	tiers(t, cells{code: func(c *agenttest.Cell) { c.Image(png) }}, func(t *testing.T, x tier) {
		a, _, ws := x.start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: `+jsonString(code)+`}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "images/"}]
    reply: [{text: "A picture."}]
`)
		events := run(t, a, "Show it.", nil)
		outs := of[*agent.CodeExecutionOutput](events)
		if len(outs) != 1 || len(outs[0].Images) != 1 {
			t.Fatalf("outputs:%s", describe(events))
		}
		img := outs[0].Images[0]
		if filepath.Dir(img) != filepath.Join(ws, "images") {
			t.Errorf("image saved at %s, want under %s", img, filepath.Join(ws, "images"))
		}
		if b, err := os.ReadFile(img); err != nil || !bytes.Equal(b, png) {
			t.Errorf("saved image: %d bytes, %v", len(b), err)
		}
		var kinds []string
		for _, c := range of[*agent.CodeExecutionOutputChunk](events) {
			kinds = append(kinds, c.Kind)
		}
		if !slices.Contains(kinds, "image") {
			t.Errorf("chunk kinds %q, want an image", kinds)
		}
	})
}

// TestFailedTurnKeepsItsActions: a turn that fails after a code action ran
// stays in the history and the session file, with a note to the model
// saying how it ended, because the kernel went through the action; resumed,
// the session has the same history, and the next request carries it: in
// this app's format, in the Python freeact's, and for a first turn. (A turn
// that fails before any action ran is taken back: TestModelFailureRollsBack.)
func TestFailedTurnKeepsItsActions(t *testing.T) {
	failing := `
  - reply: [{call: {id: c9, name: ipybox_execute_ipython_cell, args: {code: "print(1)"}}}]
  - error: {status: 400, message: "bad request"}
`
	for _, tt := range []struct {
		name    string
		fixture string // a freeact session to resume, by version
		first   bool   // the failing turn is the session's first
	}{
		{name: "own format"},
		{name: "freeact 0.11", fixture: "0.11.2"},
		{name: "freeact 0.10", fixture: "0.10.12"},
		{name: "first turn", first: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x := fakeKernels(cells{"print(1)": prints("1")})
			ws := workspace(t, "")
			var opts []agent.Option
			if tt.fixture != "" {
				id := fixtureSessions[tt.fixture]
				src := filepath.Join(testenv.RepoRoot(t), "agent", "testdata", "freeact", tt.fixture, ".freeact", "sessions", id, "main.jsonl")
				b, err := os.ReadFile(src)
				if err != nil {
					t.Fatal(err)
				}
				dir := filepath.Join(ws, ".freeact", "sessions", id)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "main.jsonl"), b, 0o644); err != nil {
					t.Fatal(err)
				}
				opts = append(opts, agent.WithSessionID(id))
			}
			scenario := "turns:" + failing
			if !tt.first {
				scenario = "turns:\n  - reply: [{text: \"First answer.\"}]" + failing
			}
			a, _ := x.startIn(t, ws, scenario, opts...)
			if !tt.first {
				run(t, a, "First.", nil)
			}
			before := len(a.History())
			events := run(t, a, "Fail.", nil)
			f := of[*agent.Failed](events)
			if len(f) != 1 || !strings.Contains(f[0].Error, "bad request") || !f[0].Kept || f[0].Summary == "" || f[0].Fix == "" {
				t.Fatalf("events:%s", describe(events))
			}
			if len(of[*agent.CodeExecutionOutput](events)) != 1 {
				t.Fatalf("the turn failed before it wrote a code action's result:%s", describe(events))
			}
			want := a.History()
			// The prompt, the call, its result and the note.
			if len(want) != before+4 {
				t.Fatalf("history after the failure: %d messages, want %d", len(want), before+4)
			}
			if r := want[before+2].FunctionResponses(); len(r) != 1 || !strings.Contains(r[0].Output, "1") {
				t.Errorf("the action's result is not kept: %+v", want[before+2])
			}
			if note := want[before+3].Text(); !strings.HasPrefix(note, agent.FailedNotePrefix) || !strings.Contains(note, "bad request") {
				t.Errorf("note %q", note)
			}
			id := a.SessionID()
			if err := a.Stop(); err != nil {
				t.Fatal(err)
			}
			// Resumed, the session has the history the agent had, and the
			// next request holds it and the new prompt.
			b, fake := x.startIn(t, ws, `
turns:
  - expect:
      has: [{role: user, response: ipybox_execute_ipython_cell, output: "1"}, {role: user, text: "turn-failed"}]
      last: [{role: user, text: "Again."}]
    reply: [{text: "Fine."}]
`, agent.WithSessionID(id))
			if tt.fixture != "" {
				// The Python freeact's format has no place for the sealed
				// record of the code that ran, nor for its time, nor for
				// the mark of the user's own text: resumed, nothing claims
				// it ran, and notes are told by their tags.
				want = withoutRan(want)
			}
			if got := b.History(); !sameMessages(got, want) {
				t.Errorf("resumed history: %d messages, want %d", len(got), len(want))
			}
			run(t, b, "Again.", nil)
			if reqs := fake.Requests(); len(reqs) != 1 {
				t.Errorf("%d requests", len(reqs))
			}
		})
	}
}

// withoutRan copies msgs without their records of the code that ran and
// of how long each call ran.
func withoutRan(msgs []model.Message) []model.Message {
	out := make([]model.Message, len(msgs))
	for i, m := range msgs {
		m.Parts = slices.Clone(m.Parts)
		for j, p := range m.Parts {
			p.Ran, p.User = nil, false
			if p.FunctionResponse != nil {
				r := *p.FunctionResponse
				r.Ran, r.ElapsedMS = nil, 0
				p.FunctionResponse = &r
			}
			m.Parts[j] = p
		}
		out[i] = m
	}
	return out
}

// sameMessages compares histories by their JSON.
func sameMessages(a, b []model.Message) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// The file an offloaded result was saved to is a field of its ToolOutput
// and of the response the session keeps, set where the agent offloads;
// output that merely says "saved to report.html." has none, so the window
// never takes a path from text.
func TestOffloadedResultNamesItsFileAsAField(t *testing.T) {
	x := fakeKernels(cells{
		"big":  prints(strings.Repeat("x", 40000)),
		"fake": prints("The full result was saved to report.html."),
	})
	ws := workspace(t, "")
	a, _ := x.startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "big"}}}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "fake"}}}]
  - reply: [{text: "Done."}]
`)
	events := run(t, a, "Go.", nil)
	outs := of[*agent.ToolOutput](events)
	if len(outs) != 2 {
		t.Fatalf("events:%s", describe(events))
	}
	saved := outs[0].SavedPath
	if !strings.HasPrefix(saved, ".freeact/sessions/"+a.SessionID()+"/tool-results/") || !strings.Contains(outs[0].Content, saved) {
		t.Fatalf("offloaded result: saved_path %q, content %.200q", saved, outs[0].Content)
	}
	if data, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(saved))); err != nil || len(data) < 40000 {
		t.Errorf("the saved file: %d bytes, %v", len(data), err)
	}
	if outs[1].SavedPath != "" {
		t.Errorf("output that only says it saved a file got saved_path %q", outs[1].SavedPath)
	}
	id := a.SessionID()
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	// A resumed session keeps the field.
	b, _ := x.startIn(t, ws, "turns: []\n", agent.WithSessionID(id))
	var got []string
	for _, m := range b.History() {
		for _, r := range m.FunctionResponses() {
			got = append(got, r.SavedPath)
		}
	}
	if len(got) != 2 || got[0] != saved || got[1] != "" {
		t.Errorf("resumed responses' saved paths %q, want [%q \"\"]", got, saved)
	}
}
