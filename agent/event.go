package agent

import (
	"github.com/freeact/desktop/agent/model"
)

// Event is one thing that happens during a turn. Every event names the agent
// that produced it ("main", or "sub-xxxx" for a subagent) and, where it
// belongs to a tool call, the call's correlation id, which ties the call's
// approval request, output chunks and result together.
type Event interface {
	// Agent returns the id of the agent that produced the event.
	Agent() string
	// Correlation returns the tool call id the event belongs to, or "".
	Correlation() string
}

// Meta is embedded in every event.
type Meta struct {
	AgentID       string `json:"agent_id"`
	CorrelationID string `json:"correlation_id,omitempty"`
}

// Agent returns the id of the agent that produced the event.
func (m Meta) Agent() string { return m.AgentID }

// Correlation returns the tool call id the event belongs to, or "".
func (m Meta) Correlation() string { return m.CorrelationID }

// ThoughtsChunk is a piece of the model's thinking as it streams.
type ThoughtsChunk struct {
	Meta
	Text string `json:"text"`
}

// Thoughts is the model's complete thinking of one model call.
type Thoughts struct {
	Meta
	Text string `json:"text"`
}

// ResponseChunk is a piece of the model's answer as it streams.
type ResponseChunk struct {
	Meta
	Text string `json:"text"`
}

// Response is the model's complete answer text of one model call. The last
// Response of a turn is the turn's answer; after a rejection its text is
// "Tool call rejected".
type Response struct {
	Meta
	Text string `json:"text"`
}

// CodeExecutionOutputChunk is output of a running code action as it
// arrives. Kind is stdout, stderr, result, image or error.
type CodeExecutionOutputChunk struct {
	Meta
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// CodeExecutionOutput is the complete output of a code action: its text and
// the paths of the images it produced.
type CodeExecutionOutput struct {
	Meta
	Text   string   `json:"text"`
	Images []string `json:"images"`
	// Error is set when the cell raised, timed out or the kernel failed.
	Error bool `json:"error,omitempty"`
}

// ToolOutput is the result of a tool call as the model receives it (after
// offloading, so a large result is the notice that points to its file).
type ToolOutput struct {
	Meta
	ToolName string `json:"tool_name"`
	Content  string `json:"content"`
	IsError  bool   `json:"is_error,omitempty"`
}

// Usage reports the tokens of one model call.
type Usage struct {
	Meta
	Model string `json:"model"`
	model.Usage
}

// ModelRetry reports that a model call failed transiently and is retried.
type ModelRetry struct {
	Meta
	Attempt    int     `json:"attempt"`
	MaxRetries int     `json:"max_retries"`
	DelaySecs  float64 `json:"delay_seconds"`
	Reason     string  `json:"reason"`
}

// Cancelled ends a turn stopped by Cancel (or by the caller's context). Phase
// says where the turn was: PhaseStreaming, PhaseTools or PhaseBetween.
type Cancelled struct {
	Meta
	Phase string `json:"phase"`
}

// Cancellation phases.
const (
	PhaseStreaming = "llm_streaming"
	PhaseTools     = "tool_execution"
	PhaseBetween   = "between_turns"
)

// Failed ends a turn that could not go on: the model call failed after its
// retries, or the session could not be written. The conversation is as it
// was before the turn.
type Failed struct {
	Meta
	Error string `json:"error"`
}
