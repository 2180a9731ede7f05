package acp_test

import (
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// TestACPCodeActionRawInputAndOutput: a code action's tool_call carries
// the exact code in rawInput.command and its updates carry the output in
// rawOutput, which is what clients that render rawInput and rawOutput
// rather than content show (Jupyter AI 3 showed neither the code while it
// asked nor the output after).
func TestACPCodeActionRawInputAndOutput(t *testing.T) {
	bin := freeactBinary(t)
	ws, environ, _ := env(t, codeTurn)
	p := startACP(t, bin, environ)
	p.initialize(t)
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
	if final != "42\n" {
		t.Errorf("the completed update's rawOutput is %#v, want the output %q", final, "42\n")
	}
}
