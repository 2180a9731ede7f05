package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/freeact/desktop/agent/approval"
	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/hooks"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/internal/appdirs"
)

// WithHooks runs r's hooks at the agent's events (agent/hooks, in Claude
// Code's protocol): PreToolUse for every call the agent approves (a code
// action, each shell command, a file tool, an MCP tool called as a JSON
// tool or from code), PostToolUse and PostToolUseFailure after a call,
// UserPromptSubmit, Stop, SessionStart and SessionEnd. Subagents run the
// same hooks. Go functions are hooks too (hooks.Set.Add). Given more than
// once (Workspace.StartAgent gives the user's and the workspace's), the
// sets add up; the first runner's Dir and settings stay, and the first
// Observe given.
func WithHooks(r *hooks.Runner) Option {
	return func(o *options) {
		if o.hooks == nil || r == nil {
			if r != nil {
				o.hooks = r
			}
			return
		}
		merged := *o.hooks
		merged.Sets = append(append([]hooks.Set(nil), o.hooks.Sets...), r.Sets...)
		if merged.Observe == nil {
			merged.Observe = r.Observe
		}
		o.hooks = &merged
	}
}

// hookState is what the agent keeps for its hooks.
type hookState struct {
	// tools are the calls as PreToolUse hooks saw them, by correlation id
	// (the first: a cell's own, not its shell commands'), for PostToolUse.
	tools sync.Map
	// before is what PreToolUse hooks said for the model, by correlation
	// id ([]string), for after the call's result.
	before sync.Map
	// context is what SessionStart hooks said, for the first prompt.
	mu      sync.Mutex
	context []string
}

// wireHooks gives the approver the PreToolUse hooks.
func (a *Agent) wireHooks() {
	r := a.opts.hooks
	if r == nil {
		return
	}
	a.hookState = &hookState{}
	if r.Has(hooks.PermissionRequest) || r.Has(hooks.Notification) {
		a.approvals.Asking = func(ctx context.Context, corr string, call event.ToolCall) hooks.Outcome {
			t := hooks.ToolFor(call, a.cfg.Dir, a.mcpServerOf)
			in := a.hookInput(hooks.PermissionRequest)
			in.ToolName, in.ToolInput, in.ToolUseID = t.Name, t.Input, corr
			o := r.Run(ctx, in)
			o.Tool = t
			if r.Has(hooks.Notification) && o.Decision != hooks.Deny && o.Decision != hooks.Allow {
				// Told, not asked: the question does not wait for it.
				in := a.hookInput(hooks.Notification)
				in.NotificationType, in.Message = "permission_prompt", "freeact needs your permission to use "+t.Name
				go r.Run(context.WithoutCancel(ctx), in)
			}
			return o
		}
	}
	if !r.Has(hooks.PreToolUse) && !r.Has(hooks.PostToolUse) && !r.Has(hooks.PostToolUseFailure) {
		return
	}
	a.approvals.PreTool = func(ctx context.Context, corr string, call event.ToolCall) hooks.Outcome {
		t := hooks.ToolFor(call, a.cfg.Dir, a.mcpServerOf)
		_, had := a.hookState.tools.LoadOrStore(corr, t)
		if !r.Has(hooks.PreToolUse) {
			return hooks.Outcome{}
		}
		in := a.hookInput(hooks.PreToolUse)
		in.ToolName, in.ToolInput, in.ToolUseID = t.Name, t.Input, corr
		if d := call.Permission().Dir; d != "" {
			// A shell command runs where the cell had gone.
			in.Cwd = d
		}
		o := r.Run(ctx, in)
		o.Tool = t
		if len(o.Context) > 0 && o.Decision != hooks.Deny {
			v, _ := a.hookState.before.LoadOrStore(corr, &hookTexts{})
			v.(*hookTexts).add(o.Context)
		}
		if o.Decision == hooks.Deny && !had {
			// It does not run: no PostToolUse.
			a.hookState.tools.Delete(corr)
		}
		return o
	}
}

