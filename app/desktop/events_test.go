package desktop

import (
	"bytes"
	"encoding/json"
	"github.com/freeact/desktop/agent/failure"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/longsession"
	"github.com/freeact/desktop/agent/mcpglue"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/checkpoint"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/permission"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/internal/testenv"
)

// eventsGolden is the Go ↔ TypeScript event contract: one JSON object per
// event the window receives (every agent event type, an ApprovalRequest
// per tool call type, the app's own events), every field set, exactly as
// encodeBatch sends them. The frontend's reducer tests
// (frontend/src/lib/conversation/contract.test.ts) load it and reduce every
// entry, so a change on either side fails a test.
const eventsGolden = "testdata/events.json"

// contractEvents are the entries of eventsGolden, in order.
func contractEvents() []queued {
	meta := agent.Meta{AgentID: "sub-c0de", CorrelationID: "call-7"}
	cost, budget := 0.0125, 10.0
	yes, no := true, false
	approval := func(id string, call agent.ToolCall) queued {
		return queued{requestID: id, ev: &agent.ApprovalRequest{Meta: meta, ToolCall: call, Display: "display of " + id, Suggested: "pattern of " + id,
			Reason: "reason of " + id, Protected: true, NoAlways: "no rule for " + id, Judge: "ask"}}
	}
	return []queued{
		{ev: &agent.ThoughtsChunk{Meta: meta, Text: "thinking chunk"}},
		{ev: &agent.Thoughts{Meta: meta, Text: "complete thoughts"}},
		{ev: &agent.ResponseChunk{Meta: meta, Text: "response chunk"}},
		{ev: &agent.Response{Meta: meta, Text: "complete response"}},
		{ev: &agent.CodeExecutionOutputChunk{Meta: meta, Kind: "stderr", Text: "chunk of output\n"}, dropped: 701, droppedLines: 702},
		{ev: &agent.CodeExecutionOutput{Meta: meta, Text: "complete output\nValueError: boom\n", Images: []string{"/ws/images/plot.png"}, Error: true, ErrorText: "ValueError: boom", Rejected: "touch x", ElapsedMS: 705}, dropped: 703, droppedLines: 704},
		{ev: &agent.ToolOutput{Meta: meta, ToolName: "filesystem_read_text_file", Content: "result for the model", IsError: true, ElapsedMS: 420, SavedPath: ".freeact/sessions/s/tool-results/ab.txt"}},
		{ev: &agent.Usage{Meta: meta, Model: "gemini:gemini-test", Usage: model.Usage{InputTokens: 711, OutputTokens: 712, ThinkingTokens: 713, CachedTokens: 714}, Cost: &cost, Judge: true}},
		{ev: &agent.SessionUsage{Meta: meta, Cost: 1.25, Unpriced: 2, Budget: &budget, ContextTokens: 721, ContextWindow: 722, CompactAt: 723, JudgeCost: 0.25, JudgeCalls: 3}},
		{requestID: "r-budget", ev: &agent.BudgetRequest{Meta: meta, Spent: 4.5, Budget: 5, Estimate: 0.75}},
		{requestID: "r-mcp-wait", ev: &mcpglue.MCPWaiting{Meta: meta, Servers: []string{"slow"}, LimitSecs: 58, Done: true, Skipped: true}},
		{ev: &agent.Compacting{Meta: meta, Reason: longsession.CompactThreshold, Messages: 731}},
		{ev: &agent.Compacted{Meta: meta, Reason: longsession.CompactManual, Summary: "the summary", Messages: 732, TokensBefore: 733, TokensAfter: 734}},
		{ev: &agent.FilesChanged{Meta: meta, Checkpoint: "ckpt0001", TurnID: "turn0001", RevertedBy: "ckpt0009", Late: true, Files: []checkpoint.Change{
			{Path: "a.txt", Status: checkpoint.Modified, Binary: true, Large: true, Added: 741, Removed: 742},
		}}},
		{ev: &agent.Reverted{Meta: meta, Checkpoint: "ckpt0009", Reverts: []string{"ckpt0001"}, Label: "Revert turn 1", Unrestorable: []string{"big.bin"}, Kept: []string{"data.txt"}, Files: []checkpoint.Change{
			{Path: "b.txt", Status: checkpoint.Deleted, Binary: true, Large: true, Added: 751, Removed: 752},
		}}},
		{ev: &agent.Notice{Meta: meta, Text: "checkpoints are off"}},
		{ev: &agent.HookNote{Meta: meta, Kind: agent.HookChanged, Event: "PreToolUse", Tool: "mcp__github__search", Text: "narrower query", Input: `{"q":"freeact is:open"}`}},
		{ev: &agent.ToolProgress{Meta: meta, Server: "github", Progress: 3, Total: 10, Message: "3 of 10 pages", Clipped: 3,
			Logs: []agent.LogLine{{Level: "warning", Message: "rate limited", Clipped: 4}}, Dropped: 2}},
		{ev: &agent.ReplyCut{Meta: meta, Text: "The model's reply was cut at 761 output tokens.", OutputTokens: 761, MaxTokens: 762, Setting: history.MaxTokensSetting, Dropped: []string{agent.ExecuteTool}}},
		{ev: &agent.ModelRetry{Meta: meta, Attempt: 2, MaxRetries: 5, DelaySecs: 17, Reason: "503 overloaded"}},
		{ev: &agent.Cancelled{Meta: meta, Phase: agent.PhaseTools}},
		{ev: &agent.Failed{Meta: meta, Error: "google:gemini-test: HTTP 404 NOT_FOUND: no such model", Cause: failure.CauseModel,
			Summary: "The provider does not know the model.", Fix: "Check the model name.", KeyEnv: "GEMINI_API_KEY", Status: 404, Kept: true, Action: agent.ActionCompact}},
		{ev: &agent.AutoApproved{Meta: meta, ToolCall: agent.ShellAction{ToolName: "bash", Command: "git status", Interpreter: "/usr/bin/bash", Opaque: true},
			Display: "git status", By: agent.BySession, Rule: "git status *", Reason: "the user asked for the status"}},
		{ev: &agent.SessionGrants{Meta: meta, Grants: []permission.Rule{{Type: "ShellAction", ToolName: "bash", Command: "git *"}}}},
		approval("r-code", agent.CodeAction{ToolName: agent.ExecuteTool, Code: "print(42)"}),
		approval("r-shell", agent.ShellAction{ToolName: "shell", Command: "git status", Interpreter: "/usr/bin/bash", Opaque: true}),
		approval("r-generic", agent.GenericCall{ToolName: "github_search", Args: json.RawMessage(`{"q":"freeact"}`), PTC: true, Server: "github",
			Hints: &mcp.Hints{Title: "Search", ReadOnly: &yes, Destructive: &no, Idempotent: &yes, OpenWorld: &yes}}),
		approval("r-read", agent.FileRead{ToolName: "filesystem_read_text_file", Path: "notes.txt"}),
		approval("r-write", agent.FileWrite{ToolName: "filesystem_write_text_file", Path: "out.txt", Content: "new content"}),
		approval("r-edit", agent.FileEdit{ToolName: "filesystem_edit_text_file", Path: "edit.txt", OldText: "old text", NewText: "new text"}),
		{requestID: "r-input", ev: &agent.InputRequest{Meta: meta, Prompt: "Your name? ", Password: true}},
		{ev: &agent.CodeEdited{Meta: meta, Code: "print('edited')"}},
		{ev: &agent.CellStarted{Meta: agent.Meta{AgentID: agent.MainAgent, CorrelationID: "run-1"}, Code: "print(x + 1)", Source: history.CellRerun, Of: "call-9", Index: 2, Total: 3}},
		{ev: &agent.CellsFinished{Meta: agent.Meta{AgentID: agent.MainAgent, CorrelationID: "run-1"}, Source: history.CellReplay, Ran: 2, Failed: 1, Total: 3, Stopped: true}},
		{ev: &agent.KernelStateNote{Meta: agent.Meta{AgentID: agent.MainAgent, CorrelationID: "run-1"}, Event: history.StateReplayed, Text: "The user restored the kernel's state."}},
		{raw: adapter.MustJSON(userMessage{Type: "UserMessage", AgentID: agent.MainAgent, Text: "the prompt", Images: []string{"data:image/png;base64,iVBORw0KGgo="}, Turn: 3})},
		{raw: adapter.MustJSON(toolCallEvent{Type: "ToolCall", AgentID: agent.MainAgent, CorrelationID: "call-9", ToolName: "filesystem_write_text_file", Args: json.RawMessage(`{"path":"a.txt","content":"from history"}`)})},
		{raw: notebookEvent("analysis.ipynb", []agent.NotebookCell{{ID: "nb-2", Type: "code", Source: "x = 20", Output: "saved output"}})},
		{raw: adapter.MustJSON(turnMarker{Type: "TurnStarted", AgentID: agent.MainAgent, History: true})},
		{raw: adapter.MustJSON(turnMarker{Type: "TurnEnded", AgentID: agent.MainAgent, History: true})},
		{raw: resetEvent},
	}
}

