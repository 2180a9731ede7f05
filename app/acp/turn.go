package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/internal/visible"
)

// turn maps one turn's events to session/update notifications and its
// approvals to session/request_permission.
type turn struct {
	ss  *acpSession
	ctx context.Context
	// ask is the context of permission requests: it ends with the turn
	// and on session/cancel.
	ask context.Context

	calls    map[string]*call // open tool calls by ACP id
	sub      int              // sub-calls (shell commands, calls from code) numbered
	streamed bool             // a ResponseChunk went out since the last Response

	cancelled, cut bool
	failed         *agent.Failed
}

// call is one tool call as the client sees it: its content so far.
type call struct {
	kind   sdk.ToolKind
	head   []sdk.ToolCallContent // what the call is (the code, the diff)
	output strings.Builder
	images []sdk.ToolCallContent
	done   bool
}

func newTurn(ss *acpSession, ctx, ask context.Context) *turn {
	return &turn{ss: ss, ctx: ctx, ask: ask, calls: map[string]*call{}}
}

func (t *turn) send(u sdk.SessionUpdate) { t.ss.send(t.ctx, u) }

func (t *turn) handle(ev agent.Event) {
	main := ev.Agent() == agent.MainAgent
	switch e := ev.(type) {
	case *agent.ThoughtsChunk:
		if main {
			t.send(sdk.UpdateAgentThoughtText(e.Text))
		}
	case *agent.ResponseChunk:
		if main {
			t.streamed = true
			t.send(sdk.UpdateAgentMessageText(e.Text))
		}
	case *agent.Response:
		if main && !t.streamed && e.Text != "" {
			t.send(sdk.UpdateAgentMessageText(e.Text))
		}
		t.streamed = false
	case *agent.ApprovalRequest:
		id := t.open(e.CorrelationID, e.ToolCall, e.Display, sdk.ToolCallStatusPending)
		t.approve(id, e)
	case *agent.AutoApproved:
		id := t.open(e.CorrelationID, e.ToolCall, e.Display, sdk.ToolCallStatusInProgress)
		t.allowed(id, model.Approved{By: string(e.By), Rule: e.Rule, Reason: e.Reason})
	case *agent.CodeExecutionOutputChunk:
		t.output(e)
	case *agent.CodeExecutionOutput:
		t.end(e.CorrelationID, e.Text, e.Error)
	case *agent.ToolOutput:
		t.end(e.CorrelationID, e.Content, e.IsError)
	case *agent.SessionUsage:
		u := &sdk.SessionUsageUpdate{Used: e.ContextTokens, Size: e.ContextWindow}
		if e.Unpriced == 0 || e.Cost > 0 {
			u.Cost = &sdk.Cost{Amount: e.Cost, Currency: "USD"}
		}
		t.send(sdk.SessionUpdate{UsageUpdate: u})
	case *agent.InputRequest:
		// ACP has no way to ask for a line: the cell's input() gets "".
		t.send(sdk.UpdateAgentMessageText("\n\n(The code asked for input; freeact acp cannot ask for it here, so it got an empty line.)\n"))
		e.Reply("")
	case *agent.BudgetRequest:
		t.send(sdk.UpdateAgentMessageText("\n\n(The session's budget is spent: raise max_cost in agent.json to go on.)\n"))
		e.Continue(false)
	case *agent.HookNote:
		t.send(sdk.UpdateAgentMessageText(hookNoteText(e)))
	case *agent.Notice:
		// What the window shows as a line of its own (a call a deny rule
		// refused): the client reads it in the answer, as plain text.
		if main {
			t.send(sdk.UpdateAgentMessageText("\n\n(" + plainMarkdown(visible.Line(e.Text)) + ")\n\n"))
		}
	case *agent.ReplyCut:
		if main {
			t.cut = true
		}
	case *agent.Cancelled:
		if main {
			t.cancelled = true
		}
	case *agent.Failed:
		if main {
			t.failed = e
		}
	}
}

// finish ends the calls still open (a stopped turn's) as failed.
func (t *turn) finish() {
	for id, c := range t.calls {
		if !c.done {
			t.status(id, c, sdk.ToolCallStatusFailed)
		}
	}
}

// open announces a tool call and returns its ACP id. A call inside a
// running code action (a shell command, a tool called from code) shares
// the action's correlation id, so it gets an id of its own.
func (t *turn) open(corr string, tc agent.ToolCall, display string, status sdk.ToolCallStatus) string {
	id := corr
	if _, busy := t.calls[id]; busy || id == "" {
		t.sub++
		id = fmt.Sprintf("%s/%d", corr, t.sub)
	}
	kind, title, head, loc := describe(tc, display, t.ss.dir, t.ss.servers())
	c := &call{kind: kind, head: head}
	t.calls[id] = c
	t.send(sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
		ToolCallId: sdk.ToolCallId(id), Title: title, Kind: kind, Status: status,
		Content: head, Locations: loc, RawInput: rawInput(tc),
	}})
	return id
}

