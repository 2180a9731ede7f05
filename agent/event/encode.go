package event

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
	return json.Marshal(struct {
		Meta
		ToolCall  typedCall `json:"tool_call"`
		Display   string    `json:"display,omitempty"`
		Suggested string    `json:"suggested_pattern"`
		Reason    string    `json:"reason,omitempty"`
		Protected bool      `json:"protected,omitempty"`
		NoAlways  string    `json:"no_always,omitempty"`
		Judge     string    `json:"judge,omitempty"`
	}{r.Meta, typedCall{r.ToolCall}, r.Display, r.Suggested, r.Reason, r.Protected, r.NoAlways, r.Judge})
}

// MarshalJSON encodes the event with its tool call's type.
func (r *AutoApproved) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Meta
		ToolCall typedCall `json:"tool_call"`
		Display  string    `json:"display,omitempty"`
		By       string    `json:"by"`
		Rule     string    `json:"rule,omitempty"`
		Reason   string    `json:"reason,omitempty"`
	}{r.Meta, typedCall{r.ToolCall}, r.Display, r.By, r.Rule, r.Reason})
}

// typedCall is a tool call as an event's tool_call field.
type typedCall struct{ call ToolCall }

// MarshalJSON encodes the call with its "type" first.
func (c typedCall) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(c.call)
	if err != nil {
		return nil, err
	}
	return withType(TypeName(c.call), b), nil
}