func TestEventContractGolden(t *testing.T) {
	entries := contractEvents()
	encoded, err := encodeBatch(entries)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.WriteString("[\n")
	for i, b := range encoded {
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil {
			t.Fatalf("entry %d is not JSON: %v", i, err)
		}
		buf.WriteString("  ")
		buf.Write(c.Bytes())
		if i < len(encoded)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("]\n")
	testenv.Golden(t, eventsGolden, buf.Bytes())
	if t.Failed() {
		t.Log("the events the window receives changed: if that is meant, make the frontend follow (events.ts, reducer.ts)")
	}
}

// Every field of every entry is set, so the golden file shows each one and
// a field the frontend does not read is noticed there.
func TestEventContractSetsEveryField(t *testing.T) {
	for _, q := range contractEvents() {
		if q.ev == nil {
			var m map[string]any
			if err := json.Unmarshal(q.raw, &m); err != nil {
				t.Fatal(err)
			}
			for k, v := range m {
				if v == nil || v == false || v == "" {
					t.Errorf("%s: %s is not set", m["type"], k)
				}
			}
			continue
		}
		name := agent.EventType(q.ev)
		if r, ok := q.ev.(*agent.ApprovalRequest); ok {
			name += "/" + agent.TypeName(r.ToolCall)
			unsetFields(t, name+".tool_call", reflect.ValueOf(r.ToolCall))
		}
		unsetFields(t, name, reflect.ValueOf(q.ev))
	}
}

// unsetFields reports the exported fields of v (followed through pointers,
// interfaces and embedded structs) that hold their zero value.
func unsetFields(t *testing.T, name string, v reflect.Value) {
	t.Helper()
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	for i := range v.NumField() {
		f, fv := v.Type().Field(i), v.Field(i)
		switch {
		case !f.IsExported():
		case f.Anonymous && fv.Kind() == reflect.Struct:
			unsetFields(t, name, fv)
		case fv.IsZero():
			t.Errorf("%s: field %s is not set", name, f.Name)
		}
	}
}

// The contract covers every event type of package agent (the structs that
// embed Meta) and every tool call type (those with a Permission method).
func TestEventContractCoversEveryType(t *testing.T) {
	events, calls := agentTypes(t)
	var gotEvents, gotCalls []string
	for _, q := range contractEvents() {
		if q.ev == nil {
			continue
		}
		gotEvents = append(gotEvents, agent.EventType(q.ev))
		if r, ok := q.ev.(*agent.ApprovalRequest); ok {
			gotCalls = append(gotCalls, agent.TypeName(r.ToolCall))
		}
	}
	for _, set := range []struct {
		what       string
		want, have []string
	}{{"event", events, gotEvents}, {"tool call", calls, gotCalls}} {
		for _, name := range set.want {
			if !slices.Contains(set.have, name) {
				t.Errorf("%s type agent.%s is missing from contractEvents", set.what, name)
			}
		}
	}
	if len(events) < 13 || len(calls) < 6 {
		t.Errorf("found only %d event and %d tool call types in ../../agent: the scan is broken", len(events), len(calls))
	}
}

// agentTypes reads the source of package agent and agent/event for the
// event types (structs embedding Meta) and tool call types (receivers of a
// Permission method).
func agentTypes(t *testing.T) (events, calls []string) {
	t.Helper()
	fset := token.NewFileSet()
	var files []string
	for _, dir := range []string{filepath.Join("..", "..", "agent"), filepath.Join("..", "..", "agent", "event")} {
		got, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, got...)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch d := n.(type) {
			case *ast.TypeSpec:
				if st, ok := d.Type.(*ast.StructType); ok {
					for _, field := range st.Fields.List {
						if id, ok := field.Type.(*ast.Ident); ok && len(field.Names) == 0 && id.Name == "Meta" {
							events = append(events, d.Name.Name)
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv != nil && d.Name.Name == "Permission" && len(d.Recv.List) == 1 {
					if id, ok := d.Recv.List[0].Type.(*ast.Ident); ok {
						calls = append(calls, id.Name)
					}
				}
			}
			return true
		})
	}
	return events, calls
}
