package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/agenttest"
	"github.com/freeact/desktop/agent/model"
)

// echoTools is a ToolCaller that echoes its arguments, standing in for an
// MCP server (agent/mcp has its own tests with real servers).
type echoTools struct{ calls []string }

func (e *echoTools) CallTool(_ context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
	e.calls = append(e.calls, server+"_"+tool)
	if tool == "broken" {
		return nil, errors.New("the server says no")
	}
	return json.RawMessage(`{"echo": ` + string(args) + `}`), nil
}

const ptcCell = `from freeact_runtime import call_tool
print(call_tool("github", "search", {"q": "freeact"}))`

// ptcScript is ptcCell for the fake kernels.
func ptcScript(c *agenttest.Cell) {
	res, err := c.CallTool("github", "search", map[string]any{"q": "freeact"})
	if err != nil {
		c.Raise("ToolRejected", err.Error())
	}
	c.Print(string(res))
}

func TestProgrammaticToolCall(t *testing.T) {
	tiers(t, cells{ptcCell: ptcScript}, func(t *testing.T, x tier) {
		tools := &echoTools{}
		a, _, _ := x.start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: `+jsonString(ptcCell)+`}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "freeact"}]
    reply: [{text: "Found it."}]
`, agent.WithToolCaller(tools))
		var generic []agent.GenericCall
		events := run(t, a, "Search.", func(r *agent.ApprovalRequest) agent.Decision {
			if g, ok := r.ToolCall.(agent.GenericCall); ok {
				generic = append(generic, g)
				if r.CorrelationID != "c1" {
					t.Errorf("programmatic call correlated with %q", r.CorrelationID)
				}
			}
			return agent.Once
		})
		if len(generic) != 1 || generic[0].ToolName != "github_search" || !generic[0].PTC || string(generic[0].Args) != `{"q":"freeact"}` {
			t.Errorf("generic calls %+v:%s", generic, describe(events))
		}
		if len(tools.calls) != 1 {
			t.Errorf("tool calls %q", tools.calls)
		}
	})
}

func TestProgrammaticCallRejected(t *testing.T) {
	tiers(t, cells{ptcCell: ptcScript}, func(t *testing.T, x tier) {
		tools := &echoTools{}
		a, fake, _ := x.start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: `+jsonString(ptcCell)+`}}}]
`, agent.WithToolCaller(tools))
		events := run(t, a, "Search.", func(r *agent.ApprovalRequest) agent.Decision {
			if _, ok := r.ToolCall.(agent.GenericCall); ok {
				return agent.Reject
			}
			return agent.Once
		})
		if len(tools.calls) != 0 {
			t.Error("rejected tool was called")
		}
		if len(fake.Requests()) != 1 {
			t.Error("model called after rejection")
		}
		if r := of[*agent.Response](events); r[len(r)-1].Text != "Tool call rejected" {
			t.Errorf("events:%s", describe(events))
		}
		outs := of[*agent.ToolOutput](events)
		if len(outs) != 1 || !strings.HasPrefix(outs[0].Content, "The user rejected the tool call: ") ||
			!strings.HasSuffix(outs[0].Content, "\nTool call rejected") || strings.Count(outs[0].Content, "\n") != 1 {
			t.Errorf("the model got %+v, want one line naming the tool and \"Tool call rejected\"", outs)
		}
	})
}

func TestApprovalTimeout(t *testing.T) {
	code := `from freeact_runtime import call_tool, ToolTimeout
try:
    call_tool("github", "search", {})
except ToolTimeout as e:
    print("timed out:", e)`
	tiers(t, cells{code: func(c *agenttest.Cell) {
		if _, err := c.CallTool("github", "search", map[string]any{}); errors.Is(err, context.DeadlineExceeded) {
			c.Print("timed out:", err)
		}
	}}, func(t *testing.T, x tier) {
		ws := workspace(t, `{"approval_timeout": 0.5}`)
		tools := &echoTools{}
		a, _ := x.startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: `+jsonString(code)+`}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "timed out"}]
    reply: [{text: "It timed out."}]