// describe is how a call shows in the client: its kind, title, content
// (the exact code or command that runs, the diff of a write) and files.
func describe(tc agent.ToolCall, display, dir string, servers []string) (sdk.ToolKind, string, []sdk.ToolCallContent, []sdk.ToolCallLocation) {
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	text := func(s string) []sdk.ToolCallContent { return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(s))} }
	switch c := tc.(type) {
	case agent.CodeAction:
		return sdk.ToolKindExecute, "Run Python", text("```python\n" + c.Code + "\n```"), nil
	case agent.ShellAction:
		cmd := display
		if cmd == "" {
			cmd = c.Command
		}
		return sdk.ToolKindExecute, "Shell: " + firstLine(c.Command), text("```sh\n" + cmd + "\n```"), nil
	case agent.FileRead:
		return sdk.ToolKindRead, "Read " + c.Path, nil, []sdk.ToolCallLocation{{Path: abs(c.Path)}}
	case agent.FileWrite:
		old := ""
		if b, err := os.ReadFile(abs(c.Path)); err == nil {
			old = string(b)
		}
		return sdk.ToolKindEdit, "Write " + c.Path, []sdk.ToolCallContent{sdk.ToolDiffContent(abs(c.Path), c.Content, old)}, []sdk.ToolCallLocation{{Path: abs(c.Path)}}
	case agent.FileEdit:
		return sdk.ToolKindEdit, "Edit " + c.Path, []sdk.ToolCallContent{sdk.ToolDiffContent(abs(c.Path), c.NewText, c.OldText)}, []sdk.ToolCallLocation{{Path: abs(c.Path)}}
	case agent.GenericCall:
		args := string(c.Args)
		title := "Tool " + c.ToolName
		if server, tool, ok := mcpName(c.ToolName, servers); ok {
			title = "MCP " + server + ": " + tool
		}
		return sdk.ToolKindOther, title, text("```json\n" + args + "\n```"), nil
	}
	return sdk.ToolKindOther, tc.Name(), nil, nil
}

// mcpName splits a JSON tool's name into its server and tool
// (mcp.ModelNames joins them with "_"); the longest server name wins.
func mcpName(name string, servers []string) (server, tool string, ok bool) {
	for _, s := range servers {
		if strings.HasPrefix(name, s+"_") && len(s) > len(server) {
			server, tool, ok = s, strings.TrimPrefix(name, s+"_"), true
		}
	}
	return server, tool, ok
}

func rawInput(tc agent.ToolCall) any {
	b, err := json.Marshal(tc)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	m["tool_name"] = tc.Name()
	if c, ok := tc.(agent.CodeAction); ok {
		// Clients that show an execute call's input read rawInput.command
		// (Jupyter AI shows nothing else while it asks): the exact code.
		m["command"] = c.Code
	}
	return m
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}

// The option ids of a permission request.
const (
	optOnce         = "allow_once"
	optAlways       = "allow_always"
	optRejectOnce   = "reject_once"
	optRejectAlways = "reject_always"
)

// ask asks the client and answers the approval. Always saves the rule
// the desktop saves (the request's Suggested), reject always the same
// pattern as a deny rule; a protected call offers neither, a call whose
// server marks it destructive no Always.
func (t *turn) approve(id string, r *agent.ApprovalRequest) {
	opts := []sdk.PermissionOption{{OptionId: optOnce, Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce}}
	if !r.Protected && r.NoAlways == "" && r.Suggested != "" {
		opts = append(opts, sdk.PermissionOption{OptionId: optAlways, Name: "Always allow " + r.Suggested, Kind: sdk.PermissionOptionKindAllowAlways})
	}
	opts = append(opts,
		sdk.PermissionOption{OptionId: optRejectOnce, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
	)
	if !r.Protected && r.Suggested != "" {
		opts = append(opts, sdk.PermissionOption{OptionId: optRejectAlways, Name: "Always reject " + r.Suggested, Kind: sdk.PermissionOptionKindRejectAlways})
	}
	c := t.calls[id]
	title := ""
	if r.Reason != "" {
		title = r.Reason
	}
	upd := sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(id), Content: c.head, Kind: &c.kind}
	if title != "" {
		upd.Title = &title
	}
	// The request ends with the client's answer, or when the turn is
	// cancelled (session/cancel asks the client to answer "cancelled", and
	// a client that never answers is not waited for). The request's
	// Answered channel is the agent's to read, never ours.
	resp, err := t.ss.srv.conn.RequestPermission(t.ask, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(t.ss.id), ToolCall: upd, Options: opts})
	a := struct {
		resp sdk.RequestPermissionResponse
		err  error
	}{resp, err}
	decision := agent.Reject
	if a.err == nil && a.resp.Outcome.Selected != nil {
		switch a.resp.Outcome.Selected.OptionId {
		case optOnce:
			decision = agent.Once
		case optAlways:
			if !r.Protected && r.NoAlways == "" {
				decision = agent.Always
			} else {
				decision = agent.Once
			}
		case optRejectAlways:
			// A protected call saves no rule: Never is a plain no for it.
			decision = agent.Never
		}
	}
	if a.err != nil {
		t.ss.srv.o.Log.Warn("session/request_permission", "err", a.err)
	}
	r.Answer(decision, "")
	if decision == agent.Reject || decision == agent.Never {
		t.status(id, c, sdk.ToolCallStatusFailed)
		return
	}
	t.statusOnly(id, sdk.ToolCallStatusInProgress)
	if _, ok := r.ToolCall.(agent.ShellAction); ok {
		// A shell command runs inside its cell; its output is the cell's.
		c.done = true
		t.statusOnly(id, sdk.ToolCallStatusCompleted)
	}
}

