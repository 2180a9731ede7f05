package agent_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/agenttest"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/permission"
)

// A shell command that a rule allows ("cat *") but that reads a file an ask
// rule names (.env) is asked, with a reason the user sees; its neighbour
// on the same line is not. A "no" ends the turn.
func TestShellReadOfAskedFileIsAskedWithReason(t *testing.T) {
	const line = "cat notes.txt && cat .env"
	tiers(t, cells{"!" + line: func(c *agenttest.Cell) { c.Shell(line) }}, func(t *testing.T, x tier) {
		ws := workspace(t, "")
		for name, content := range map[string]string{".env": "KEY=secret\n", "notes.txt": "notes\n"} {
			if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		perm, err := permission.Open(ws)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := x.startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "!`+line+`"}}}]
`, agent.WithPermissions(perm))
		var asked []*agent.ApprovalRequest
		run(t, a, "Read.", func(r *agent.ApprovalRequest) agent.Decision {
			if _, ok := r.ToolCall.(agent.CodeAction); ok {
				return agent.Once
			}
			asked = append(asked, r)
			return agent.Reject
		})
		if len(asked) != 1 || asked[0].Display != "cat .env" {
			t.Fatalf("asked %d shell commands: %+v", len(asked), asked)
		}
		want := `the rule ShellAction bash "cat *" allows it, but it reads .env, which the rule FileRead filesystem_* **/.env asks for`
		if asked[0].Reason != want || asked[0].Protected {
			t.Errorf("reason %q (protected %v), want %q", asked[0].Reason, asked[0].Protected, want)
		}
		b, err := agent.MarshalEvent(asked[0])
		if err != nil || !strings.Contains(string(b), `"reason":"the rule ShellAction bash \"cat *\" allows it, but`) {
			t.Errorf("the reason is not in the event's JSON: %s %v", b, err)
		}
	})
}

// Writing permissions.json or agent.json is asked every time with a
// warning, whatever rules allow; Always counts as a one-time yes and saves
// no rule.
func TestProtectedWriteCannotBeAllowedForever(t *testing.T) {
	ws := workspace(t, "")
	perm, err := permission.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	if err := perm.AllowAlways(permission.Rule{Type: permission.TypeFileWrite, ToolName: "*", Path: "**"}); err != nil {
		t.Fatal(err)
	}
	rules := `{"allow": [{"type": "ShellAction", "tool_name": "bash", "command": "*"}], "ask": []}`
	rulesJSON, _ := json.Marshal(rules)
	agentJSON := filepath.Join(config.FreeactDir, config.AgentFile)
	a, _ := fakeKernels(nil).startIn(t, ws, `
turns:
  - reply: [{call: {id: w1, name: filesystem_write_text_file, args: {path: .freeact/permissions.json, content: `+string(rulesJSON)+`}}}]
  - reply: [{call: {id: w2, name: filesystem_write_text_file, args: {path: .freeact/permissions.json, content: `+string(rulesJSON)+`}}}]
  - reply: [{call: {id: w3, name: filesystem_edit_text_file, args: {path: `+agentJSON+`, old_text: "{", new_text: "{ "}}}]
  - reply: [{call: {id: w4, name: filesystem_write_text_file, args: {path: other.txt, content: "x"}}}]
  - reply: [{text: "Done."}]
`, agent.WithPermissions(perm))
	var asked []*agent.ApprovalRequest
	run(t, a, "Change the rules.", func(r *agent.ApprovalRequest) agent.Decision {
		asked = append(asked, r)
		return agent.Always
	})
	if len(asked) != 3 {
		t.Fatalf("%d approvals, want 3 (two writes of permissions.json, one edit of agent.json)", len(asked))
	}
	for i, want := range []string{".freeact/permissions.json", ".freeact/permissions.json", ".freeact/agent.json"} {
		r := asked[i]
		if !r.Protected || r.Suggested != "" || r.Reason != "it changes "+want+": this changes what the agent may do without asking" {
			t.Errorf("approval %d: protected %v, suggested %q, reason %q", i+1, r.Protected, r.Suggested, r.Reason)
		}
	}
	always := perm.Rules()
	if len(a.Grants()) != 0 || len(always.Allow) != len(permission.DefaultRules().Allow)+1 {
		t.Errorf("Always on a protected call saved a rule: always %v, grants %v", always.Allow, a.Grants())
	}
	if b, err := os.ReadFile(filepath.Join(ws, "other.txt")); err != nil || string(b) != "x" {
		t.Errorf("the unprotected write did not run: %q %v", b, err)
	}
}

// A symbolic link swapped in while the user looks at the approval does not
// redirect the approved write.
func TestSymlinkSwappedDuringApproval(t *testing.T) {
	ws := workspace(t, "")
	outside := filepath.Join(t.TempDir(), "victim.txt")
	if err := os.WriteFile(outside, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, _ := fakeKernels(nil).startIn(t, ws, `
turns:
  - reply: [{call: {id: w1, name: filesystem_write_text_file, args: {path: notes.txt, content: "pwned"}}}]
  - expect:
      last: [{role: user, response: filesystem_write_text_file, output: "changed after it was approved", is_error: true}]
    reply: [{text: "It moved."}]
`)
	run(t, a, "Write.", func(r *agent.ApprovalRequest) agent.Decision {
		link := filepath.Join(ws, "notes.txt")
		if err := os.Remove(link); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, link); err != nil {
			t.Fatal(err)
		}
		return agent.Once
	})
	if b, _ := os.ReadFile(outside); string(b) != "secret\n" {
		t.Errorf("the write followed the swapped link: %q", b)
	}
}
