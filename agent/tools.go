package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/freeact/desktop/agent/cells"
	"github.com/freeact/desktop/agent/ckpt"
	"github.com/freeact/desktop/agent/gate"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/kernelhost"
	"github.com/freeact/desktop/agent/mcpglue"
	"strings"
	"sync"
	"time"

	"github.com/freeact/desktop/agent/files"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/tooldefs"
	"github.com/freeact/desktop/kernel"
)

// toolDeclarations lists what the model may call (agent/tooldefs, the
// MCP hub's).
func (a *Agent) toolDeclarations() []model.Tool {
	tools := append(tooldefs.Builtin(), a.mcp.Declarations(a.cfg.Options.ToolSearch)...)
	if a.subagentsAllowed() {
		tools = append(tools, tooldefs.Subagent(DefaultMaxTurns))
	}
	return tools
}

func (a *Agent) subagentsAllowed() bool {
	return a.cfg.Options.EnableSubagents && !a.opts.subagentOnly && a.subagents != nil
}

// runTool runs one call after its approval and returns its result; rejected
// reports a "no".
func (a *Agent) runTool(ctx context.Context, call model.FunctionCall, emit func(Event)) (model.FunctionResponse, bool) {
	switch {
	case call.Name == ExecuteTool:
		return a.runCode(ctx, call, emit)
	case call.Name == ResetTool:
		return a.approveThen(ctx, call, emit, GenericCall{ToolName: ResetTool, Args: call.Args}, func() (string, bool, []model.Image) {
			if err := a.kern.Restart(ctx); err != nil {
				return fmt.Sprintf("Restarting the kernel failed: %v", err), true, nil
			}
			return "The kernel was restarted: all variables, imports and definitions are gone.", false, nil
		})
	case files.IsTool(call.Name):
		return a.runFileTool(ctx, call, emit)
	case call.Name == SubagentTool && a.subagentsAllowed():
		return a.runSubagent(ctx, call, emit)
	}
	if resp, rejected, ok := a.runMCPTool(ctx, call, emit); ok {
		return resp, rejected
	}
	return a.result(emit, call, "Unknown tool name: "+call.Name, true, nil), false
}

// runMCPTool runs a tool-search or JSON MCP tool; ok is false when name is
// none of them.
func (a *Agent) runMCPTool(ctx context.Context, call model.FunctionCall, emit func(Event)) (resp model.FunctionResponse, rejected, ok bool) {
	switch call.Name {
	case mcpglue.ListCategoriesTool, mcpglue.ListToolsTool:
		if a.cfg.Options.ToolSearch != "basic" {
			return resp, false, false
		}
	case mcpglue.SearchToolsTool:
		if a.cfg.Options.ToolSearch != "hybrid" {
			return resp, false, false
		}
	default:
		t, found := a.mcp.JSONTool(call.Name)
		if !found {
			return resp, false, false
		}
		resp, rejected = a.approveRun(ctx, call, emit, GenericCall{ToolName: call.Name, Args: call.Args, Hints: t.Hints, Server: t.Server}, func(ran ToolCall) (string, bool, []model.Image) {
			return a.mcp.CallJSON(ctx, t, ran.(GenericCall).Args, emit, Meta{AgentID: a.id, CorrelationID: call.ID}, stopText)
		})
		return resp, rejected, true
	}
	resp, rejected = a.approveThen(ctx, call, emit, GenericCall{ToolName: call.Name, Args: call.Args}, func() (string, bool, []model.Image) {
		text, err := a.mcp.Search().Run(ctx, call.Name, call.Args)
		if err != nil {
			return err.Error(), true, nil
		}
		return text, false, nil
	})
	return resp, rejected, true
}

// approveThen asks for tc and runs do when it is approved.
func (a *Agent) approveThen(ctx context.Context, call model.FunctionCall, emit func(Event), tc ToolCall, do func() (string, bool, []model.Image)) (model.FunctionResponse, bool) {
	return a.approveRun(ctx, call, emit, tc, func(ToolCall) (string, bool, []model.Image) { return do() })
}

// approveRun asks for tc and runs do with the call to run: tc, or tc as a
// hook changed it (updatedInput), which the result then says for the
// model, so the history records what ran.
func (a *Agent) approveRun(ctx context.Context, call model.FunctionCall, emit func(Event), tc ToolCall, do func(ran ToolCall) (string, bool, []model.Image)) (model.FunctionResponse, bool) {
	ok, ran, err := a.approvals.AskCall(ctx, emit, call.ID, tc, 0)
	approvalAnswered(ctx)
	if !ok {
		return a.notApproved(ctx, call, emit, err)
	}
	a.logRuleError(err)
	text, isErr, images := do(ran)
	if changed := gate.Changed(tc, ran, a.cfg.Dir, gateAgent{a}.MCPServerOf); changed != "" {
		text = changed + "\n\n" + text
	}
	text, saved := a.offload(text)
	return a.savedResult(emit, call, text, saved, isErr, images), false
}