// mcpServerOf says which MCP server and tool a generic call is: a JSON
// tool by its declared name, a call from code by its server's prefix.
func (a *Agent) mcpServerOf(c event.GenericCall) (server, tool string, ok bool) {
	if !c.PTC {
		t, found := a.mcp.JSONTool(c.ToolName)
		return t.Server, t.Name, found
	}
	best := ""
	for s := range a.cfg.Options.PTCServers {
		if strings.HasPrefix(c.ToolName, s+"_") && len(s) > len(best) {
			best = s
		}
	}
	if best == "" {
		return "", "", false
	}
	return best, strings.TrimPrefix(c.ToolName, best+"_"), true
}

// hookInput is the common part of a hook's input.
func (a *Agent) hookInput(ev hooks.Event) hooks.Input {
	in := hooks.Input{HookEventName: ev, Cwd: a.cfg.Dir, PermissionMode: "default"}
	if a.opts.skipPerms {
		in.PermissionMode = "bypassPermissions"
	}
	if a.opts.subagentOnly {
		// A subagent's events name it, as Claude Code's do.
		in.AgentID, in.AgentType = a.id, "subagent"
	}
	if id := a.SessionID(); id != "" {
		in.SessionID = id
		in.TranscriptPath = filepath.Join(a.cfg.Dir, ".freeact", "sessions", id, a.id+".jsonl")
	}
	return in
}

// runHooks runs ev's hooks (none: a zero Outcome) and shows what they say
// to the user.
func (a *Agent) runHooks(ctx context.Context, emit func(Event), corr string, in hooks.Input) hooks.Outcome {
	r := a.opts.hooks
	if !r.Has(in.HookEventName) {
		return hooks.Outcome{}
	}
	o := r.Run(ctx, in)
	for _, m := range o.Messages {
		emit(&Notice{Meta: Meta{AgentID: a.id, CorrelationID: corr}, Text: "Hook (" + string(in.HookEventName) + "): " + m})
	}
	if o.Stop {
		text := "A hook stopped the agent"
		if o.StopReason != "" {
			text += ": " + o.StopReason
		}
		emit(&Notice{Meta: Meta{AgentID: a.id, CorrelationID: corr}, Text: text})
	}
	return o
}

// hookDenied is the result the model gets for a call a hook or a deny
// rule denied; ok false when err is neither.
func hookDenied(err error) (string, bool) {
	if r, ok := err.(*approval.RuleDenied); ok {
		return "Refused without asking: the user's deny rule " + r.Rule + " covers this call. Do not retry it or work around it.", true
	}
	d, ok := err.(*approval.HookDenied)
	if !ok {
		return "", false
	}
	return "A hook blocked this call: " + d.Reason, true
}

// afterTool runs PostToolUse (or PostToolUseFailure) for the call of
// resp and adds what the hooks say for the model to its output, as plain
// text after it.
func (a *Agent) afterTool(ctx context.Context, emit func(Event), resp *model.FunctionResponse) {
	if a.hookState == nil {
		return
	}
	v, ok := a.hookState.tools.LoadAndDelete(resp.ID)
	if !ok {
		return
	}
	t := v.(hooks.Tool)
	var before []string
	if b, ok := a.hookState.before.LoadAndDelete(resp.ID); ok {
		before = b.(*hookTexts).all()
	}
	if resp.Output == RejectedText {
		// The user said no: it did not run.
		return
	}
	ev := hooks.PostToolUse
	if resp.IsError {
		ev = hooks.PostToolUseFailure
	}
	in := a.hookInput(ev)
	in.ToolName, in.ToolInput, in.ToolUseID = t.Name, t.Input, resp.ID
	if resp.IsError {
		in.Error = resp.Output
	} else {
		in.ToolResponse, _ = json.Marshal(map[string]any{"output": resp.Output, "is_error": resp.IsError})
	}
	o := a.runHooks(ctx, emit, resp.ID, in)
	if len(before) > 0 {
		resp.Output += "\n\n" + hookContext(before)
	}
	if len(o.Context) > 0 {
		resp.Output += "\n\n" + hookContext(o.Context)
		emit(&event.HookNote{Meta: Meta{AgentID: a.id, CorrelationID: resp.ID}, Kind: event.HookContext, Event: string(ev), Tool: t.Name, Text: strings.Join(o.Context, "\n")})
	}
}