`, agent.WithToolCaller(tools))
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		var late *agent.ApprovalRequest
		var events []agent.Event
		for ev := range a.Stream(ctx, agent.Text("Search.")) {
			events = append(events, ev)
			if r, ok := ev.(*agent.ApprovalRequest); ok {
				if _, ok := r.ToolCall.(agent.GenericCall); ok {
					late = r // answered only after the turn, when it has timed out
					continue
				}
				r.Approve(true)
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("turn did not end within its deadline; events: %s", describe(events))
		}
		if late == nil {
			t.Fatal("no programmatic approval request")
		}
		if late.Approve(true) {
			t.Error("the request still took an answer after its approval timeout")
		}
		if len(tools.calls) != 0 {
			t.Error("tool ran although its approval timed out")
		}
	})
}

func TestToolErrorRaisesInCell(t *testing.T) {
	code := `from freeact_runtime import call_tool, ToolFailed
try:
    call_tool("db", "broken", {})
except ToolFailed as e:
    print("failed:", e)`
	tiers(t, cells{code: func(c *agenttest.Cell) {
		if _, err := c.CallTool("db", "broken", map[string]any{}); err != nil {
			c.Print("failed:", err)
		}
	}}, func(t *testing.T, x tier) {
		a, _, _ := x.start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: `+jsonString(code)+`}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "the server says no"}]
    reply: [{text: "ok"}]
`, agent.WithToolCaller(&echoTools{}))
		run(t, a, "Go.", nil)
	})
}

func TestNoToolCallerIsAClearError(t *testing.T) {
	code := `from freeact_runtime import call_tool
call_tool("github", "search", {})`
	tiers(t, cells{code: func(c *agenttest.Cell) {
		if _, err := c.CallTool("github", "search", map[string]any{}); err != nil {
			c.Raise("ToolFailed", err.Error())
		}
	}}, func(t *testing.T, x tier) {
		a, _, _ := x.start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: `+jsonString(code)+`}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "ptc_servers"}]
    reply: [{text: "ok"}]
`)
		run(t, a, "Go.", nil)
	})
}

func TestUserInput(t *testing.T) {
	code := `name = input("Your name? ")
print("hello", name)`
	tiers(t, cells{code: func(c *agenttest.Cell) { c.Print("hello", c.Input("Your name? ")) }}, func(t *testing.T, x tier) {
		a, _, _ := x.start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: `+jsonString(code)+`}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "hello Ada"}]
    reply: [{text: "Hello, Ada."}]
`)
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		var prompts []string
		for ev := range a.Stream(ctx, agent.Text("Ask me.")) {
			switch e := ev.(type) {
			case *agent.ApprovalRequest:
				e.Approve(true)
			case *agent.InputRequest:
				prompts = append(prompts, e.Prompt)
				if e.CorrelationID != "c1" {
					t.Errorf("input request correlated with %q", e.CorrelationID)
				}
				e.Reply("Ada")
			}
		}
		if len(prompts) != 1 || prompts[0] != "Your name? " {
			t.Errorf("input prompts %q", prompts)
		}
	})
}

func TestSkillCommandAndImages(t *testing.T) {
	a, fake, _ := fakeKernels(nil).start(t, `
turns:
  - expect:
      last: [{role: user, text: "<skill name=\"task-planning\">build a parser</skill>"}, {role: user, image: true}]
    reply: [{text: "Planned."}]
`)
	img := model.Image{MIMEType: "image/png", Data: tinyPNG(t)}
	for range a.Stream(context.Background(), agent.Prompt{Text: "/task-planning build a parser", Images: []model.Image{img}}) {
	}
	if len(fake.Requests()) != 1 {
		t.Fatal("no model call")
	}
}

