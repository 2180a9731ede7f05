package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/freeact/desktop/agent/mcp"
)

// SamplingToolPrefix names the approvals of a server's sampling request:
// sampling_<server> (the messages, then the model's answer), so a
// permission rule can allow one server's sampling.
const SamplingToolPrefix = "sampling_"

// mcpCalls are the JSON MCP tool calls in flight, by server: a server's
// sampling request is answered within the call that caused it, and asks
// its approvals there.
type mcpCalls struct {
	mu    sync.Mutex
	calls map[string]*mcpCall
}

type mcpCall struct {
	ctx  context.Context
	emit func(Event)
	corr string
}

// during runs f with the call registered for server.
func (c *mcpCalls) during(server string, call *mcpCall, f func()) {
	c.mu.Lock()
	if c.calls == nil {
		c.calls = map[string]*mcpCall{}
	}
	prev := c.calls[server]
	c.calls[server] = call
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.calls[server] = prev
		c.mu.Unlock()
	}()
	f()
}

func (c *mcpCalls) of(server string) *mcpCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[server]
}

// sample answers a server's sampling/createMessage with the agent's
// model: the user approves the messages, then the answer before it goes
// back to the server.
func (a *Agent) sample(_ context.Context, calls *mcpCalls, r mcp.SampleRequest) (mcp.SampleResult, error) {
	call := calls.of(r.Server)
	if call == nil {
		return mcp.SampleResult{}, fmt.Errorf("freeact answers sampling requests only during a call of one of the server's tools")
	}
	ctx := call.ctx
	args, _ := json.Marshal(map[string]any{"system_prompt": r.SystemPrompt, "messages": r.Messages, "max_tokens": r.MaxTokens})
	tool := SamplingToolPrefix + r.Server
	ok, err := a.approvals.Ask(ctx, call.emit, call.corr, GenericCall{ToolName: tool, Args: args}, 0)
	if !ok {
		return mcp.SampleResult{}, fmt.Errorf("the user did not approve the sampling request (%v)", errOr(err, "declined"))
	}
	a.logRuleError(err)
	var prompt strings.Builder
	for _, m := range r.Messages {
		if m.Role != "user" {
			prompt.WriteString(m.Role + ": ")
		}
		prompt.WriteString(m.Text + "\n\n")
	}
	text, _, err := a.ask(ctx, r.SystemPrompt, strings.TrimSpace(prompt.String()))
	if err != nil {
		return mcp.SampleResult{}, fmt.Errorf("the model failed: %w", err)
	}
	result, _ := json.Marshal(map[string]any{"answer": text})
	ok, err = a.approvals.Ask(ctx, call.emit, call.corr, GenericCall{ToolName: tool, Args: result}, 0)
	if !ok {
		return mcp.SampleResult{}, fmt.Errorf("the user did not approve sending the answer (%v)", errOr(err, "declined"))
	}
	a.logRuleError(err)
	return mcp.SampleResult{Text: text, Model: a.cfg.Options.Model}, nil
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}
