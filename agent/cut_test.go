package agent_test

import (
	"context"
	"github.com/freeact/desktop/agent/failure"
	"github.com/freeact/desktop/agent/history"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/model/modeltest"
)

// A reply cut at max_tokens runs its complete calls only; the cut call is
// neither run nor sent back, the model is told why, and the user sees the
// cut with the setting that raises the limit. Every provider's wire.
func TestCutReplyRunsOnlyCompleteCalls(t *testing.T) {
	providers := []struct {
		name, model string
		use         func(testing.TB, modeltest.Scenario) *modeltest.Server
	}{
		{"gemini", "gemini-2.5-flash", modeltest.UseGemini},
		{"openai", "openai:gpt-4o", modeltest.UseOpenAI},
		{"anthropic", "anthropic:claude-sonnet-4-5", modeltest.UseAnthropic},
	}
	scenario := `
turns:
  - reply:
      - call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "seq = ['first']"}}
      - call: {id: c2, name: ipybox_execute_ipython_cell, raw: '{"code": "seq.app'}
    finish: max_tokens
    usage: {input: 50, output: 64}
  - expect:
      has:
        - {response: ipybox_execute_ipython_cell, is_error: false}
      last:
        - {text: "cut off"}
        - {text: "max_tokens 64"}
    reply: [{text: "I will send it again."}]
`
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			ws := workspace(t, `{"model": "`+p.model+`", "model_settings": {"max_tokens": 64}}`)
			sc := scenario
			if p.name != "gemini" { // Gemini sends no half calls
				sc = strings.Replace(sc, `{text: "cut off"}`, `{text: "was NOT run"}`, 1)
			}
			fake := p.use(t, mustScenario(t, sc))
			a := started(t, ws, fakeKernels(cells{"seq = ['first']": prints()}).executors(t))
			events := run(t, a, "Build the list.", nil)
			var asked []string
			for _, r := range of[*agent.ApprovalRequest](events) {
				asked = append(asked, r.ToolCall.(agent.CodeAction).Code)
			}
			if !slices.Equal(asked, []string{"seq = ['first']"}) {
				t.Errorf("asked for %q, want the complete call only", asked)
			}
			cuts := of[*agent.ReplyCut](events)
			if len(cuts) != 1 || cuts[0].OutputTokens != 64 || cuts[0].MaxTokens != 64 || cuts[0].Setting != history.MaxTokensSetting ||
				!strings.Contains(cuts[0].Text, "cut at 64 output tokens") || !strings.Contains(cuts[0].Text, history.MaxTokensSetting) {
				t.Fatalf("ReplyCut events %+v:%s", cuts, describe(events))
			}
			if p.name != "gemini" && !slices.Equal(cuts[0].Dropped, []string{agent.ExecuteTool}) {
				t.Errorf("dropped %v, want the cut call", cuts[0].Dropped)
			}
			// A resumed conversation shows the same notice.
			var rebuilt []*agent.ReplyCut
			for i := range a.History() {
				if ev, ok := history.HistoryReplyCut(a.History(), i); ok {
					rebuilt = append(rebuilt, ev)
				}
			}
			if len(rebuilt) != 1 || !reflect.DeepEqual(rebuilt[0], cuts[0]) {
				t.Errorf("rebuilt from the history: %+v\nlive: %+v", rebuilt, cuts)
			}
			if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "I will send it again." {
				t.Fatalf("the turn did not go on:%s", describe(events))
			}
			// The note is the agent's, not a prompt of the user's.
			notes := 0
			for _, m := range a.History() {
				for _, p := range m.Parts {
					if strings.HasPrefix(p.Text, history.CutNotePrefix) {
						notes++
						if !history.IsAgentNote(p.Text) {
							t.Errorf("the cut note is not an agent note: %q", p.Text)
						}
					}
				}
			}
			if notes != 1 {
				t.Errorf("%d cut notes in the history, want 1", notes)
			}
			// The history sent back holds no call with broken arguments.
			for _, req := range fake.Requests() {
				for _, m := range req.Messages {
					for _, c := range m.FunctionCalls() {
						if strings.Contains(string(c.Args), "seq.app") {
							t.Errorf("the cut call was sent back: %s", c.Args)
						}
					}
				}
			}
		})
	}
}

