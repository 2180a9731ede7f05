package approval

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/permission"
)

// scripted is a judge answering every call the same way, counting calls.
type scripted struct {
	v     JudgeVerdict
	calls atomic.Int64
}

func (s *scripted) Judge(context.Context, event.ToolCall) (JudgeVerdict, error) {
	s.calls.Add(1)
	return s.v, nil
}

// run asks for call and answers a request with answer; it returns whether
// the call ran, the AutoApproved event if any and the request if any.
func run(t *testing.T, ap *Approver, call event.ToolCall, answer event.Decision) (bool, *event.AutoApproved, *event.ApprovalRequest, []string) {
	t.Helper()
	var auto *event.AutoApproved
	var req *event.ApprovalRequest
	var notices []string
	emit := func(e event.Event) {
		switch e := e.(type) {
		case *event.AutoApproved:
			auto = e
		case *event.ApprovalRequest:
			req = e
			e.Answer(answer, "")
		case *event.Notice:
			notices = append(notices, e.Text)
		}
	}
	ok, err := ap.Ask(context.Background(), emit, "c", call, 0)
	if err != nil {
		t.Fatal(err)
	}
	return ok, auto, req, notices
}

func autoApprover(s Structure, j Judge) *Approver {
	st := &State{Structure: func() Structure { return s }, Judge: j}
	st.SetMode(Auto)
	return &Approver{State: st}
}

func TestAutoModeSandboxRunsCodeWithoutAClick(t *testing.T) {
	j := &scripted{v: JudgeVerdict{Reason: "no"}}
	ap := autoApprover(Structure{Sandbox: true, Checkpoints: true}, j)
	ok, auto, req, _ := run(t, ap, event.CodeAction{ToolName: "ipybox_execute_ipython_cell", Code: "import os; os.remove('x')"}, event.Reject)
	if !ok || auto == nil || auto.By != event.BySandbox || req != nil || j.calls.Load() != 0 {
		t.Fatalf("ok=%v auto=%+v req=%v judge calls=%d, want it run by the sandbox", ok, auto, req, j.calls.Load())
	}
}

func TestAutoModeWithoutSandboxOrCheckpointsAsksTheJudge(t *testing.T) {
	for _, s := range []Structure{{}, {Sandbox: true}, {Checkpoints: true}} {
		j := &scripted{v: JudgeVerdict{Allow: true, Reason: "plots the data"}}
		ap := autoApprover(s, j)
		ok, auto, _, _ := run(t, ap, event.CodeAction{ToolName: "x", Code: "plot()"}, event.Reject)
		if !ok || auto == nil || auto.By != event.ByJudge || auto.Reason != "plots the data" {
			t.Errorf("%+v: ok=%v auto=%+v, want allowed by the judge with its reason", s, ok, auto)
		}
	}
}

func TestAutoModeAskRulesAndProtectedFilesComeFirst(t *testing.T) {
	dir := t.TempDir()
	m, err := permission.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Add(true, permission.Rule{Type: permission.TypeShellAction, ToolName: permission.ShellTool, Command: "git push *"}); err != nil {
		t.Fatal(err)
	}
	j := &scripted{v: JudgeVerdict{Allow: true}}
	ap := autoApprover(Structure{Sandbox: true, Checkpoints: true}, j)
	ap.Perm = m.NewConversation()
	for _, call := range []event.ToolCall{
		event.ShellAction{ToolName: permission.ShellTool, Command: "git push origin main"},
		event.FileWrite{ToolName: "filesystem_write_text_file", Path: ".freeact/permissions.json", Content: "{}"},
	} {
		ok, auto, req, _ := run(t, ap, call, event.Reject)
		if ok || auto != nil || req == nil {
			t.Errorf("%+v: ok=%v auto=%+v req=%v, want asked", call, ok, auto, req)
		}
	}
	if j.calls.Load() != 0 {
		t.Errorf("the judge was asked %d times about calls rules ask for", j.calls.Load())
	}
}

