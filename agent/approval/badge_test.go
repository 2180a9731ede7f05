package approval

import (
	"sync"
	"testing"

	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/model"
)

// Badge is who let the call itself run without a click, for its record,
// once: not what a later ask under the same call (a shell command inside
// a cell the user approved) said, and nothing for a call the user
// approved.
func TestBadgeIsWhoLetTheCallItselfRun(t *testing.T) {
	var sandbox bool
	st := &State{Structure: func() Structure { return Structure{Sandbox: sandbox, Checkpoints: true} }, Judge: &scripted{v: JudgeVerdict{Allow: true, Reason: "plots the data"}}}
	st.SetMode(Auto)
	ap := &Approver{State: st, Began: new(sync.Map)}
	if ok, auto, _, _ := run(t, ap, event.CodeAction{ToolName: "x", Code: "plot()"}, event.Reject); !ok || auto == nil {
		t.Fatalf("the judge did not allow the call: %v %+v", ok, auto)
	}
	if got, want := ap.Badge("c"), (model.Approved{By: event.ByJudge, Reason: "plots the data"}); got == nil || *got != want {
		t.Errorf("badge %+v, want %+v", got, want)
	}
	if got := ap.Badge("c"); got != nil {
		t.Errorf("the badge was given twice: %+v", got)
	}
	ap.Began.Delete("c") // the call's result took its start

	// The user approves the cell; a shell command inside it then runs
	// by the sandbox: the cell's record gets no badge.
	st.Judge = &scripted{v: JudgeVerdict{Reason: "not asked for"}}
	if ok, auto, req, _ := run(t, ap, event.CodeAction{ToolName: "x", Code: "!ls"}, event.Once); !ok || auto != nil || req == nil {
		t.Fatalf("the user's approval: ok=%v auto=%+v req=%v", ok, auto, req)
	}
	sandbox = true
	if ok, auto, _, _ := run(t, ap, event.ShellAction{ToolName: "shell", Command: "ls"}, event.Reject); !ok || auto == nil || auto.By != event.BySandbox {
		t.Fatalf("the shell command inside: ok=%v auto=%+v", ok, auto)
	}
	if got := ap.Badge("c"); got != nil {
		t.Errorf("a cell the user approved got the badge of a command inside it: %+v", got)
	}
	var none Approver
	if none.Badge("c") != nil {
		t.Error("an approver that keeps nothing gave a badge")
	}
}