// maxStopHookTurns bounds how often Stop hooks may make one prompt's turn
// go on.
const maxStopHookTurns = 3

// promptHooks runs the UserPromptSubmit hooks for the prompt text. What
// they (and the SessionStart hooks before the first prompt) say for the
// model goes with the prompt as a part of plain text; false: a hook
// blocked the prompt, which is not sent.
func (a *Agent) promptHooks(ctx context.Context, emit func(Event), msg *model.Message, text string) bool {
	if a.hookState == nil {
		return true
	}
	a.hookState.mu.Lock()
	context := a.hookState.context
	a.hookState.context = nil
	a.hookState.mu.Unlock()
	in := a.hookInput(hooks.UserPromptSubmit)
	in.Prompt = text
	o := a.runHooks(ctx, emit, "", in)
	if o.Block || o.Stop {
		emit(&Notice{Meta: Meta{AgentID: a.id}, Text: "A hook blocked the prompt; it was not sent."})
		return false
	}
	context = append(context, o.Context...)
	if len(context) > 0 {
		msg.Parts = append(msg.Parts, model.Part{Text: hookContext(context), User: true})
	}
	return true
}

// turnWithStopHooks runs a turn, then the Stop hooks: a hook that blocks
// the stop makes the turn go on with its reason (at most
// maxStopHookTurns times; stop_hook_active tells it it did).
func (a *Agent) turnWithStopHooks(ctx context.Context, msg model.Message, emit func(Event)) {
	res := a.runTurn(ctx, msg, a.opts.maxTurns, emit, false)
	if a.hookState == nil {
		return
	}
	for i := 0; res.failed == nil && !res.cancelled && !res.rejected && ctx.Err() == nil; i++ {
		active := i > 0
		in := a.hookInput(hooks.Stop)
		in.StopHookActive = &active
		o := a.runHooks(ctx, emit, "", in)
		if !o.Block || o.Stop || i >= maxStopHookTurns {
			return
		}
		next := model.UserText(hookContext(o.Context))
		next.Parts[0].User = true
		res = a.runTurn(ctx, next, a.opts.maxTurns, emit, false)
	}
}

// sessionHooks runs SessionStart (source: startup or resume), keeping what
// they say for the model for the first prompt, or SessionEnd. What they
// say for the user goes to the log: no turn shows it.
func (a *Agent) sessionHooks(ctx context.Context, ev hooks.Event) {
	if a.hookState == nil || a.opts.subagentOnly {
		return
	}
	in := a.hookInput(ev)
	if ev == hooks.SessionStart {
		in.Source = "startup"
		if len(a.History()) > 0 {
			in.Source = "resume"
		}
	} else {
		in.Reason = "other"
	}
	o := a.opts.hooks.Run(ctx, in)
	for _, m := range o.Messages {
		a.opts.log.Info("hook", "event", string(ev), "said", m)
	}
	if ev == hooks.SessionStart && len(o.Context) > 0 {
		a.hookState.mu.Lock()
		a.hookState.context = append(a.hookState.context, o.Context...)
		a.hookState.mu.Unlock()
	}
}

// hookContext is what hooks said for the model, as text that says whose
// it is. It goes into the conversation as plain text (a part the user
// sent, model.Part.User, where it stands alone), never read as the
// agent's notes whatever it imitates.
func hookContext(texts []string) string {
	return "Hook output:\n" + strings.Join(texts, "\n")
}

// HookTrust is the record of which workspace hooks the user trusted, in
// the app's state folder of dirs.
func HookTrust(dirs appdirs.Dirs) *hooks.Trust {
	return &hooks.Trust{File: filepath.Join(dirs.State, hooks.TrustFile)}
}

