package acp_test

import (
	"context"
	"reflect"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// TestACPCodeActionRawInputAndOutput: a code action's tool_call carries
// the exact code in rawInput.command and its updates carry the output in
// rawOutput, which is what clients that render rawInput and rawOutput
// rather than content show (Jupyter AI 3 showed neither the code while it
// asked nor the output after). Toad takes rawOutput only as an object and
// dropped the updates that carried the text (the cell's output never
// showed): it gets {"output": text}.
func TestACPCodeActionRawInputAndOutput(t *testing.T) {
	for _, tc := range []struct {
		client string
		want   any
	}{
		{"Jupyter AI", "42\n"},
		{"", "42\n"},
		{"toad", map[string]any{"output": "42\n"}},
	} {
		t.Run("client="+tc.client, func(t *testing.T) {
			bin := freeactBinary(t)
			ws, environ, _ := env(t, codeTurn)
			p := startACP(t, bin, environ)
			req := sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}
			if tc.client != "" {
				req.ClientInfo = &sdk.Implementation{Name: tc.client, Version: "1"}
			}
			if _, err := p.conn.Initialize(context.Background(), req); err != nil {
				t.Fatalf("initialize: %v; stderr:\n%s", err, p.stderr.String())
			}
			p.c.answer = pick("allow_once")
			id := p.newSession(t, ws)
			if _, err := p.prompt(t, id, "What is 6*7?"); err != nil {
				t.Fatalf("prompt: %v; stderr:\n%s", err, p.stderr.String())
			}
			updates, _ := p.c.snapshot()
			var command any
			var final any
			for _, n := range updates {
				if tc := n.Update.ToolCall; tc != nil && tc.Kind == sdk.ToolKindExecute {
					if in, ok := tc.RawInput.(map[string]any); ok {
						command = in["command"]
					}
				}
				if u := n.Update.ToolCallUpdate; u != nil && u.Status != nil && *u.Status == sdk.ToolCallStatusCompleted {
					final = u.RawOutput
				}
			}
			if command != "print(6*7)" {
				t.Errorf("rawInput.command is %#v, want the code that runs", command)
			}
			if !reflect.DeepEqual(final, tc.want) {
				t.Errorf("the completed update's rawOutput is %#v, want %#v", final, tc.want)
			}
		})
	}
}