// notApproved is the result of a call that was refused (err nil: a "no",
// which ends the turn) or not answered (the turn ended first).
func (a *Agent) notApproved(ctx context.Context, call model.FunctionCall, emit func(Event), err error) (model.FunctionResponse, bool) {
	if err == nil {
		return a.result(emit, call, RejectedText, true, nil), true
	}
	if text, ok := gate.Denied(err); ok {
		// The model is told why and goes on, as in Claude Code.
		return a.result(emit, call, text, true, nil), false
	}
	return a.notRun(ctx, call, emit), false
}

func (a *Agent) runCode(ctx context.Context, call model.FunctionCall, emit func(Event)) (model.FunctionResponse, bool) {
	var args struct {
		Code *string `json:"code"`
	}
	if err := json.Unmarshal(call.Args, &args); err != nil || args.Code == nil {
		return a.result(emit, call, `Invalid arguments: `+ExecuteTool+` takes {"code": "<python>"}.`, true, nil), false
	}
	ok, edited, err := a.approvals.AskEditable(ctx, emit, call.ID, CodeAction{ToolName: ExecuteTool, Code: *args.Code}, 0)
	if !ok {
		return a.notApproved(ctx, call, emit, err)
	}
	a.logRuleError(err)
	code := *args.Code
	if edited != "" && edited != code {
		code = edited
		emit(&CodeEdited{Meta: Meta{AgentID: a.id, CorrelationID: call.ID}, Code: code})
	} else {
		edited = ""
	}
	before := a.checkpointBefore(ctx, emit, call, ckpt.ActionLabel(call, code))
	out, refused := a.execCell(ctx, emit, call.ID, code)
	// What ran, before a "no" too, may have changed files.
	a.checkpointAfter(ctx, emit, before)
	text, saved := a.offload(out.Text)
	isErr := out.Error
	if refused != nil {
		// The model gets one line saying what was rejected.
		text, saved, isErr = refused.Text()+"\n"+RejectedText, "", true
	}
	ran := &model.Ran{Code: code, Error: isErr}
	if edited != "" {
		text = history.EditedResult(code, text)
		ran.By = ByEdited
	}
	resp := a.savedResult(emit, call, text, saved, isErr, nil)
	ran.Approved, resp.Approved = resp.Approved, nil // sealed in the record
	a.seal.Sign(ran, call.ID)
	resp.Ran = ran
	return resp, refused != nil
}