func TestAutoModeReadOnlyToolsOfTrustedServersOnly(t *testing.T) {
	yes := true
	ro := event.GenericCall{ToolName: "github_list_issues", Server: "github", Hints: &mcp.Hints{ReadOnly: &yes}}
	j := &scripted{v: JudgeVerdict{Reason: "unsure"}}
	ap := autoApprover(Structure{Sandbox: true, Checkpoints: true}, j)
	// Not trusted yet: the judge asks, the user says yes once.
	ok, auto, req, _ := run(t, ap, ro, event.Once)
	if !ok || auto != nil || req == nil || req.Judge != JudgeAsked {
		t.Fatalf("untrusted server: ok=%v auto=%+v req=%+v", ok, auto, req)
	}
	// Now the user's choice trusts the server: its read-only tools run.
	ok, auto, _, _ = run(t, ap, event.GenericCall{ToolName: "github_get_issue", Server: "github", Hints: &mcp.Hints{ReadOnly: &yes}}, event.Reject)
	if !ok || auto == nil || auto.By != event.ByReadOnly {
		t.Fatalf("trusted server: ok=%v auto=%+v", ok, auto)
	}
	// A tool of the trusted server that is not read-only still goes on.
	ok, _, req, _ = run(t, ap, event.GenericCall{ToolName: "github_create_issue", Server: "github"}, event.Reject)
	if ok || req == nil {
		t.Fatalf("a writing tool ran: ok=%v", ok)
	}
}

func TestAutoModeReusesTheVerdictForAnIdenticalAction(t *testing.T) {
	j := &scripted{v: JudgeVerdict{Allow: true, Reason: "fine"}}
	ap := autoApprover(Structure{}, j)
	call := event.CodeAction{ToolName: "x", Code: "df.describe()"}
	for range 3 {
		if ok, _, _, _ := run(t, ap, call, event.Reject); !ok {
			t.Fatal("not run")
		}
	}
	run(t, ap, event.CodeAction{ToolName: "x", Code: "df.head()"}, event.Reject)
	if n := j.calls.Load(); n != 2 {
		t.Fatalf("judge called %d times for 2 distinct actions", n)
	}
}

func TestBreakerPausesAutoModeAfterThreeAsksInARow(t *testing.T) {
	j := &scripted{v: JudgeVerdict{Reason: "risky"}}
	ap := autoApprover(Structure{}, j)
	var paused []string
	for i := range BreakerInRow {
		_, _, req, notices := run(t, ap, event.CodeAction{ToolName: "x", Code: strings.Repeat("a", i+1)}, event.Reject)
		if req == nil || req.Judge != JudgeAsked {
			t.Fatalf("ask %d: req=%+v", i, req)
		}
		paused = append(paused, notices...)
	}
	if !ap.State.Paused() || len(paused) != 1 {
		t.Fatalf("paused=%v notices=%q after %d asks in a row", ap.State.Paused(), paused, BreakerInRow)
	}
	_, _, req, _ := run(t, ap, event.CodeAction{ToolName: "x", Code: "new"}, event.Reject)
	if req == nil || req.Judge != JudgePaused || j.calls.Load() != BreakerInRow {
		t.Fatalf("while paused: req=%+v judge calls=%d", req, j.calls.Load())
	}
	ap.State.SetMode(Auto)
	if ap.State.Paused() {
		t.Fatal("turning auto mode on again did not resume it")
	}
}

func TestBreakerPausesAutoModeAfterTwentyAsks(t *testing.T) {
	j := &scripted{}
	ap := autoApprover(Structure{}, j)
	for i := range BreakerTotal {
		// An allow, then an ask: never 2 asks in a row.
		j.v = JudgeVerdict{Allow: true}
		run(t, ap, event.CodeAction{ToolName: "x", Code: strings.Repeat("b", i+1)}, event.Reject)
		j.v = JudgeVerdict{Reason: "risky"}
		run(t, ap, event.CodeAction{ToolName: "x", Code: strings.Repeat("c", i+1)}, event.Reject)
		if ap.State.Paused() {
			if i+1 != BreakerTotal {
				t.Fatalf("paused after %d asks, want %d", i+1, BreakerTotal)
			}
			return
		}
	}
	t.Fatal("never paused")
}

func TestRulesAndAskModes(t *testing.T) {
	m, err := permission.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Add(false, permission.Rule{Type: permission.TypeCodeAction, ToolName: "x"}); err != nil {
		t.Fatal(err)
	}
	st := &State{}
	ap := &Approver{Perm: m.NewConversation(), State: st}
	if ok, auto, _, _ := run(t, ap, event.CodeAction{ToolName: "x", Code: "1"}, event.Reject); !ok || auto == nil {
		t.Fatal("rules mode: the rule did not allow the call")
	}
	st.SetMode(Ask)
	if ok, _, req, _ := run(t, ap, event.CodeAction{ToolName: "x", Code: "1"}, event.Reject); ok || req == nil {
		t.Fatal("ask mode: a rule allowed the call")
	}
}
