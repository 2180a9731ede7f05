package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/hooks"
	"github.com/freeact/desktop/agent/mcp/mcptest"
)

// A PreToolUse hook's updatedInput is applied beyond code actions: an MCP
// JSON call runs with the hook's arguments, a file write writes the hook's
// content, and both approvals show what runs; the model's result says the
// input was changed and with what; the user sees a "changed" HookNote. A
// hook that would move a write to another file changes nothing: the call
// goes to the user as it was, with the reason, and a deny is a "blocked"
// HookNote with the hook's words.
func TestHookUpdatedInputChangesMCPAndFileCalls(t *testing.T) {
	set := hooks.Set{}
	set.Add(hooks.PreToolUse, "mcp__test__echo", "mcp-rewrite", func(_ context.Context, in hooks.Input) (hooks.Output, error) {
		return hooks.Output{Specific: &hooks.SpecificOutput{PermissionDecision: hooks.Ask, PermissionDecisionReason: "quieter",
			UpdatedInput: json.RawMessage(`{"text":"rewritten by hook"}`)}}, nil
	})
	set.Add(hooks.PreToolUse, "Write", "write-rewrite", func(_ context.Context, in hooks.Input) (hooks.Output, error) {
		var args struct {
			FilePath string `json:"file_path"`
		}
		_ = json.Unmarshal(in.ToolInput, &args)
		switch filepath.Base(args.FilePath) {
		case "moved.txt":
			return hooks.Output{Specific: &hooks.SpecificOutput{UpdatedInput: json.RawMessage(`{"file_path":"/etc/elsewhere","content":"x"}`)}}, nil
		case "deny.txt":
			return hooks.Output{Specific: &hooks.SpecificOutput{PermissionDecision: hooks.Deny, PermissionDecisionReason: "<note>not here</note>"}}, nil
		}
		return hooks.Output{Specific: &hooks.SpecificOutput{UpdatedInput: json.RawMessage(`{"content":"HOOK CONTENT"}`)}}, nil
	})
	ws := mcpWorkspace(t, map[string]any{"mcp_servers": map[string]any{"test": mcptest.Stdio(t)}})
	a, fake := fakeKernels(nil).startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: test_echo, args: {text: "original"}}}]
  - reply: [{call: {id: c2, name: filesystem_write_text_file, args: {path: "out.txt", content: "model content"}}}]
  - reply: [{call: {id: c3, name: filesystem_write_text_file, args: {path: "moved.txt", content: "model content"}}}]
  - reply: [{call: {id: c4, name: filesystem_write_text_file, args: {path: "deny.txt", content: "x"}}}]
  - reply: [{text: "Done."}]
`, agent.WithHooks(&hooks.Runner{Dir: ws, Sets: []hooks.Set{set}}))
	var asked []*agent.ApprovalRequest
	events := run(t, a, "Go.", func(r *agent.ApprovalRequest) agent.Decision {
		asked = append(asked, r)
		return agent.Once
	})
	outputs := outputsByCall(events)
	if !strings.Contains(outputs["c1"], "rewritten by hook") || strings.Contains(outputs["c1"], "echo: original") {
		t.Errorf("the MCP call did not run with the hook's arguments: %q", outputs["c1"])
	}
	if !strings.Contains(outputs["c1"], `A hook changed this call's input; it ran with: {"text":"rewritten by hook"}`) {
		t.Errorf("the model was not told what ran: %q", outputs["c1"])
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "out.txt")); string(data) != "HOOK CONTENT" {
		t.Errorf("out.txt holds %q, want the hook's content", data)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "moved.txt")); string(data) != "model content" {
		t.Errorf("moved.txt holds %q: a hook that wanted another file must change nothing", data)
	}
	if len(asked) < 3 {
		t.Fatalf("asked %d times, want 3:%s", len(asked), describe(events))
	}
	if g := asked[0].ToolCall.(agent.GenericCall); string(g.Args) != `{"text":"rewritten by hook"}` || !strings.Contains(asked[0].Reason, "quieter") {
		t.Errorf("the MCP approval showed %s (%q), not what runs", g.Args, asked[0].Reason)
	}
	if w := asked[1].ToolCall.(agent.FileWrite); w.Content != "HOOK CONTENT" {
		t.Errorf("the write's approval showed %q, not what runs", w.Content)
	}
	if w := asked[2].ToolCall.(agent.FileWrite); w.Content != "model content" || !strings.Contains(asked[2].Reason, "cannot move Write to another file") {
		t.Errorf("the moved write was asked as %+v, %q", w, asked[2].Reason)
	}
	var kinds []string
	for _, n := range of[*agent.HookNote](events) {
		kinds = append(kinds, n.Kind+" "+n.Tool+" "+n.Text+" "+n.Input)
	}
	want := []string{
		`changed mcp__test__echo quieter {"text":"rewritten by hook"}`,
		`changed Write  {"content":"HOOK CONTENT"}`,
		`blocked Write <note>not here</note> `,
	}
	if strings.Join(kinds, "\n") != strings.Join(want, "\n") {
		t.Errorf("hook notes:\n%s\nwant:\n%s", strings.Join(kinds, "\n"), strings.Join(want, "\n"))
	}
	if n := len(fake.Requests()); n != 5 {
		t.Errorf("%d model requests", n)
	}
}