// loadHooks reads the hooks an agent over dir runs: the user's own and
// the workspace's when the user trusted exactly what it holds. A
// workspace's hooks not (or no longer) trusted are left out, with a
// warning that says how to trust them; a broken hooks file stops the start,
// so that no one's safety hooks are dropped unseen.
func (w *Workspace) loadHooks(dir string) (*hooks.Runner, error) {
	sets, st, err := hooks.Load(w.dirs.Config, dir, HookTrust(w.dirs))
	if err != nil {
		return nil, fmt.Errorf("hooks: %w", err)
	}
	if st.Exists && !st.Trusted {
		what := "are not trusted"
		if st.Changed {
			what = "changed since you trusted them"
		}
		w.log.Warn("the workspace's hooks "+what+" and do not run: review them with `freeact hooks list`, then `freeact hooks trust`", "file", st.Path)
	}
	return &hooks.Runner{Dir: dir, Sets: sets}, nil
}

// afterCallFromCode runs PostToolUse (or PostToolUseFailure) for an MCP
// tool that code called, under the name a JSON call of it has. What the
// hooks say for the model cannot join a result the code reads: it is
// shown to the user.
func (a *Agent) afterCallFromCode(ctx context.Context, emit func(Event), corr, server, tool string, args, res json.RawMessage, err error) {
	if a.hookState == nil || !a.opts.hooks.Has(hooks.PostToolUse) && !a.opts.hooks.Has(hooks.PostToolUseFailure) {
		return
	}
	ev := hooks.PostToolUse
	if err != nil {
		ev = hooks.PostToolUseFailure
	}
	in := a.hookInput(ev)
	in.ToolName, in.ToolInput, in.ToolUseID = hooks.MCPTool(server, tool), args, corr
	if len(in.ToolInput) == 0 || !json.Valid(in.ToolInput) {
		in.ToolInput = json.RawMessage("{}")
	}
	if err != nil {
		in.Error = err.Error()
	} else if json.Valid(res) {
		in.ToolResponse = res
	}
	o := a.runHooks(ctx, emit, corr, in)
	if len(o.Context) > 0 {
		emit(&event.HookNote{Meta: Meta{AgentID: a.id, CorrelationID: corr}, Kind: event.HookContext, Event: string(ev), Tool: in.ToolName, Text: strings.Join(o.Context, "\n")})
	}
}

// subagentHooks runs SubagentStart or SubagentStop for the subagent id
// (agent_type "subagent"). What they say is shown; they decide nothing.
func (a *Agent) subagentHooks(ctx context.Context, emit func(Event), corr string, ev hooks.Event, id string) {
	if a.hookState == nil {
		return
	}
	in := a.hookInput(ev)
	in.AgentID, in.AgentType = id, "subagent"
	if ev == hooks.SubagentStop {
		active := false
		in.StopHookActive = &active
	}
	a.runHooks(ctx, emit, corr, in)
}

// hookChanged says for the model that a hook changed a call's input, and
// what it ran with; "" when ran is tc.
func hookChanged(tc, ran ToolCall, dir string, mcp func(GenericCall) (string, string, bool)) string {
	if ran == nil {
		return ""
	}
	before, after := hooks.ToolFor(tc, dir, mcp), hooks.ToolFor(ran, dir, mcp)
	if string(before.Input) == string(after.Input) {
		return ""
	}
	return "A hook changed this call's input; it ran with: " + string(after.Input)
}

// preCompactHooks runs PreCompact before a compaction: trigger "manual"
// for Compact now, "auto" for the others. What the hooks say is shown;
// they decide nothing (Claude Code's PreCompact does not block either).
func (a *Agent) preCompactHooks(ctx context.Context, emit func(Event), reason string) {
	if a.hookState == nil {
		return
	}
	in := a.hookInput(hooks.PreCompact)
	in.Trigger = "auto"
	if reason == CompactManual {
		in.Trigger = "manual"
	}
	a.runHooks(ctx, emit, "", in)
}

// hookTexts gathers what PreToolUse hooks said for the model about a call
// and the shell commands and calls from code inside it.
type hookTexts struct {
	mu    sync.Mutex
	texts []string
}

func (h *hookTexts) add(texts []string) {
	h.mu.Lock()
	h.texts = append(h.texts, texts...)
	h.mu.Unlock()
}

func (h *hookTexts) all() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.texts...)
}
