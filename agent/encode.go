package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// EventType returns an event's name: "ResponseChunk", "ApprovalRequest", ...
func EventType(ev Event) string {
	t := reflect.TypeOf(ev)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// MarshalEvent encodes an event as one JSON object: "type" (the event's
// name), "agent_id", "correlation_id" when it has one, and the event's fields
// in snake_case. An ApprovalRequest's tool_call carries its own "type"
// (CodeAction, ShellAction, ...).
func MarshalEvent(ev Event) ([]byte, error) {
	b, err := json.Marshal(ev)
	if err != nil {
		return nil, fmt.Errorf("encode %s event: %w", EventType(ev), err)
	}
	return withType(EventType(ev), b), nil
}

// withType puts "type": name first in the JSON object b.
func withType(name string, b []byte) []byte {
	var out bytes.Buffer
	out.WriteString(`{"type":`)
	n, _ := json.Marshal(name)
	out.Write(n)
	if rest := bytes.TrimPrefix(b, []byte("{")); !bytes.HasPrefix(rest, []byte("}")) {
		out.WriteByte(',')
		out.Write(rest)
	} else {
		out.WriteByte('}')
	}
	return out.Bytes()
}

// MarshalJSON encodes the request with its tool call's type.
func (r *ApprovalRequest) MarshalJSON() ([]byte, error) {
	call, err := marshalCall(r.ToolCall)
	if err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		Meta
		ToolCall  json.RawMessage `json:"tool_call"`
		Display   string          `json:"display,omitempty"`
		Suggested string          `json:"suggested_pattern"`
		Reason    string          `json:"reason,omitempty"`
		Protected bool            `json:"protected,omitempty"`
	}{r.Meta, call, r.Display, r.Suggested, r.Reason, r.Protected})
}

// MarshalJSON encodes the event with its tool call's type.
func (r *AutoApproved) MarshalJSON() ([]byte, error) {
	call, err := marshalCall(r.ToolCall)
	if err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		Meta
		ToolCall json.RawMessage `json:"tool_call"`
		Display  string          `json:"display,omitempty"`
		By       string          `json:"by"`
		Rule     string          `json:"rule,omitempty"`
	}{r.Meta, call, r.Display, r.By, r.Rule})
}

// marshalCall encodes a tool call with its "type" first.
func marshalCall(c ToolCall) (json.RawMessage, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return withType(TypeName(c), b), nil
}
