package desktop

import (
	"testing"

	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/agent/permission"
)

// A "never" answer refuses the call and saves a deny rule, which the
// settings' Permissions list shows and can remove; while it is saved the
// same call is refused without a question.
func TestDesktopNeverSavesADenyRuleTheSettingsShow(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "print(6*7)"}}}]
  - reply: [{text: "Refused."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	d, h, ws := testDesktop(t)
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	h.waitState(t, KernelReady)
	if err := d.Send("What is 6*7?", nil); err != nil {
		t.Fatal(err)
	}
	appr, i := h.waitEvent(t, "ApprovalRequest", 0)
	if err := d.Approve(appr["request_id"].(string), "never", ""); err != nil {
		t.Fatal(err)
	}
	_, i = h.waitEvent(t, "TurnEnded", i)
	h.waitState(t, KernelReady)
	rules, err := d.Permissions()
	if err != nil {
		t.Fatal(err)
	}
	want := permission.Rule{Type: permission.TypeCodeAction, ToolName: "ipybox_execute_ipython_cell"}
	if len(rules.Always.Deny) != 1 || rules.Always.Deny[0] != want {
		t.Fatalf("deny rules in the settings: %+v, want [%+v]", rules.Always.Deny, want)
	}
	if err := d.Send("Again", nil); err != nil {
		t.Fatal(err)
	}
	out, j := h.waitEvent(t, "ToolOutput", i)
	h.waitEvent(t, "TurnEnded", j)
	if n := h.countAfter("ApprovalRequest", 0); n != 1 {
		t.Errorf("%d approval requests, want 1: the deny rule refuses without asking", n)
	}
	if out["is_error"] != true {
		t.Errorf("the refused call's result: %v", out)
	}
	// Removed in the settings: the rules are saved without it.
	rs := rules.Always
	rs.Deny = nil
	if err := d.SavePermissions(rs); err != nil {
		t.Fatal(err)
	}
	if again, _ := d.Permissions(); len(again.Always.Deny) != 0 {
		t.Errorf("deny rules after removing: %+v", again.Always.Deny)
	}
}
