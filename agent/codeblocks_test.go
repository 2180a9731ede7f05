package agent_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/agenttest"
	"github.com/freeact/desktop/agent/model/codeblock"
	"github.com/freeact/desktop/agent/model/modeltest"
)

// llamaServer plays scenario on the OpenAI wire behind a llama.cpp-like
// /props that says whether the chat template has tool calls; it returns the
// model string of agent.json and the scenario server.
func llamaServer(t *testing.T, scenario string, tools bool) (string, *modeltest.Server) {
	t.Helper()
	sc, err := modeltest.ParseScenario([]byte(scenario))
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	srv := modeltest.NewOpenAI(t, sc)
	return modeltest.WithProps(t, srv, tools) + "/v1#smollm2", srv
}

// A model whose server has no tool calls writes python blocks; each runs
// as a code action, asked for, shown and recorded like a tool call, and its
// output goes back to the model as text. Without any setting: the server's
// /props says its template has no tool calls.
func TestCodeBlocksAreCodeActions(t *testing.T) {
	tiers(t, cells{
		"x = 6":        func(c *agenttest.Cell) { c.Set("x", "6") },
		"print('ok')":  prints("ok"),
		"print(x * 7)": prints("42"),
	}, func(t *testing.T, x tier) {
		fence := "```"
		modelString, srv := llamaServer(t, `
turns:
  - reply: [{text: "Setting x.\n`+fence+`python\nx = 6\n`+fence+`\nChecking.\n`+fence+`python\nprint('ok')\n`+fence+`\n"}]
  - expect:
      last: [{role: user, text: "Output of the code action:\nok"}]
    reply: [{text: "`+fence+`python\nprint(x * 7)\n`+fence+`"}]
  - expect:
      last: [{role: user, text: "42"}]
    reply: [{text: "It is 42."}]
`, false)
		ws := workspace(t, `{"model": "`+modelString+`"}`)
		a := started(t, ws, x.executors(t))
		var asked []string
		events := run(t, a, "What is 6 times 7?", func(r *agent.ApprovalRequest) agent.Decision {
			if c, ok := r.ToolCall.(agent.CodeAction); ok {
				asked = append(asked, c.Code)
			}
			return agent.Once
		})
		// The blocks of one reply are asked, and run, in the model's order.
		if want := []string{"x = 6", "print('ok')", "print(x * 7)"}; !slices.Equal(asked, want) {
			t.Fatalf("approvals asked for %q, want %q:%s", asked, want, describe(events))
		}
		var outputs []string
		for _, o := range of[*agent.ToolOutput](events) {
			if o.ToolName != agent.ExecuteTool || o.IsError {
				t.Errorf("tool output %+v", o)
			}
			outputs = append(outputs, strings.TrimSpace(o.Content))
		}
		if !slices.Contains(outputs, "42") || !slices.Contains(outputs, "ok") {
			t.Errorf("code action outputs %q, want ok and 42", outputs)
		}
		if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "It is 42." {
			t.Errorf("responses %+v", r)
		}
		// The history holds calls and results, as with tool calls; only
		// the wire has blocks.
		calls := 0
		for _, m := range a.History() {
			for _, c := range m.FunctionCalls() {
				if c.Name != agent.ExecuteTool {
					t.Errorf("call of %s", c.Name)
				}
				calls++
			}
		}
		if calls != 3 {
			t.Errorf("%d code actions in the history, want 3", calls)
		}
		for i, r := range srv.Requests() {
			if len(r.Tools) != 0 || !strings.Contains(r.System, codeblock.Instructions) {
				t.Errorf("request %d: %d tools offered, instructions sent: %v", i+1, len(r.Tools), strings.Contains(r.System, codeblock.Instructions))
			}
		}
	})
}

// A server whose template has tool calls keeps them; code_actions in the
// model's entry of "models" overrides what the server says.
func TestCodeActionsSetting(t *testing.T) {
	for _, tc := range []struct {
		name, setting string
		tools, blocks bool
	}{
		{"template with tools", "", true, false},
		{"set to code_blocks", "code_blocks", true, true},
		{"set to tool_calls", "tool_calls", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			modelString, srv := llamaServer(t, `
turns:
  - reply: [{text: "Nothing to run."}]
`, tc.tools)
			models := ""
			if tc.setting != "" {
				models = `, "models": {"smollm2": {"code_actions": "` + tc.setting + `"}}`
			}
			ws := workspace(t, `{"model": "`+modelString+`"`+models+`}`)
			a := started(t, ws, fakeKernels(nil).executors(t))
			run(t, a, "Hi.", nil)
			r := srv.Requests()[0]
			if got := strings.Contains(r.System, codeblock.Instructions); got != tc.blocks {
				t.Errorf("instructions for python blocks sent: %v, want %v", got, tc.blocks)
			}
			if got := len(r.Tools) == 0; got != tc.blocks {
				t.Errorf("%d tools offered", len(r.Tools))
			}
		})
	}
}
