package agent_test

import (
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/agenttest"
	"github.com/freeact/desktop/agent/permission"
)

// A call that runs without asking is shown all the same: an AutoApproved
// event carries it and names the rule or the grant that allowed it. A
// Session answer adds a grant to this conversation only, reported by a
// SessionGrants event, and a revoked grant asks again.
func TestGrantsBelongToOneConversation(t *testing.T) {
	x := fakeKernels(cells{
		"print(1)": prints("1"),
		"print(2)": prints("2"),
		"!ls":      func(c *agenttest.Cell) { c.Shell("ls") },
		"print(3)": prints("3"),
	})
	ws := workspace(t, "")
	perm, err := permission.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := x.startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(1)"}}}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "print(2)"}}}]
  - reply: [{call: {id: c3, name: ipybox_execute_ipython_cell, args: {code: "!ls"}}}]
  - reply: [{text: "Done."}]
  - reply: [{call: {id: c4, name: ipybox_execute_ipython_cell, args: {code: "print(3)"}}}]
  - reply: [{text: "Again."}]
`, agent.WithPermissions(perm))
	var asked []string
	events := run(t, a, "Go.", func(r *agent.ApprovalRequest) agent.Decision {
		asked = append(asked, r.Correlation())
		return agent.Session
	})
	if len(asked) != 1 || asked[0] != "c1" {
		t.Fatalf("asked for %v, want c1 only:%s", asked, describe(events))
	}
	grants := of[*agent.SessionGrants](events)
	codeRule := permission.Rule{Type: permission.TypeCodeAction, ToolName: agent.ExecuteTool}
	if len(grants) != 1 || len(grants[0].Grants) != 1 || grants[0].Grants[0] != codeRule {
		t.Fatalf("SessionGrants events %+v, want one listing %v", grants, codeRule)
	}
	auto := of[*agent.AutoApproved](events)
	if len(auto) != 3 {
		t.Fatalf("%d AutoApproved events, want 3 (c2, the code of c3, its ls):%s", len(auto), describe(events))
	}
	if c, ok := auto[0].ToolCall.(agent.CodeAction); !ok || c.Code != "print(2)" || auto[0].Correlation() != "c2" ||
		auto[0].By != agent.BySession || auto[0].Rule != agent.ExecuteTool {
		t.Errorf("first AutoApproved %+v, want print(2) allowed by the session grant", auto[0])
	}
	if s, ok := auto[2].ToolCall.(agent.ShellAction); !ok || s.Command != "ls" || auto[2].By != agent.ByRule ||
		auto[2].Rule != "ls" || auto[2].Display != "ls" || auto[2].Correlation() != "c3" {
		t.Errorf("third AutoApproved %+v, want ls allowed by the saved rule \"ls\"", auto[2])
	}
	if g := a.Grants(); len(g) != 1 || g[0] != codeRule {
		t.Errorf("Grants() = %v", g)
	}

	// Another conversation over the same workspace has no grants.
	b, _ := x.startIn(t, ws, `
turns:
  - reply: [{call: {id: d1, name: ipybox_execute_ipython_cell, args: {code: "print(1)"}}}]
  - reply: [{text: "Asked."}]
`, agent.WithPermissions(perm))
	if len(b.Grants()) != 0 {
		t.Errorf("a new conversation starts with grants %v", b.Grants())
	}
	asked = nil
	run(t, b, "Go.", func(r *agent.ApprovalRequest) agent.Decision {
		asked = append(asked, r.Correlation())
		return agent.Once
	})
	if len(asked) != 1 {
		t.Errorf("the new conversation was not asked (asked %v): the grant carried over", asked)
	}

	// Revoked, the grant asks again.
	if !a.RevokeGrant(codeRule) || len(a.Grants()) != 0 {
		t.Fatalf("RevokeGrant left %v", a.Grants())
	}
	asked = nil
	run(t, a, "Again.", func(r *agent.ApprovalRequest) agent.Decision {
		asked = append(asked, r.Correlation())
		return agent.Once
	})
	if len(asked) != 1 || asked[0] != "c4" {
		t.Errorf("after revoking, asked for %v, want c4", asked)
	}
}

// Skipping permissions still shows every call.
func TestSkipPermissionsShowsCalls(t *testing.T) {
	a, _, _ := fakeKernels(cells{"print(1)": prints("1")}).start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(1)"}}}]
  - reply: [{text: "Done."}]
`, agent.WithSkipPermissions())
	events := run(t, a, "Go.", nil)
	auto := of[*agent.AutoApproved](events)
	if len(auto) != 1 || auto[0].By != agent.BySkip || auto[0].Rule != "" {
		t.Errorf("AutoApproved %+v, want one by skip", auto)
	}
}
