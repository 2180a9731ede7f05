package agent_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/agenttest"
	"github.com/freeact/desktop/agent/model/modeltest"
)

// The code actions of one reply build on each other, so they are asked
// for and run in the model's order, each after the one before it ended:
// with every provider's wire, in scripted and in real kernels.
func TestCallsOfOneReplyRunInTheModelsOrder(t *testing.T) {
	codes := []string{"seq = ['first']", "seq.append('second')", "seq.append('third'); print(seq)"}
	appends := func(word string, show bool) agenttest.Script {
		return func(c *agenttest.Cell) {
			v, ok := c.Get("seq")
			if !ok {
				c.Raise("NameError", "name 'seq' is not defined")
				return
			}
			v = strings.TrimSuffix(v, "]") + ", '" + word + "']"
			c.Set("seq", v)
			if show {
				c.Print(v)
			}
		}
	}
	scripts := cells{
		codes[0]: func(c *agenttest.Cell) { c.Set("seq", "['first']") },
		codes[1]: appends("second", false),
		codes[2]: appends("third", true),
	}
	providers := []struct {
		name, model string
		use         func(testing.TB, modeltest.Scenario) *modeltest.Server
	}{
		{"gemini", "gemini-2.5-flash", modeltest.UseGemini},
		{"openai", "openai:gpt-4o", modeltest.UseOpenAI},
		{"anthropic", "anthropic:claude-sonnet-4-5", modeltest.UseAnthropic},
	}
	scenario := `
turns:
  - reply:
      - call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "` + codes[0] + `"}}
      - call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "` + codes[1] + `"}}
      - call: {id: c3, name: ipybox_execute_ipython_cell, args: {code: "` + codes[2] + `"}}
  - expect:
      last:
        - {response: ipybox_execute_ipython_cell, output: "['first', 'second', 'third']", is_error: false}
    reply: [{text: "Done in order."}]
`
	tiers(t, scripts, func(t *testing.T, x tier) {
		for _, p := range providers {
			t.Run(p.name, func(t *testing.T) {
				ws := workspace(t, `{"model": "`+p.model+`"}`)
				p.use(t, mustScenario(t, scenario))
				a := started(t, ws, x.executors(t))
				events := run(t, a, "Build the list.", nil)
				// Each call is asked for after the one before it gave its
				// output, so the user approves them in the model's order.
				var trace []string
				for _, ev := range events {
					switch e := ev.(type) {
					case *agent.ApprovalRequest:
						trace = append(trace, "ask "+e.CorrelationID)
					case *agent.ToolOutput:
						trace = append(trace, "done "+e.CorrelationID)
					}
				}
				ok := len(trace) == 2*len(codes)
				for i := 0; ok && i < len(trace); i += 2 {
					id := strings.TrimPrefix(trace[i], "ask ")
					ok = strings.HasPrefix(trace[i], "ask ") && trace[i+1] == "done "+id
				}
				if !ok {
					t.Errorf("approvals and results %v, want each call asked for after the one before it ended", trace)
				}
				var asked []string
				for _, r := range of[*agent.ApprovalRequest](events) {
					asked = append(asked, r.ToolCall.(agent.CodeAction).Code)
				}
				if !slices.Equal(asked, codes) {
					t.Errorf("approvals asked for %q, want %q", asked, codes)
				}
				if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "Done in order." {
					t.Fatalf("the turn did not end with the answer:%s", describe(events))
				}
				for _, o := range of[*agent.CodeExecutionOutput](events) {
					if o.Error {
						t.Errorf("a code action failed: %q", o.Text)
					}
				}
			})
		}
	})
}
