package agent_test

import (
	"encoding/json"
	"github.com/freeact/desktop/agent/mcpglue"
	"os"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/internal/testenv"
)

// server-everything's trigger-sampling-request asks the agent's model
// during the call: the user approves the server's messages, then the
// model's answer, which the server returns as the tool's result.
func TestMCPSampling(t *testing.T) {
	js := testenv.MCPServer(t, "server-everything")
	ws := mcpWorkspace(t, map[string]any{"mcp_servers": map[string]any{"everything": map[string]any{"command": "node", "args": []string{js, "stdio"}, "connect_timeout": 60}}})
	a, _ := fakeKernels(nil).startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: everything_trigger-sampling-request, args: {prompt: "Name a colour.", maxTokens: 20}}}]
  - expect:
      messages: 1
      last: [{role: user, text: "Name a colour."}]
    reply: [{text: "Teal."}]
  - expect:
      last: [{role: user, response: everything_trigger-sampling-request, output: "Teal."}]
    reply: [{text: "Done."}]
`)
	var approvals []agent.GenericCall
	events := run(t, a, "Ask the server.", func(r *agent.ApprovalRequest) agent.Decision {
		if g, ok := r.ToolCall.(agent.GenericCall); ok {
			approvals = append(approvals, g)
		}
		return agent.Once
	})
	if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "Done." {
		t.Fatalf("events:%s", describe(events))
	}
	if len(approvals) != 3 {
		t.Fatalf("approvals %+v, want the call, the sampling request and its answer", approvals)
	}
	if approvals[1].ToolName != "sampling_everything" || !strings.Contains(string(approvals[1].Args), "Name a colour.") {
		t.Errorf("sampling approval %s %s", approvals[1].ToolName, approvals[1].Args)
	}
	var answer struct{ Answer string }
	if json.Unmarshal(approvals[2].Args, &answer); approvals[2].ToolName != "sampling_everything" || answer.Answer != "Teal." {
		t.Errorf("answer approval %s %s", approvals[2].ToolName, approvals[2].Args)
	}
}

// A refused sampling request fails the server's request, not the turn.
func TestMCPSamplingRefused(t *testing.T) {
	js := testenv.MCPServer(t, "server-everything")
	ws := mcpWorkspace(t, map[string]any{"mcp_servers": map[string]any{"everything": map[string]any{"command": "node", "args": []string{js, "stdio"}, "connect_timeout": 60}}})
	a, fake := fakeKernels(nil).startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: everything_trigger-sampling-request, args: {prompt: "Name a colour.", maxTokens: 20}}}]
  - expect:
      last: [{role: user, response: everything_trigger-sampling-request}]
    reply: [{text: "It was refused."}]
`)
	events := run(t, a, "Ask the server.", func(r *agent.ApprovalRequest) agent.Decision {
		if g, ok := r.ToolCall.(agent.GenericCall); ok && strings.HasPrefix(g.ToolName, mcpglue.SamplingToolPrefix) {
			return agent.Reject
		}
		return agent.Once
	})
	if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "It was refused." {
		t.Fatalf("events:%s", describe(events))
	}
	if n := len(fake.Requests()); n != 2 {
		t.Errorf("%d model requests, want 2 (no sampling request reached the model)", n)
	}
}

// A server that asks for a sampling during its handshake, when the agent
// is starting and no call of its tools is in flight, is answered with an
// error; the agent starts and offers its tools (it crashed on a nil
// pointer before).
func TestMCPSamplingDuringHandshake(t *testing.T) {
	srv, answer := mcptest.AsksOnInitialize(t)
	ws := mcpWorkspace(t, map[string]any{"mcp_servers": map[string]any{"asks": srv}})
	a, _ := fakeKernels(nil).startIn(t, ws, `
turns:
  - expect:
      tools: [asks_echo, ipybox_execute_ipython_cell, pytools_list_categories]
    reply: [{text: "Started."}]
`)
	events := run(t, a, "Hello.", func(*agent.ApprovalRequest) agent.Decision { return agent.Once })
	if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "Started." {
		t.Fatalf("events:%s", describe(events))
	}
	b, err := os.ReadFile(answer)
	if err != nil {
		t.Fatalf("the server got no answer: %v", err)
	}
	if !strings.Contains(string(b), `"error"`) || !strings.Contains(string(b), "only during a call of one of the server's tools") {
		t.Errorf("answer %s; want an error saying sampling is answered only during a call", b)
	}
}
