package approval_test

import (
	"context"
	"testing"

	"github.com/freeact/desktop/agent/approval"
	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/permission"
)

// A saved rule allows its call at once by the rules, and allows nothing
// when every call is asked; switching back lets the rule answer again.
func TestAskAllIgnoresSavedRules(t *testing.T) {
	m, err := permission.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	call := event.CodeAction{ToolName: "ipybox_execute_ipython_cell", Code: "print(42)"}
	pc := call.Permission()
	if err := m.Add(false, permission.ParsePattern(permission.SuggestPattern(pc), pc)); err != nil {
		t.Fatal(err)
	}
	ap := &approval.Approver{Perm: m.NewConversation(), AgentID: "main", State: new(approval.State)}
	for _, tc := range []struct {
		mode  approval.Mode
		asked bool
	}{
		{approval.Rules, false},
		{approval.Ask, true},
		{approval.Rules, false},
	} {
		ap.State.SetMode(tc.mode)
		var asked, auto bool
		emit := func(e event.Event) {
			switch e := e.(type) {
			case *event.ApprovalRequest:
				asked = true
				e.Answer(event.Once, "")
			case *event.AutoApproved:
				auto = true
			}
		}
		ok, err := ap.Ask(context.Background(), emit, "c1", call, 0)
		if err != nil || !ok {
			t.Fatalf("%s: Ask = %v, %v; want approved", tc.mode, ok, err)
		}
		if asked != tc.asked || auto == tc.asked {
			t.Errorf("%s: asked %v, auto-approved %v; want asked %v", tc.mode, asked, auto, tc.asked)
		}
	}
}