// A call the reply was cut in before any of its arguments arrived is a
// cut call too, never one made with {}: a tool_use (Anthropic) or
// tool_calls entry (OpenAI) whose input is empty when the reply stops at
// max_tokens does not run, and the model is told.
func TestCallCutBeforeItsArgumentsDoesNotRun(t *testing.T) {
	// raw " " streams no argument text but blanks: the fakes send the
	// call's start and then nothing that counts.
	scenario := `
turns:
  - reply:
      - {text: "Running it."}
      - call: {id: c1, name: ipybox_execute_ipython_cell, raw: " "}
    finish: max_tokens
    usage: {input: 50, output: 16}
  - expect:
      last:
        - {text: "was NOT run"}
    reply: [{text: "I will send it again."}]
`
	for _, p := range []struct {
		name, model string
		use         func(testing.TB, modeltest.Scenario) *modeltest.Server
	}{
		{"openai", "openai:gpt-4o", modeltest.UseOpenAI},
		{"anthropic", "anthropic:claude-sonnet-4-5", modeltest.UseAnthropic},
	} {
		t.Run(p.name, func(t *testing.T) {
			ws := workspace(t, `{"model": "`+p.model+`", "model_settings": {"max_tokens": 16}}`)
			fake := p.use(t, mustScenario(t, scenario))
			a := started(t, ws, fakeKernels(nil).executors(t))
			events := run(t, a, "Print something.", nil)
			if r := of[*agent.ApprovalRequest](events); len(r) > 0 {
				t.Fatalf("the cut call was asked for: %+v", r[0].ToolCall)
			}
			cuts := of[*agent.ReplyCut](events)
			if len(cuts) != 1 || !slices.Equal(cuts[0].Dropped, []string{agent.ExecuteTool}) {
				t.Fatalf("ReplyCut events %+v:%s", cuts, describe(events))
			}
			for _, req := range fake.Requests() {
				for _, m := range req.Messages {
					if c := m.FunctionCalls(); len(c) > 0 {
						t.Errorf("the cut call went back to the model: %s %s", c[0].Name, c[0].Args)
					}
				}
			}
		})
	}
}

// A reply cut in its text ends the turn with what it said, and says so.
func TestCutAnswerIsShownAsCut(t *testing.T) {
	a, _, _ := fakeKernels(nil).start(t, `
turns:
  - reply: [{text: "The answer begins and"}]
    finish: max_tokens
    usage: {input: 10, output: 5}
`)
	events := run(t, a, "Explain.", nil)
	cuts := of[*agent.ReplyCut](events)
	if len(cuts) != 1 || !strings.Contains(cuts[0].Text, "cut at 5 output tokens") || len(cuts[0].Dropped) != 0 {
		t.Fatalf("ReplyCut events %+v:%s", cuts, describe(events))
	}
	// max_tokens is a model setting, in the Model tab.
	if !strings.Contains(cuts[0].Text, "Raise model_settings.max_tokens (Settings → Model)") {
		t.Errorf("the cut notice %q does not send the user to the Model tab", cuts[0].Text)
	}
	if r := of[*agent.Response](events); len(r) != 1 || r[0].Text != "The answer begins and" {
		t.Errorf("responses:%s", describe(events))
	}
	// No note follows a cut answer, so a resumed conversation knows the
	// length but not the limit.
	h := a.History()
	want := *cuts[0]
	want.MaxTokens = 0
	if ev, ok := history.HistoryReplyCut(h, len(h)-1); !ok || !reflect.DeepEqual(*ev, want) {
		t.Errorf("rebuilt %+v, want %+v", ev, want)
	}
	if _, ok := history.HistoryReplyCut(h, 0); ok {
		t.Error("the prompt is not a cut reply")
	}
}

// A compaction summary cut at max_tokens fails visibly and is not kept:
// the next request still carries the whole history.
func TestCutSummaryIsNotKept(t *testing.T) {
	a, _, _ := fakeKernels(nil).start(t, `
turns:
  - reply: [{text: "One."}]
  - reply: [{text: "Two."}]
  - expect: {system_contains: "You summarise"}
    reply: [{text: "## Request\nThe user asked for"}]
    finish: max_tokens
    usage: {input: 100, output: 30}
  - expect: {messages: 5, has: [{role: user, text: "First."}], last: [{role: user, text: "Third."}]}
    reply: [{text: "Three."}]
`)
	run(t, a, "First.", nil)
	run(t, a, "Second.", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var events []agent.Event
	for ev := range a.Compact(ctx) {
		events = append(events, ev)
	}
	f := of[*agent.Failed](events)
	if len(f) != 1 || f[0].Cause != failure.CauseModel || !strings.Contains(f[0].Summary, "cut off at 30 output tokens") ||
		!strings.Contains(f[0].Fix, history.MaxTokensSetting) {
		t.Fatalf("failed %+v:%s", f, describe(events))
	}
	if c := of[*agent.Compacted](events); len(c) != 0 || len(a.Compactions()) != 0 {
		t.Fatalf("a cut summary was kept: %+v", c)
	}
	run(t, a, "Third.", nil)
}
