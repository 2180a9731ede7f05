package agent_test

import (
	"context"
	"github.com/freeact/desktop/agent/history"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/model"
)

// A "Compact now" whose summary comes back cut is not kept, but its call
// was paid: the session's cost counts it, and so does the session resumed
// from its files (it dropped by the summary's cost, issue 28 item 12).
func TestFailedCompactionCostSurvivesResume(t *testing.T) {
	ws := workspace(t, "")
	a, _ := fakeKernels(nil).startIn(t, ws, `
turns:
  - reply: [{text: "One."}]
    usage: {input: 1000, output: 100}
  - reply: [{text: "Two."}]
    usage: {input: 1200, output: 100}
  - expect: {system_contains: "You summarise"}
    reply: [{text: "## Request\nThe user asked for"}]
    finish: max_tokens
    usage: {input: 3000, output: 500}
`)
	run(t, a, "First.", nil)
	run(t, a, "Second.", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var events []agent.Event
	for ev := range a.Compact(ctx) {
		events = append(events, ev)
	}
	if len(of[*agent.Failed](events)) != 1 {
		t.Fatalf("the cut summary did not fail the compaction:%s", describe(events))
	}
	// gemini-3-flash-preview: $0.50 input, $3 output, a million tokens.
	want := ((1000+1200+3000)*0.5 + (100+100+500)*3) / 1e6
	if got := a.SessionUsage().Cost; !approxEqual(got, want) {
		t.Fatalf("the session cost %v, want %v", got, want)
	}
	id := a.SessionID()
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	b, _ := fakeKernels(nil).startIn(t, ws, "turns: []", agent.WithSessionID(id))
	if got := b.SessionUsage().Cost; !approxEqual(got, want) {
		t.Errorf("the resumed session cost %v, want %v (the failed compaction's call is lost)", got, want)
	}
	// It shows where it happened, after the second turn, as it did live.
	fc := b.FailedCompactions()
	if len(fc) != 1 || fc[0].Index != len(b.History()) || fc[0].Failed.Action != agent.ActionCompact ||
		!strings.Contains(fc[0].Failed.Summary, "cut off at 500 output tokens") || len(fc[0].Usage) != 1 || fc[0].Usage[0].InputTokens != 3000 {
		t.Errorf("the resumed failed compactions: %+v", fc)
	}
}

// A resumed session's history holds what each call's card showed live:
// how long it ran (a rejected call did not run), the reply cut at the
// token limit, and the note of a turn that failed after its action ran.
func TestResumedHistoryKeepsTimesAndOutcomes(t *testing.T) {
	ws := workspace(t, "")
	a, _ := fakeKernels(cells{"print(1)": prints("1"), "print(2)": prints("2")}).startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(1)"}}}]
  - reply: [{text: "One."}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "print(2)"}}}]
  - reply: [{text: "The start of"}]
    finish: max_tokens
    usage: {input: 10, output: 5}
  - reply: [{call: {id: c3, name: ipybox_execute_ipython_cell, args: {code: "print(1)"}}}]
  - error: {status: 400, message: "bad request"}
`)
	elapsed := map[string]int64{}
	for _, ev := range run(t, a, "Run it.", nil) {
		if o, ok := ev.(*agent.ToolOutput); ok {
			elapsed[o.CorrelationID] = o.ElapsedMS
		}
	}
	for _, ev := range run(t, a, "Run another.", func(*agent.ApprovalRequest) agent.Decision { return agent.Reject }) {
		if o, ok := ev.(*agent.ToolOutput); ok {
			elapsed[o.CorrelationID] = o.ElapsedMS
		}
	}
	run(t, a, "Write.", nil)
	events := run(t, a, "Fail.", nil)
	if f := of[*agent.Failed](events); len(f) != 1 || !f[0].Kept {
		t.Fatalf("the turn did not fail after its action:%s", describe(events))
	}
	if elapsed["c1"] <= 0 || elapsed["c2"] != 0 {
		t.Fatalf("live times: %v, want c1 > 0 and none for the rejected c2", elapsed)
	}
	id := a.SessionID()
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	b, _ := fakeKernels(nil).startIn(t, ws, "turns: []", agent.WithSessionID(id))
	var cut, failed int
	got := map[string]int64{}
	for _, m := range b.History() {
		for _, r := range m.FunctionResponses() {
			got[r.ID] = r.ElapsedMS
		}
		if m.Cut() {
			cut++
		}
		for _, p := range m.Parts {
			if reason, ok := history.FailedNoteError(p.Text); ok {
				failed++
				if !strings.Contains(reason, "bad request") {
					t.Errorf("the failed turn's note says %q", reason)
				}
			}
		}
	}
	if got["c1"] != elapsed["c1"] || got["c2"] != 0 || got["c3"] <= 0 {
		t.Errorf("resumed times %v, live %v", got, elapsed)
	}
	if cut != 1 || failed != 1 {
		t.Errorf("the resumed history has %d cut replies and %d failed-turn notes, want 1 and 1", cut, failed)
	}
	cutMsg := []model.Message{{Role: model.RoleModel, Usage: &model.Usage{OutputTokens: 5}, Stop: model.StopMaxTokens}}
	if ev, ok := history.HistoryReplyCut(cutMsg, 0); !ok || !strings.HasPrefix(ev.Text, "The model's reply was cut at 5 output tokens") {
		t.Errorf("the cut notice of a resumed reply: %q", ev.Text)
	}
}

// A "Compact now" that failed and was tried again is, resumed, only what
// its call cost: the retry took its place, as Retry shows it live.
func TestRetriedCompactionShowsOnlyItsCost(t *testing.T) {
	ws := workspace(t, "")
	a, _ := fakeKernels(nil).startIn(t, ws, `
turns:
  - reply: [{text: "One."}]
  - reply: [{text: "Two."}]
  - expect: {system_contains: "You summarise"}
    reply: [{text: "Half"}]
    finish: max_tokens
    usage: {input: 3000, output: 500}
  - expect: {system_contains: "You summarise"}
    reply: [{text: "SUMMARY"}]
    usage: {input: 3000, output: 200}
`)
	run(t, a, "First.", nil)
	run(t, a, "Second.", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for range 2 {
		for range a.Compact(ctx) {
		}
	}
	if fc := a.FailedCompactions(); len(fc) != 1 || !fc[0].Retried || len(a.Compactions()) != 1 {
		t.Fatalf("live: failed %+v, %d compactions", fc, len(a.Compactions()))
	}
	id := a.SessionID()
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	b, _ := fakeKernels(nil).startIn(t, ws, "turns: []", agent.WithSessionID(id))
	if fc := b.FailedCompactions(); len(fc) != 1 || !fc[0].Retried || fc[0].Usage[0].OutputTokens != 500 {
		t.Errorf("resumed: failed %+v", fc)
	}
	if c := b.Compactions(); len(c) != 1 || len(c[0].Usage) != 1 || c[0].Usage[0].OutputTokens != 200 {
		t.Errorf("resumed compactions %+v", c)
	}
}
