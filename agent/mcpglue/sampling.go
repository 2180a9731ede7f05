package mcpglue

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/mcp"
)

// SamplingToolPrefix names the approvals of a server's sampling request:
// sampling_<server> (the messages, then the model's answer), so a
// permission rule can allow one server's sampling.
const SamplingToolPrefix = "sampling_"

// Asker is what a server's sampling request needs of the agent: the
// user's approval, asked within the JSON call that caused the request,
// and the model's answer.
type Asker interface {
	// Approve asks the user about tc as part of the call corr, whose
	// events go to emit: ok is the answer; err says why there was none
	// (or, with ok, a permission rule that could not be read).
	Approve(ctx context.Context, emit func(event.Event), corr string, tc event.ToolCall) (ok bool, err error)
	// Ask asks the agent's model with a system prompt: its answer and
	// the model ("provider:name").
	Ask(ctx context.Context, system, prompt string) (text, model string, err error)
}

// calls are the JSON MCP tool calls in flight, by server: a server's
// sampling request is answered within the call that caused it, and asks
// its approvals there.
type calls struct {
	mu    sync.Mutex
	calls map[string]*call
}

type call struct {
	ctx  context.Context
	emit func(event.Event)
	corr string
}

// during runs f with the call registered for server.
func (c *calls) during(server string, cl *call, f func()) {
	c.mu.Lock()
	if c.calls == nil {
		c.calls = map[string]*call{}
	}
	prev := c.calls[server]
	c.calls[server] = cl
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.calls[server] = prev
		c.mu.Unlock()
	}()
	f()
}

func (c *calls) of(server string) *call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[server]
}

// sample answers a server's sampling/createMessage with the agent's
// model: the user approves the messages, then the answer
// before it goes back to the server.
func sample(_ context.Context, asker Asker, calls *calls, r mcp.SampleRequest) (mcp.SampleResult, error) {
	call := calls.of(r.Server)
	if call == nil || asker == nil {
		return mcp.SampleResult{}, fmt.Errorf("freeact answers sampling requests only during a call of one of the server's tools")
	}
	ctx := call.ctx
	args, _ := json.Marshal(map[string]any{"system_prompt": r.SystemPrompt, "messages": r.Messages, "max_tokens": r.MaxTokens})
	tool := SamplingToolPrefix + r.Server
	ok, err := asker.Approve(ctx, call.emit, call.corr, event.GenericCall{ToolName: tool, Args: args})
	if !ok {
		return mcp.SampleResult{}, fmt.Errorf("the user did not approve the sampling request (%v)", errOr(err, "declined"))
	}
	var prompt strings.Builder
	for _, m := range r.Messages {
		if m.Role != "user" {
			prompt.WriteString(m.Role + ": ")
		}
		prompt.WriteString(m.Text + "\n\n")
	}
	text, modelName, err := asker.Ask(ctx, r.SystemPrompt, strings.TrimSpace(prompt.String()))
	if err != nil {
		return mcp.SampleResult{}, fmt.Errorf("the model failed: %w", err)
	}
	result, _ := json.Marshal(map[string]any{"answer": text})
	ok, err = asker.Approve(ctx, call.emit, call.corr, event.GenericCall{ToolName: tool, Args: result})
	if !ok {
		return mcp.SampleResult{}, fmt.Errorf("the user did not approve sending the answer (%v)", errOr(err, "declined"))
	}
	return mcp.SampleResult{Text: text, Model: modelName}, nil
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}