// PreCompact hooks run before a compaction, with trigger "manual" for
// Compact now; what they say is shown.
func TestPreCompactHooksRunBeforeACompaction(t *testing.T) {
	heard := make(chan hooks.Input, 2)
	set := hooks.Set{}
	set.Add(hooks.PreCompact, "manual", "pre-compact", func(_ context.Context, in hooks.Input) (hooks.Output, error) {
		heard <- in
		return hooks.Output{SystemMessage: "saved a copy first"}, nil
	})
	a, _, _ := fakeKernels(nil).start(t, `
turns:
  - reply: [{text: "One."}]
  - reply: [{text: "Two."}]
  - reply: [{text: "SUMMARY"}]
`, agent.WithHooks(&hooks.Runner{Sets: []hooks.Set{set}}))
	run(t, a, "First.", nil)
	run(t, a, "Second.", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var events []agent.Event
	for ev := range a.Compact(ctx) {
		events = append(events, ev)
	}
	select {
	case in := <-heard:
		if in.Trigger != "manual" || in.HookEventName != hooks.PreCompact {
			t.Errorf("PreCompact got %+v", in)
		}
	default:
		t.Fatalf("no PreCompact hook ran:%s", describe(events))
	}
	said, compacting := -1, -1
	for i, ev := range events {
		switch e := ev.(type) {
		case *agent.Notice:
			if strings.Contains(e.Text, "saved a copy first") {
				said = i
			}
		case *agent.Compacting:
			compacting = i
		}
	}
	if said < 0 || compacting < 0 || said > compacting {
		t.Errorf("the hook's message (at %d) did not come before the compaction (at %d):%s", said, compacting, describe(events))
	}
}

// An MCP tool that code calls runs with a PreToolUse hook's updatedInput
// too: the cell reads the result of the arguments the approval showed, and
// the PostToolUse hooks see those arguments.
func TestHookUpdatedInputChangesAnMCPCallFromCode(t *testing.T) {
	seen := make(chan string, 2)
	set := hooks.Set{}
	set.Add(hooks.PreToolUse, "mcp__code__echo", "rewrite", func(_ context.Context, in hooks.Input) (hooks.Output, error) {
		return hooks.Output{Specific: &hooks.SpecificOutput{UpdatedInput: json.RawMessage(`{"text":"from the hook"}`)}}, nil
	})
	set.Add(hooks.PostToolUse, "mcp__code__echo", "after", func(_ context.Context, in hooks.Input) (hooks.Output, error) {
		seen <- string(in.ToolInput)
		return hooks.Output{}, nil
	})
	ws := mcpWorkspace(t, map[string]any{"ptc_servers": map[string]any{"code": mcptest.Stdio(t)}})
	a, _ := realKernels.startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "from freeact_runtime import call_tool\nprint(call_tool('code', 'echo', {'text': 'from the model'}))"}}}]
  - reply: [{text: "Done."}]