// output streams a code action's output as it arrives.
func (t *turn) output(e *agent.CodeExecutionOutputChunk) {
	c, ok := t.calls[e.CorrelationID]
	if !ok {
		return
	}
	switch e.Kind {
	case "image":
		if img, ok := t.image(e.Text); ok {
			c.images = append(c.images, img)
		}
	default:
		c.output.WriteString(e.Text)
	}
	t.send(sdk.UpdateToolCall(sdk.ToolCallId(e.CorrelationID), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress), sdk.WithUpdateContent(c.content()), t.rawOutput(c)))
}

// image reads the image a cell saved ("![image](path)") below the
// workspace's images folder.
func (t *turn) image(line string) (sdk.ToolCallContent, bool) {
	p := strings.TrimSpace(line)
	p = strings.TrimPrefix(p, "![image](")
	p = strings.TrimSuffix(p, ")")
	if !filepath.IsAbs(p) {
		p = filepath.Join(t.ss.dir, p)
	}
	root := t.ss.cfg.ImagesDir()
	if rel, err := filepath.Rel(root, p); err != nil || strings.HasPrefix(rel, "..") {
		return sdk.ToolCallContent{}, false
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return sdk.ToolCallContent{}, false
	}
	mime := "image/png"
	switch strings.ToLower(filepath.Ext(p)) {
	case ".jpg", ".jpeg":
		mime = "image/jpeg"
	case ".svg":
		mime = "image/svg+xml"
	case ".gif":
		mime = "image/gif"
	}
	return sdk.ToolContent(sdk.ImageBlock(encode(b), mime)), true
}

func (c *call) content() []sdk.ToolCallContent {
	out := append([]sdk.ToolCallContent{}, c.head...)
	if c.output.Len() > 0 {
		out = append(out, sdk.ToolContent(sdk.TextBlock("```\n"+c.output.String()+"\n```")))
	}
	return append(out, c.images...)
}

// end finishes a call with its result.
func (t *turn) end(id, text string, failed bool) {
	c, ok := t.calls[id]
	if !ok || c.done {
		return
	}
	if c.kind != sdk.ToolKindExecute && text != "" {
		c.output.Reset()
		c.output.WriteString(text)
	} else if c.kind == sdk.ToolKindExecute && c.output.Len() == 0 && text != "" {
		c.output.WriteString(text)
	}
	st := sdk.ToolCallStatusCompleted
	if failed {
		st = sdk.ToolCallStatusFailed
	}
	t.status(id, c, st)
}

func (t *turn) status(id string, c *call, st sdk.ToolCallStatus) {
	c.done = true
	t.send(sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateStatus(st), sdk.WithUpdateContent(c.content()), t.rawOutput(c)))
}

// rawOutput is the call's text output as rawOutput too: clients that show
// a finished call's result read that, not the content (Jupyter AI). The
// protocol allows any value there; a client that reads it only as an
// object (Toad, which drops the whole update otherwise) gets
// {"output": text}.
func (t *turn) rawOutput(c *call) sdk.ToolCallUpdateOpt {
	if c.output.Len() == 0 {
		return func(*sdk.SessionToolCallUpdate) {}
	}
	t.ss.srv.mu.Lock()
	object := t.ss.srv.rawAsObject
	t.ss.srv.mu.Unlock()
	if object {
		return sdk.WithUpdateRawOutput(map[string]any{"output": c.output.String()})
	}
	return sdk.WithUpdateRawOutput(c.output.String())
}

func (t *turn) statusOnly(id string, st sdk.ToolCallStatus) {
	t.send(sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateStatus(st)))
}