// execCell runs code in the kernel as the cell corr: its output streams as
// events and the host asks about its shell commands, tool calls and input
// under corr. It emits and returns the complete output. When the user
// rejected something the cell asked for, the cell was interrupted and the
// refusal is returned: what the cell printed from then on (the
// KeyboardInterrupt, the hook's note) is noise, left out; the output is
// what came before, with Rejected saying what was refused.
func (a *Agent) execCell(ctx context.Context, emit func(Event), corr, code string) (*CodeExecutionOutput, *kernelhost.Refusal) {
	meta := Meta{AgentID: a.id, CorrelationID: corr}
	var (
		mu      sync.Mutex
		refused *kernelhost.Refusal
		before  []string // output up to the rejection, chunk by chunk (no copy)
	)
	// The kernel hands the context's values to the host methods of this
	// cell's requests: that is how the host knows which cell asks.
	cctx := kernelhost.WithCell(ctx, &kernelhost.Cell{Ctx: ctx, Emit: emit, Corr: corr, Rejected: func(r kernelhost.Refusal) {
		mu.Lock()
		first := refused == nil
		if first {
			refused = &r
		}
		mu.Unlock()
		if first {
			// Stop the cell before it hears the "no": the rest of it may
			// depend on what was refused.
			ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := a.kern.Interrupt(ictx); err != nil {
				a.opts.log.Warn("interrupt after a rejection", "err", err)
			}
		}
	}})
	if err := a.remote.Refresh(ctx, a.cfg); err != nil {
		a.opts.log.Warn("remote workspace not brought up to date", "err", err)
	}
	var (
		res *kernel.Result
		err error
	)
	lostBefore := lostWhileIdle(a.kern)
	guardNote := a.guarded(emit, corr, func() {
		res, err = a.kern.Execute(cctx, code, func(c kernel.Chunk) {
			mu.Lock()
			if refused != nil {
				mu.Unlock()
				return
			}
			before = append(before, c.Text)
			mu.Unlock()
			emit(&CodeExecutionOutputChunk{Meta: meta, Kind: string(c.Kind), Text: c.Text})
		})
	})
	out := &CodeExecutionOutput{Meta: meta}
	var errText string
	if res != nil {
		out.Text, out.Images, out.Error = res.Text, res.Images, res.Error != nil || res.TimedOut
		errText = res.ErrorText
	}
	if cerr := a.remote.AfterCell(context.WithoutCancel(ctx), a.cfg, res); cerr != nil {
		out.Text = strings.TrimSpace(out.Text + "\n[" + cerr.Error() + "]")
	}
	mu.Lock()
	r := refused
	if r != nil {
		out.Text, out.Error, out.Rejected = strings.TrimRight(strings.Join(before, ""), "\n"), false, r.What()
	}
	mu.Unlock()
	if r == nil && err != nil {
		out.Error = true
		why := describeExecError(ctx, err)
		out.Text = strings.TrimSpace(out.Text + "\n" + why)
		errText = why
	}
	if errors.Is(err, kernel.ErrKernelDied) || errors.Is(err, kernel.ErrConnectionLost) {
		a.kstate.Lose(cells.LostDied)
	}
	if lostWhileIdle(a.kern) != lostBefore {
		// The kernel died between cells (a Hub's culler stopped the
		// server): this cell ran in a fresh one.
		a.kstate.Lose(cells.LostDied)
		out.Text = strings.TrimSpace("[The kernel was lost while idle (its server stopped or restarted); this cell ran in a fresh kernel: variables, imports and definitions of earlier cells are gone.]\n" + out.Text)
	}
	if guardNote != "" {
		out.Text = strings.TrimSpace(out.Text + "\n[" + guardNote + "]")
	}
	if errText = strings.TrimSpace(errText); out.Error && errText != "" && strings.Contains(out.Text, errText) {
		out.ErrorText = errText
	}
	emit(out)
	return out, r
}

func describeExecError(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		return stopText(ctx)
	}
	return "Error: " + err.Error()
}

func (a *Agent) runFileTool(ctx context.Context, call model.FunctionCall, emit func(Event)) (model.FunctionResponse, bool) {
	args, err := files.ParseArgs(call.Name, call.Args)
	if err != nil {
		return a.result(emit, call, err.Error(), true, nil), false
	}
	p, err := a.ws.Resolve(ctx, args.FilePath())
	if err != nil {
		return a.result(emit, call, err.Error(), true, nil), false
	}
	path := p.Display()
	var tc ToolCall
	switch v := args.(type) {
	case files.WriteArgs:
		tc = FileWrite{ToolName: call.Name, Path: path, Content: v.Content}
	case files.EditArgs:
		tc = FileEdit{ToolName: call.Name, Path: path, OldText: v.OldText, NewText: v.NewText}
	default:
		tc = FileRead{ToolName: call.Name, Path: path}
	}
	return a.approveRun(ctx, call, emit, tc, func(ran ToolCall) (string, bool, []model.Image) {
		// A hook may have changed what is written (never where).
		switch v := ran.(type) {
		case FileWrite:
			w := args.(files.WriteArgs)
			w.Content = v.Content
			args = w
		case FileEdit:
			e := args.(files.EditArgs)
			e.OldText, e.NewText = v.OldText, v.NewText
			args = e
		}
		if err := a.remote.Refresh(ctx, a.cfg); err != nil {
			a.opts.log.Warn("remote workspace not brought up to date", "err", err)
		}
		if _, read := tc.(FileRead); !read {
			before := a.checkpointBefore(ctx, emit, call, ckpt.ActionLabel(call, args))
			defer a.checkpointAfter(ctx, emit, before)
		}
		res, err := a.ws.RunApproved(ctx, args, p)
		if err != nil {
			return err.Error(), true, nil
		}
		var images []model.Image
		if res.Image != nil {
			images = []model.Image{{MIMEType: res.Image.MIMEType, Data: res.Image.Data}}
		}
		return res.Text, false, images
	})
}

// offload replaces a result larger than tool_result_inline_max_bytes by a
// notice pointing to the file it was saved to, and returns that file
// (relative to the workspace; "" when the result stays inline).
func (a *Agent) offload(text string) (string, string) {
	if a.offloader == nil {
		return text, ""
	}
	return a.offloader.Text(text)
}

// lostWhileIdle is how many kernels of k died between cells (0 for an
// executor that is not a Jupyter kernel).
func lostWhileIdle(k any) int {
	if l, ok := k.(interface{ LostWhileIdle() int }); ok {
		return l.LostWhileIdle()
	}
	return 0
}