func TestSessionWrittenAtEachStep(t *testing.T) {
	tiers(t, cells{"print(1)": prints("1")}, func(t *testing.T, x tier) {
		a, _, ws := x.start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(1)"}}}]
  - reply: [{text: "One."}]
`)
		file := filepath.Join(ws, ".freeact", "sessions", a.SessionID(), "main.jsonl")
		var linesAtApproval int
		run(t, a, "Count.", func(*agent.ApprovalRequest) agent.Decision {
			b, _ := os.ReadFile(file)
			linesAtApproval = strings.Count(string(b), "\n")
			return agent.Once
		})
		// At the approval the user message and the model's reply are on disk.
		if linesAtApproval != 2 {
			t.Errorf("%d lines written before the tool ran, want 2", linesAtApproval)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 4 {
			t.Fatalf("%d lines, want 4 (user, call, result, answer)", len(lines))
		}
		for _, l := range lines {
			var env struct {
				V       int                 `json:"v"`
				Message json.RawMessage     `json:"message"`
				Meta    struct{ TS string } `json:"meta"`
			}
			if err := json.Unmarshal([]byte(l), &env); err != nil || env.V != 1 || env.Meta.TS == "" || len(env.Message) == 0 {
				t.Errorf("line %q: %v", l, err)
			}
		}
	})
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func tinyPNG(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The approval takes longer than the execution timeout; the cell itself
// runs far below it, so it must finish even on a loaded machine.
func TestApprovalWaitIsNotExecutionTime(t *testing.T) {
	ws := workspace(t, `{"execution_timeout": 2}`)
	a, _ := realKernels.startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "!echo waited\nprint('finished')"}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "finished"}]
    reply: [{text: "ok"}]
`)
	events := run(t, a, "Wait.", func(r *agent.ApprovalRequest) agent.Decision {
		if _, ok := r.ToolCall.(agent.ShellAction); ok {
			time.Sleep(2500 * time.Millisecond) // longer than the timeout
		}
		return agent.Once
	})
	out := of[*agent.CodeExecutionOutput](events)
	if len(out) != 1 || out[0].Error || !strings.Contains(out[0].Text, "waited") {
		t.Errorf("output %+v", out)
	}
}

func TestOutsidePathShownAbsolute(t *testing.T) {
	outside := t.TempDir()
	file := filepath.Join(outside, "data.txt")
	if err := os.WriteFile(file, []byte("outside data"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, _, _ := fakeKernels(nil).start(t, `
turns:
  - reply: [{call: {id: r1, name: filesystem_read_text_file, args: {path: `+jsonString(file)+`}}}]
  - expect:
      last: [{role: user, response: filesystem_read_text_file, output: "outside data"}]
    reply: [{text: "Read it."}]
`)
	var paths []string
	run(t, a, "Read.", func(r *agent.ApprovalRequest) agent.Decision {
		paths = append(paths, r.ToolCall.(agent.FileRead).Path)
		return agent.Once
	})
	resolved, _ := filepath.EvalSymlinks(file)
	if len(paths) != 1 || paths[0] != resolved {
		t.Errorf("paths %q, want %q", paths, resolved)
	}
}

func TestModelRetryIsVisible(t *testing.T) {
	a, _, _ := fakeKernels(nil).start(t, `
turns:
  - error: {status: 503, message: "overloaded", retry_after: 10ms}
  - reply: [{text: "Back."}]
`)
	events := run(t, a, "Hi.", nil)
	r := of[*agent.ModelRetry](events)
	if len(r) != 1 || r[0].Attempt != 1 || !strings.Contains(r[0].Reason, "overloaded") {
		t.Errorf("events:%s", describe(events))
	}
	if resp := of[*agent.Response](events); len(resp) != 1 || resp[0].Text != "Back." {
		t.Errorf("events:%s", describe(events))
	}
}

func TestParallelCellsKeepTheirShellRequests(t *testing.T) {
	tiers(t, cells{
		"!echo from-one": func(c *agenttest.Cell) {
			if c.Shell("echo from-one") {
				c.Print("from-one")
			}
		},
		"!echo from-two": func(c *agenttest.Cell) {
			if c.Shell("echo from-two") {
				c.Print("from-two")
			}
		},
	}, func(t *testing.T, x tier) {
		a, _, _ := x.start(t, `
turns:
  - reply:
      - call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "!echo from-one"}}
      - call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "!echo from-two"}}
  - reply: [{text: "Both ran."}]
`)
		corr := map[string]string{}
		run(t, a, "Two cells.", func(r *agent.ApprovalRequest) agent.Decision {
			if s, ok := r.ToolCall.(agent.ShellAction); ok {
				corr[s.Command] = r.CorrelationID
			}
			return agent.Once
		})
		if corr["echo from-one"] != "c1" || corr["echo from-two"] != "c2" {
			t.Errorf("shell requests correlated as %v", corr)
		}
	})
}
