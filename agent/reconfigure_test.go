package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/agenttest"
)

func TestReconfigure(t *testing.T) {
	a, fake, ws := fakeKernels(nil).start(t, `
turns:
  - expect: {model: gemini-3-flash-preview}
    reply: [{text: "First."}]
  - expect:
      model: gemini-2.5-pro
      system_contains: "Answer in haiku."
    reply: [{text: "Second."}]
`)
	run(t, a, "One.", nil)
	if err := os.WriteFile(filepath.Join(ws, ".freeact", "agent.json"),
		[]byte(`{"model": "gemini-2.5-pro", "approval_timeout": 5, "execution_timeout": 60}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte("Answer in haiku.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := load(t, ws)
	if got := a.RestartNeeded(cfg.Options); !slices.Equal(got, []string{"execution_timeout"}) {
		t.Errorf("RestartNeeded = %q", got)
	}
	restart, err := a.Reconfigure(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(restart, []string{"execution_timeout"}) {
		t.Errorf("restart = %q", restart)
	}
	// The model, its prompt and AGENTS.md apply to the next turn; the
	// running kernel keeps its timeout until a restart.
	run(t, a, "Two.", nil)
	if n := len(fake.Requests()); n != 2 {
		t.Errorf("%d requests", n)
	}
	if got := a.RestartNeeded(cfg.Options); !slices.Equal(got, []string{"execution_timeout"}) {
		t.Errorf("after reconfiguring, RestartNeeded = %q", got)
	}
}

func TestReconfigureDuringTurnRefused(t *testing.T) {
	a, _, ws := fakeKernels(cells{"1": func(c *agenttest.Cell) { c.Result("1") }}).start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "1"}}}]
  - reply: [{text: "ok"}]
`)
	cfg := load(t, ws)
	for ev := range a.Stream(context.Background(), agent.Text("Go.")) {
		if r, ok := ev.(*agent.ApprovalRequest); ok {
			if _, err := a.Reconfigure(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "turn is running") {
				t.Errorf("Reconfigure during a turn: %v", err)
			}
			r.Approve(true)
		}
	}
}