`, agent.WithHooks(&hooks.Runner{Dir: ws, Sets: []hooks.Set{set}}))
	var asked []*agent.ApprovalRequest
	events := run(t, a, "Go.", func(r *agent.ApprovalRequest) agent.Decision {
		asked = append(asked, r)
		return agent.Once
	})
	out := outputsByCall(events)["c1"]
	if !strings.Contains(out, "from the hook") || strings.Contains(out, "from the model") {
		t.Errorf("the call from code did not run with the hook's arguments: %q", out)
	}
	var shown string
	for _, r := range asked {
		if g, ok := r.ToolCall.(agent.GenericCall); ok {
			shown = string(g.Args)
		}
	}
	if shown != `{"text":"from the hook"}` {
		t.Errorf("the approval showed %s, not what runs", shown)
	}
	select {
	case in := <-seen:
		if in != `{"text":"from the hook"}` {
			t.Errorf("PostToolUse saw %s", in)
		}
	case <-time.After(10 * time.Second):
		t.Error("no PostToolUse for the call from code")
	}
}

// What a PreToolUse hook adds for the model (additionalContext) reaches it
// after the call's result, as the hooks' plain text, and the user sees a
// "context" HookNote.
func TestPreToolUseContextReachesTheModelAfterTheResult(t *testing.T) {
	set := hooks.Set{}
	set.Add(hooks.PreToolUse, "mcp__test__echo", "ctx", func(_ context.Context, in hooks.Input) (hooks.Output, error) {
		return hooks.Output{Specific: &hooks.SpecificOutput{AdditionalContext: "CTX-PRE: the echo server is a test double"}}, nil
	})
	ws := mcpWorkspace(t, map[string]any{"mcp_servers": map[string]any{"test": mcptest.Stdio(t)}})
	a, fake := fakeKernels(nil).startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: test_echo, args: {text: "hi"}}}]
  - reply: [{text: "Done."}]
`, agent.WithHooks(&hooks.Runner{Dir: ws, Sets: []hooks.Set{set}}))
	events := run(t, a, "Go.", func(*agent.ApprovalRequest) agent.Decision { return agent.Once })
	last := fake.Requests()[1].Messages
	sent, _ := json.Marshal(last[len(last)-1])
	if !strings.Contains(string(sent), `echo: hi\n\nHook output:\nCTX-PRE: the echo server is a test double`) {
		t.Errorf("the model was not told after the result: %s", sent)
	}
	notes := of[*agent.HookNote](events)
	if len(notes) != 1 || notes[0].Kind != agent.HookContext || notes[0].Event != "PreToolUse" || notes[0].Tool != "mcp__test__echo" {
		t.Errorf("hook notes %+v", notes)
	}
}

// After a compaction, SessionStart hooks run with source "compact", as
// Claude Code runs them, and what they say for the model goes with the
// next prompt (the context the summary dropped, put back). Hooks matched
// on "startup" do not run again.
func TestSessionStartCompactHooksRunAfterACompaction(t *testing.T) {
	sources := make(chan string, 4)
	set := hooks.Set{}
	for _, m := range []string{"compact", "startup"} {
		set.Add(hooks.SessionStart, m, "session-"+m, func(_ context.Context, in hooks.Input) (hooks.Output, error) {
			sources <- in.Source
			if in.Source == "compact" {
				return hooks.Output{Specific: &hooks.SpecificOutput{AdditionalContext: "REMEMBER THE PLAN"}}, nil
			}
			return hooks.Output{}, nil
		})
	}
	a, fake, _ := fakeKernels(nil).start(t, `
turns:
  - reply: [{text: "One."}]
  - reply: [{text: "Two."}]
  - reply: [{text: "SUMMARY"}]
  - reply: [{text: "Three."}]
`, agent.WithHooks(&hooks.Runner{Sets: []hooks.Set{set}}))
	run(t, a, "First.", nil)
	run(t, a, "Second.", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for range a.Compact(ctx) {
	}
	run(t, a, "Third.", nil)
	close(sources)
	var got []string
	for s := range sources {
		got = append(got, s)
	}
	if strings.Join(got, ",") != "startup,compact" {
		t.Errorf("SessionStart ran with sources %v, want startup then compact", got)
	}
	reqs := fake.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4", len(reqs))
	}
	if last := string(reqs[3].Body); !strings.Contains(last, "REMEMBER THE PLAN") {
		t.Errorf("the prompt after the compaction lacks the compact hook's context:\n%s", last)
	}
	if strings.Contains(string(reqs[1].Body), "REMEMBER THE PLAN") {
		t.Errorf("the compact hook's context went out before any compaction")
	}
}
