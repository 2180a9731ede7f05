package agent_test

import (
	"context"
	"errors"
	"github.com/freeact/desktop/agent/longsession"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/agenttest"
	"github.com/freeact/desktop/agent/checkpoint"
	"github.com/freeact/desktop/agent/session"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return "<missing>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func statusList(cs []checkpoint.Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Status+" "+c.Path)
	}
	slices.Sort(out)
	return out
}

// The test: one turn writes a file with a file tool, deletes one
// with !rm and changes one from Python. Review shows all three, revert
// restores all three, the model hears of it, and the revert can be undone.
func TestCheckpointsCoverFileToolsShellAndPython(t *testing.T) {
	const code = "!rm gone.txt\nwith open('data.csv', 'a') as f:\n    f.write('3,4\\n')"
	tiers(t, cells{code: func(c *agenttest.Cell) {
		if c.Shell("rm gone.txt") {
			if err := os.Remove(filepath.Join(c.Workspace(), "gone.txt")); err != nil {
				c.Raise("OSError", err.Error())
			}
		}
		f, err := os.OpenFile(filepath.Join(c.Workspace(), "data.csv"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			c.Raise("OSError", err.Error())
		}
		f.WriteString("3,4\n")
		f.Close()
	}}, func(t *testing.T, x tier) {
		ws := workspace(t, "")
		original := map[string]string{"notes.txt": "old notes\n", "gone.txt": "to delete\n", "data.csv": "a,b\n1,2\n"}
		writeFiles(t, ws, original)
		a, fake := x.startIn(t, ws, `
turns:
  - reply: [{call: {id: w1, name: filesystem_write_text_file, args: {path: notes.txt, content: "new notes\n"}}}]
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "`+strings.ReplaceAll(strings.ReplaceAll(code, `\`, `\\`), "\n", `\n`)+`"}}}]
  - reply: [{text: "Done."}]
  - expect:
      last:
        - {role: user, text: "<workspace-revert>"}
        - {role: user, text: "notes.txt (modified)"}
        - {role: user, text: "What changed?"}
    reply: [{text: "You reverted my changes."}]
`)
		events := run(t, a, "Change the files.", nil)
		changed := of[*agent.FilesChanged](events)
		if len(changed) != 2 || changed[0].CorrelationID != "w1" || changed[1].CorrelationID != "c1" || changed[0].TurnID == "" || changed[0].TurnID != changed[1].TurnID {
			t.Fatalf("FilesChanged events %+v", changed)
		}
		if got := statusList(changed[0].Files); !slices.Equal(got, []string{"modified notes.txt"}) {
			t.Errorf("the write changed %q", got)
		}
		if got := statusList(changed[1].Files); !slices.Equal(got, []string{"deleted gone.txt", "modified data.csv"}) {
			t.Errorf("the code action changed %q", got)
		}
		turnID := changed[0].TurnID

		// Review: the turn's diff shows all three.
		store := a.Checkpoints()
		records, err := store.Find(turnID)
		if err != nil {
			t.Fatal(err)
		}
		diffs, err := store.Diff(context.Background(), records)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range diffs {
			got = append(got, d.Status+" "+d.Path)
		}
		if !slices.Equal(got, []string{"modified data.csv", "deleted gone.txt", "modified notes.txt"}) {
			t.Fatalf("turn diff %q", got)
		}
		if !strings.Contains(diffs[0].Diff, "+3,4\n") || !strings.Contains(diffs[2].Diff, "-old notes\n+new notes\n") {
			t.Errorf("diffs:\n%s\n%s", diffs[0].Diff, diffs[2].Diff)
		}
		if a.LastTurnCheckpoint() != turnID {
			t.Errorf("last turn %q, want %q", a.LastTurnCheckpoint(), turnID)
		}

		// Revert: all three come back.
		rev, _, err := a.Revert(context.Background(), turnID, false)
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range original {
			if got := readFile(t, ws, name); got != want {
				t.Errorf("after revert %s = %q, want %q", name, got, want)
			}
		}
		if len(rev.Files) != 3 || !slices.Equal(rev.Reverts, []string{records[0].ID, records[1].ID}) {
			t.Errorf("Reverted %+v", rev)
		}
		if a.LastTurnCheckpoint() != "" {
			t.Errorf("a reverted turn is still the last: %q", a.LastTurnCheckpoint())
		}

		// The next prompt tells the model (the scenario checks it).
		run(t, a, "What changed?", nil)
		if n := len(fake.Requests()); n != 4 {
			t.Fatalf("%d model requests", n)
		}

		// Undoing the revert brings the turn's changes back.
		if _, _, err := a.Revert(context.Background(), rev.Checkpoint, false); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, ws, "notes.txt"); got != "new notes\n" {
			t.Errorf("after undoing the revert notes.txt = %q", got)
		}
		if got := readFile(t, ws, "gone.txt"); got != "<missing>" {
			t.Errorf("after undoing the revert gone.txt = %q", got)
		}
	})
}

func TestCheckpointsOff(t *testing.T) {
	ws := workspace(t, `{"checkpoints": false}`)
	a, _ := fakeKernels(nil).startIn(t, ws, `
turns:
  - reply: [{call: {id: w1, name: filesystem_write_text_file, args: {path: a.txt, content: "x"}}}]
  - reply: [{text: "Done."}]
`)
	events := run(t, a, "Write.", nil)
	if n := len(of[*agent.FilesChanged](events)); n != 0 {
		t.Errorf("%d FilesChanged with checkpoints off", n)
	}
	if _, _, err := a.Revert(context.Background(), "x", false); err == nil || !strings.Contains(err.Error(), `"checkpoints": true`) {
		t.Errorf("revert with checkpoints off: %v", err)
	}
}

func approxEqual(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// Every call's cost is reported (the subagent's too) and adds up to the
// session's, which a resumed session starts from.
func TestSessionCost(t *testing.T) {
	ws := workspace(t, "")
	a, _ := fakeKernels(nil).startIn(t, ws, `
turns:
  - reply: [{call: {id: s1, name: subagent_task, args: {prompt: "Sub task."}}}]
    usage: {input: 1000, output: 100}
  - expect: {last: [{role: user, text: "Sub task."}]}
    reply: [{text: "Sub done."}]
    usage: {input: 2000, output: 200}
  - reply: [{text: "All done."}]
    usage: {input: 3000, output: 200, thinking: 100, cached: 1000}
`)
	events := run(t, a, "Go.", nil)
	// gemini-3-flash-preview: $0.50 input, $3 output and thinking, $0.05
	// cached, a million tokens.
	want := []float64{(1000*0.5 + 100*3) / 1e6, (2000*0.5 + 200*3) / 1e6, (2000*0.5 + 1000*0.05 + 300*3) / 1e6}
	usages := of[*agent.Usage](events)
	if len(usages) != 3 {
		t.Fatalf("%d Usage events", len(usages))
	}
	total := 0.0
	for i, u := range usages {
		if u.Cost == nil || !approxEqual(*u.Cost, want[i]) {
			t.Errorf("call %d cost %v, want %v", i+1, u.Cost, want[i])
		}
		total += want[i]
	}
	if !strings.HasPrefix(usages[1].AgentID, "sub-") {
		t.Errorf("the second call is %s's", usages[1].AgentID)
	}
	su := of[*agent.SessionUsage](events)
	last := su[len(su)-1]
	if !approxEqual(last.Cost, total) || last.ContextWindow != 1_048_576 || last.CompactAt != 838_860 || last.ContextTokens != 3200 || last.Budget != nil {
		t.Errorf("session usage %+v, want cost %v", last, total)
	}
	id := a.SessionID()
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	b, _ := fakeKernels(nil).startIn(t, ws, "turns: []", agent.WithSessionID(id))
	if got := b.SessionUsage().Cost; !approxEqual(got, total) {
		t.Errorf("the resumed session cost %v, want %v", got, total)
	}
}

// A budget stops the turn before the call that would go over it; going on
// raises it by max_cost_per_session.
func TestBudgetStop(t *testing.T) {
	ws := workspace(t, `{"max_cost_per_session": 0.01}`)
	a, fake := fakeKernels(cells{"print(1)": prints("1")}).startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(1)"}}}]
    usage: {input: 10000, output: 1000}
  - expect: {last: [{role: user, text: "Go on."}]}
    reply: [{text: "Finished."}]
    usage: {input: 11000, output: 10}
`)
	var asked []*agent.BudgetRequest
	stream := func(prompt string, ok bool) []agent.Event {
		var events []agent.Event
		for ev := range a.Stream(context.Background(), agent.Text(prompt)) {
			events = append(events, ev)
			switch e := ev.(type) {
			case *agent.ApprovalRequest:
				e.Approve(true)
			case *agent.BudgetRequest:
				asked = append(asked, e)
				e.Continue(ok)
			}
		}
		return events
	}
	events := stream("Start.", false)
	// $0.008 spent; the next call (about 11,000 tokens in) would pass $0.01.
	if len(asked) != 1 || !approxEqual(asked[0].Spent, 0.008) || asked[0].Budget != 0.01 || asked[0].Estimate <= 0.002 {
		t.Fatalf("budget requests %+v", asked)
	}
	resp := of[*agent.Response](events)
	if stop := resp[len(resp)-1].Text; !strings.Contains(stop, "$0.008 of its $0.01 budget") {
		t.Errorf("turn ended with %q", stop)
	}
	if n := len(fake.Requests()); n != 1 {
		t.Fatalf("%d model calls, want 1 (stopped before the second)", n)
	}
	events = stream("Go on.", true)
	if len(asked) != 2 || len(fake.Requests()) != 2 {
		t.Fatalf("%d budget requests, %d calls", len(asked), len(fake.Requests()))
	}
	su := of[*agent.SessionUsage](events)
	if b := su[len(su)-1].Budget; b == nil || *b != 0.02 {
		t.Errorf("budget after going on: %v", b)
	}
}

// Compaction against the fake model with a small window: the request after
// it is smaller and carries the summary, the session records it, and a
// resumed session sends the same.
func TestCompactionWithASmallWindow(t *testing.T) {
	long := strings.Repeat("x", 6000)
	ws := workspace(t, `{"models": {"gemini-3-flash-preview": {"context_window": 10000}}, "compaction_threshold": 0.8}`)
	a, fake := fakeKernels(cells{"print('x' * 6000)": prints(long)}).startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print('x' * 6000)"}}}]
    usage: {input: 3000, output: 100}
  - reply: [{text: "First done."}]
    usage: {input: 7900, output: 100}
  - expect:
      system_contains: "You summarise a working session"
      messages: 1
      last: [{role: user, text: "First task"}, {role: user, text: "Result of ipybox_execute_ipython_cell"}]
    reply: [{text: "SUMMARY-1: the first task printed 6000 x."}]
    usage: {input: 500, output: 50}
  - expect:
      messages: 3
      has: [{role: user, text: "SUMMARY-1"}]
      last: [{role: user, text: "Second task."}]
    reply: [{text: "Second done."}]
    usage: {input: 600, output: 20}
`)
	run(t, a, "First task: print many x.", nil)
	events := run(t, a, "Second task.", nil)
	started, done := of[*agent.Compacting](events), of[*agent.Compacted](events)
	if len(started) != 1 || started[0].Reason != longsession.CompactThreshold || started[0].Messages != 4 {
		t.Fatalf("Compacting %+v", started)
	}
	if len(done) != 1 || done[0].Summary != "SUMMARY-1: the first task printed 6000 x." || done[0].TokensBefore <= 8000 || done[0].TokensAfter >= done[0].TokensBefore {
		t.Fatalf("Compacted %+v", done)
	}
	reqs := fake.Requests()
	if len(reqs[3].Body) >= len(reqs[1].Body) {
		t.Errorf("the request after compaction has %d bytes, the earlier second request %d", len(reqs[3].Body), len(reqs[1].Body))
	}
	// The full history stays; the session records the compaction.
	if n := len(a.History()); n != 6 {
		t.Errorf("history has %d messages, want 6", n)
	}
	if hc := a.Compactions(); len(hc) != 1 || hc[0].Index != 4 {
		t.Errorf("compactions %+v", hc)
	}
	id := a.SessionID()
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	st, _ := session.Open[any](filepath.Join(ws, ".freeact", "sessions"), id)
	if cs, err := st.Compactions("main"); err != nil || len(cs) != 1 || cs[0].Upto != 4 || cs[0].Reason != "threshold" {
		t.Fatalf("recorded compactions %+v, %v", cs, err)
	}

	b, fake2 := fakeKernels(nil).startIn(t, ws, `
turns:
  - expect:
      messages: 5
      last: [{role: user, text: "Third task."}]
    reply: [{text: "Third done."}]
`, agent.WithSessionID(id))
	run(t, b, "Third task.", nil)
	resumed := fake2.Requests()[0].Messages
	if !reflect.DeepEqual(resumed[:3], reqs[3].Messages) {
		t.Errorf("the resumed session does not send the same view:\n%+v\nwant\n%+v", resumed[:3], reqs[3].Messages)
	}
	for _, m := range resumed {
		if strings.Contains(m.Text(), "First task") {
			t.Error("the resumed request carries the compacted prompt")
		}
	}
}

// A request the provider refuses as too large is compacted and sent once
// more; a second refusal fails the turn.
func TestOverflowCompactsAndRetriesOnce(t *testing.T) {
	a, fake, _ := fakeKernels(nil).start(t, `
turns:
  - reply: [{text: "A done."}]
  - error: {status: 400, message: "The input token count (2000000) exceeds the maximum number of tokens allowed (1048576)."}
  - expect: {system_contains: "You summarise", last: [{role: user, text: "Task A."}]}
    reply: [{text: "SUMMARY-A"}]
  - expect: {messages: 3, has: [{role: user, text: "SUMMARY-A"}], last: [{role: user, text: "Task B."}]}
    reply: [{text: "B done."}]
  - error: {status: 400, message: "The input token count (2000000) exceeds the maximum number of tokens allowed (1048576)."}
  - expect: {system_contains: "You summarise", last: [{role: user, text: "SUMMARY-A"}]}
    reply: [{text: "SUMMARY-AB"}]
  - error: {status: 400, message: "The input token count (1500000) exceeds the maximum number of tokens allowed (1048576)."}
`)
	run(t, a, "Task A.", nil)
	events := run(t, a, "Task B.", nil)
	if c := of[*agent.Compacting](events); len(c) != 1 || c[0].Reason != longsession.CompactOverflow {
		t.Fatalf("Compacting %+v", c)
	}
	if f := of[*agent.Failed](events); len(f) != 0 {
		t.Fatalf("failed: %s", f[0].Error)
	}
	if r := of[*agent.Response](events); r[len(r)-1].Text != "B done." {
		t.Errorf("answer %q", r[len(r)-1].Text)
	}
	events = run(t, a, "Task C.", nil)
	f := of[*agent.Failed](events)
	if len(f) != 1 || !strings.Contains(f[0].Error, "exceeds the maximum number of tokens") {
		t.Fatalf("a second refusal: %s", describe(events))
	}
	if n := len(fake.Requests()); n != 7 {
		t.Errorf("%d requests, want 7", n)
	}
}

func TestCompactNow(t *testing.T) {
	a, fake, _ := fakeKernels(nil).start(t, `
turns:
  - reply: [{text: "One."}]
  - reply: [{text: "Two."}]
  - expect: {system_contains: "You summarise", last: [{role: user, text: "First."}]}
    reply: [{text: "SUMMARY-NOW"}]
    usage: {input: 100, output: 10}
  - expect: {messages: 5, has: [{role: user, text: "SUMMARY-NOW"}, {role: model, text: "Two."}], last: [{role: user, text: "Third."}]}
    reply: [{text: "Three."}]
`)
	collect := func() []agent.Event {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var events []agent.Event
		for ev := range a.Compact(ctx) {
			events = append(events, ev)
		}
		return events
	}
	if f := of[*agent.Failed](collect()); len(f) != 1 || !strings.Contains(f[0].Error, "nothing to compact") {
		t.Fatalf("compacting an empty conversation: %+v", f)
	} else if f[0].Action != agent.ActionCompact || f[0].Summary == "" {
		// The app retries a compaction (not the last prompt) and says why.
		t.Errorf("a failed compaction is %+v, want action %q and a summary", f[0], agent.ActionCompact)
	}
	run(t, a, "First.", nil)
	run(t, a, "Second.", nil)
	events := collect()
	done := of[*agent.Compacted](events)
	if len(done) != 1 || done[0].Reason != longsession.CompactManual || done[0].Messages != 2 || done[0].Summary != "SUMMARY-NOW" {
		t.Fatalf("Compacted %s", describe(events))
	}
	if u := of[*agent.Usage](events); len(u) != 1 || u[0].Cost == nil {
		t.Errorf("the summary's usage %+v", u)
	}
	run(t, a, "Third.", nil)
	if n := len(fake.Requests()); n != 4 {
		t.Errorf("%d requests", n)
	}
}

// A fork holds the conversation before the chosen prompt; the source stays
// as it was.
func TestForkSession(t *testing.T) {
	ws := workspace(t, "")
	a, _ := fakeKernels(nil).startIn(t, ws, `
turns:
  - reply: [{text: "One."}]
  - reply: [{text: "Two."}]
`)
	run(t, a, "First.", nil)
	run(t, a, "Second.", nil)
	src := a.SessionID()
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	cfg := load(t, ws)
	id, prompt, err := longsession.ForkSession(cfg, src, 2)
	if err != nil {
		t.Fatal(err)
	}
	if id == src || prompt.Text != "Second." {
		t.Fatalf("fork %q with prompt %q", id, prompt.Text)
	}
	b, _ := fakeKernels(nil).startIn(t, ws, `
turns:
  - expect: {messages: 3, last: [{role: user, text: "Second, changed."}]}
    reply: [{text: "Other two."}]
`, agent.WithSessionID(id))
	run(t, b, "Second, changed.", nil)
	if err := b.Stop(); err != nil {
		t.Fatal(err)
	}
	c, _ := fakeKernels(nil).startIn(t, ws, "turns: []", agent.WithSessionID(src))
	if h := c.History(); len(h) != 4 || h[3].Text() != "Two." {
		t.Errorf("the source session changed: %d messages", len(h))
	}
	if _, _, err := longsession.ForkSession(cfg, src, 3); err == nil || !strings.Contains(err.Error(), "has 2 prompts") {
		t.Errorf("forking at a prompt that is not there: %v", err)
	}
}

// TestFailedTurnKeepsCostAndCompactions: a turn that compacts older turns
// and makes a model call of its own, then fails, is taken back out of the
// session; resumed, the session has the agent's history, compactions and
// cost (the failed turn's call was paid for).
func TestFailedTurnKeepsCostAndCompactions(t *testing.T) {
	ws := workspace(t, "")
	a, _ := fakeKernels(cells{"print(1)": prints("1")}).startIn(t, ws, `
turns:
  - reply: [{text: "A done."}]
    usage: {input: 1000, output: 100}
  - error: {status: 400, message: "The input token count (2000000) exceeds the maximum number of tokens allowed (1048576)."}
  - expect: {system_contains: "You summarise", last: [{role: user, text: "Task A."}]}
    reply: [{text: "SUMMARY-A"}]
    usage: {input: 500, output: 50}
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(1)"}}}]
    usage: {input: 2000, output: 100}
  - error: {status: 400, message: "bad request"}
`)
	run(t, a, "Task A.", nil)
	events := run(t, a, "Task B.", nil)
	if f := of[*agent.Failed](events); len(f) != 1 || len(of[*agent.Compacted](events)) != 1 || len(of[*agent.CodeExecutionOutput](events)) != 1 {
		t.Fatalf("events:%s", describe(events))
	}
	history, compactions, cost := a.History(), a.Compactions(), a.SessionUsage().Cost
	// (1000 + 500 + 2000) input and (100 + 50 + 100) output tokens.
	if want := (3500*0.5 + 250*3) / 1e6; !approxEqual(cost, want) {
		t.Errorf("cost %v, want %v", cost, want)
	}
	id := a.SessionID()
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	b, _ := fakeKernels(nil).startIn(t, ws, "turns: []", agent.WithSessionID(id))
	if got := b.History(); !sameMessages(got, history) {
		t.Errorf("resumed history: %d messages, want %d", len(got), len(history))
	}
	if got := b.Compactions(); !reflect.DeepEqual(got, compactions) {
		t.Errorf("resumed compactions %+v, want %+v", got, compactions)
	}
	if got := b.SessionUsage().Cost; !approxEqual(got, cost) {
		t.Errorf("resumed cost %v, want %v", got, cost)
	}
}
