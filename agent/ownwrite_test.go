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
	"github.com/freeact/desktop/agent/permission"
)

// A rule saved with Always while a code action runs (its shell command
// was asked) is freeact's own write of .freeact/permissions.json, not the
// action's change: the action's changes list only what its code did, and
// reverting the action keeps the rule.
func TestAlwaysRuleIsNotTheActionsChange(t *testing.T) {
	const code = "!touch made.txt"
	x := fakeKernels(cells{code: func(c *agenttest.Cell) {
		if c.Shell("touch made.txt") {
			if err := os.WriteFile(filepath.Join(c.Workspace(), "made.txt"), nil, 0o644); err != nil {
				c.Raise("OSError", err.Error())
			}
		}
	}})
	ws := workspace(t, "")
	perm, err := permission.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := x.startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "`+code+`"}}}]
  - reply: [{text: "Done."}]
`, agent.WithPermissions(perm))
	events := run(t, a, "Make a file.", func(r *agent.ApprovalRequest) agent.Decision {
		if _, ok := r.ToolCall.(agent.ShellAction); ok {
			return agent.Always
		}
		return agent.Once
	})
	rulesFile := filepath.Join(ws, ".freeact", permission.FileName)
	saved := func() bool {
		data, err := os.ReadFile(rulesFile)
		return err == nil && strings.Contains(string(data), "touch")
	}
	if !saved() {
		t.Fatalf("Always saved no rule for touch in %s", rulesFile)
	}
	changed := of[*agent.FilesChanged](events)
	if len(changed) != 1 || changed[0].CorrelationID != "c1" {
		t.Fatalf("FilesChanged events %+v", changed)
	}
	if got := statusList(changed[0].Files); !slices.Equal(got, []string{"added made.txt"}) {
		t.Errorf("the code action changed %q, want only made.txt (the rule is freeact's own write)", got)
	}
	if _, _, err := a.Revert(context.Background(), changed[0].Checkpoint, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, "made.txt")); !os.IsNotExist(err) {
		t.Errorf("made.txt after the revert: %v", err)
	}
	if !saved() {
		t.Error("reverting the action took back the rule saved with Always")
	}
}
