package approval

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/permission"
)

func TestNeverSavesADenyRuleAndTheNextCallIsRefusedWithoutAsking(t *testing.T) {
	for _, mode := range []Mode{Ask, Rules} {
		t.Run(mode.String(), func(t *testing.T) {
			m, err := permission.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			st := &State{}
			st.SetMode(mode)
			ap := &Approver{Perm: m.NewConversation(), State: st}
			call := event.ShellAction{ToolName: permission.ShellTool, Command: "curl -s example.org"}
			ok, _, req, _ := run(t, ap, call, event.Never)
			if ok || req == nil {
				t.Fatalf("a never answer: ran %v, asked %v; want refused after asking", ok, req != nil)
			}
			if v := m.Evaluate(call.Permission()); v.Decision != permission.Deny {
				t.Fatalf("after never, the saved rules give %v, want deny (rules %+v)", v.Decision, m.Rules())
			}
			// The same call again: no question, refused with the rule named.
			asked := false
			var notice string
			emit := func(e event.Event) {
				switch e := e.(type) {
				case *event.ApprovalRequest:
					asked = true
					e.Answer(event.Once, "")
				case *event.Notice:
					notice = e.Text
				}
			}
			ok, err = ap.Ask(context.Background(), emit, "c2", call, 0)
			var denied *RuleDenied
			if ok || asked || !errors.As(err, &denied) || denied.Rule != "curl *" || notice == "" {
				t.Fatalf("the call a deny rule covers: ran %v, asked %v, err %v, notice %q; want refused without asking by curl *", ok, asked, err, notice)
			}
		})
	}
}

func TestNeverForAProtectedFileSavesNoRule(t *testing.T) {
	ws := t.TempDir()
	m, err := permission.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	ap := &Approver{Perm: m.NewConversation()}
	call := event.FileWrite{ToolName: "filesystem_write_file", Path: filepath.Join(ws, ".freeact", permission.FileName)}
	ok, _, req, _ := run(t, ap, call, event.Never)
	if ok || req == nil || !req.Protected {
		t.Fatalf("a protected write answered never: ran %v, request %+v", ok, req)
	}
	if d := m.Rules().Deny; len(d) != 0 {
		t.Fatalf("a protected call saved deny rules %v; it offers no lasting answer", d)
	}
}
