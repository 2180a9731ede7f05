package event

import (
	"encoding/json"
	"testing"

	"github.com/freeact/desktop/agent/model"
)

func TestMarshalEvent(t *testing.T) {
	meta := Meta{AgentID: "sub-1a2b", CorrelationID: "c1"}
	tests := []struct {
		ev   Event
		want string
	}{
		{&ResponseChunk{Meta: Meta{AgentID: "main"}, Text: "hi"}, `{"type":"ResponseChunk","agent_id":"main","text":"hi"}`},
		{&CodeExecutionOutput{Meta: meta, Text: "42\n", Images: []string{"images/a.png"}},
			`{"type":"CodeExecutionOutput","agent_id":"sub-1a2b","correlation_id":"c1","text":"42\n","images":["images/a.png"]}`},
		{&Cancelled{Meta: Meta{AgentID: "main"}, Phase: PhaseTools}, `{"type":"Cancelled","agent_id":"main","phase":"tool_execution"}`},
		{&Usage{Meta: Meta{AgentID: "main"}, Model: "google:g", Usage: model.Usage{InputTokens: 3, OutputTokens: 2, ThinkingTokens: 1}},
			`{"type":"Usage","agent_id":"main","model":"google:g","input_tokens":3,"output_tokens":2,"thinking_tokens":1,"cost":null}`},
		{&Usage{Meta: Meta{AgentID: "main"}, Model: "google:g", Usage: model.Usage{InputTokens: 3, CachedTokens: 1}, Cost: func() *float64 { c := 0.0125; return &c }()},
			`{"type":"Usage","agent_id":"main","model":"google:g","input_tokens":3,"output_tokens":0,"thinking_tokens":0,"cached_tokens":1,"cost":0.0125}`},
		{NewApprovalRequest(meta, ShellAction{ToolName: "bash", Command: "git status"}, "git status *"),
			`{"type":"ApprovalRequest","agent_id":"sub-1a2b","correlation_id":"c1","tool_call":{"type":"ShellAction","tool_name":"bash","command":"git status"},"display":"git status","suggested_pattern":"git status *"}`},
		{NewApprovalRequest(meta, GenericCall{ToolName: "ipybox_reset", Args: json.RawMessage(`{}`)}, "ipybox_reset"),
			`{"type":"ApprovalRequest","agent_id":"sub-1a2b","correlation_id":"c1","tool_call":{"type":"GenericCall","tool_name":"ipybox_reset","tool_args":{}},"suggested_pattern":"ipybox_reset"}`},
	}
	for _, tt := range tests {
		got, err := MarshalEvent(tt.ev)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", EventType(tt.ev), got, tt.want)
		}
	}
}
