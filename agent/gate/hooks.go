// Package gate owns what stands around an approval besides asking for it
// (agent/approval): the hooks run at the agent's events (agent/hooks, in
// Claude Code's protocol), which workspace hooks run, and auto mode's
// state and judge. It sees the agent through gate.Agent.
package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"

	"github.com/freeact/desktop/agent/approval"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/hooks"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/internal/appdirs"
)

// Agent is the agent as its hooks and auto mode see it.
type Agent interface {
	ID() string
	// SessionID is the session the agent writes to, "" without one.
	SessionID() string
	// Dir is the workspace.
	Dir() string
	// Config is a copy of the configuration, read under the agent's lock.
	Config() config.Config
	// Subagent reports whether the agent is a subagent.
	Subagent() bool
	// SkipPerms reports whether every call is approved without asking.
	SkipPerms() bool
	// History is a copy of the conversation so far.
	History() []model.Message
	// Model is the conversation's model, nil while it has none.
	Model() model.Model
	// CheckpointsOff reports whether checkpoints were turned off.
	CheckpointsOff() bool
	// MCPServerOf says which MCP server and tool a generic call is.
	MCPServerOf(c event.GenericCall) (server, tool string, ok bool)
	// RecordUsage counts, records and reports a judge's call.
	RecordUsage(emit func(event.Event), name string, u model.Usage)
	// ModelName names the conversation's model.
	ModelName() string
	// CheckBudget asks whether a call costing next fits the session's
	// budget, asking the user to raise it when it does not.
	CheckBudget(ctx context.Context, emit func(event.Event), next float64) bool
	Log() *slog.Logger
}

// Merge adds the sets of r to those of into: the first runner's Dir and
// settings stay, and the first Observe given.
func Merge(into, r *hooks.Runner) *hooks.Runner {
	if into == nil || r == nil {
		if r != nil {
			return r
		}
		return into
	}
	merged := *into
	merged.Sets = append(append([]hooks.Set(nil), into.Sets...), r.Sets...)
	if merged.Observe == nil {
		merged.Observe = r.Observe
	}
	return &merged
}

// Hooks runs an agent's hooks at its events; a nil *Hooks runs none.
type Hooks struct {
	a Agent
	r *hooks.Runner
	// tools are the calls as PreToolUse hooks saw them, by correlation id
	// (the first: a cell's own, not its shell commands'), for PostToolUse.
	tools sync.Map
	// before is what PreToolUse hooks said for the model, by correlation
	// id (*texts), for after the call's result.
	before sync.Map
	// context is what SessionStart hooks said, for the first prompt.
	mu      sync.Mutex
	context []string
}

// Wire returns a's hooks of r (nil when r is nil) and gives the approver
// ap the PermissionRequest, Notification and PreToolUse hooks.
func Wire(a Agent, r *hooks.Runner, ap *approval.Approver) *Hooks {
	if r == nil {
		return nil
	}
	h := &Hooks{a: a, r: r}
	if r.Has(hooks.PermissionRequest) || r.Has(hooks.Notification) {
		ap.Asking = func(ctx context.Context, corr string, call event.ToolCall) hooks.Outcome {
			t := hooks.ToolFor(call, a.Dir(), a.MCPServerOf)
			in := h.Input(hooks.PermissionRequest)
			in.ToolName, in.ToolInput, in.ToolUseID = t.Name, t.Input, corr
			o := r.Run(ctx, in)
			o.Tool = t
			if r.Has(hooks.Notification) && o.Decision != hooks.Deny && o.Decision != hooks.Allow {
				// Told, not asked: the question does not wait for it.
				in := h.Input(hooks.Notification)
				in.NotificationType, in.Message = "permission_prompt", "freeact needs your permission to use "+t.Name
				go r.Run(context.WithoutCancel(ctx), in)
			}
			return o
		}
	}
	if !r.Has(hooks.PreToolUse) && !r.Has(hooks.PostToolUse) && !r.Has(hooks.PostToolUseFailure) {
		return h
	}
	ap.PreTool = func(ctx context.Context, corr string, call event.ToolCall) hooks.Outcome {
		t := hooks.ToolFor(call, a.Dir(), a.MCPServerOf)
		_, had := h.tools.LoadOrStore(corr, t)
		if !r.Has(hooks.PreToolUse) {
			return hooks.Outcome{}
		}
		in := h.Input(hooks.PreToolUse)
		in.ToolName, in.ToolInput, in.ToolUseID = t.Name, t.Input, corr
		if d := call.Permission().Dir; d != "" {
			// A shell command runs where the cell had gone.
			in.Cwd = d
		}
		o := r.Run(ctx, in)
		o.Tool = t
		if len(o.Context) > 0 && o.Decision != hooks.Deny {
			v, _ := h.before.LoadOrStore(corr, &texts{})
			v.(*texts).add(o.Context)
		}
		if o.Decision == hooks.Deny && !had {
			// It does not run: no PostToolUse.
			h.tools.Delete(corr)
		}
		return o
	}
	return h
}

// Input is the common part of a hook's input.
func (h *Hooks) Input(ev hooks.Event) hooks.Input {
	a := h.a
	dir := a.Dir()
	in := hooks.Input{HookEventName: ev, Cwd: dir, PermissionMode: "default"}
	if a.SkipPerms() {
		in.PermissionMode = "bypassPermissions"
	}
	if a.Subagent() {
		// A subagent's events name it, as Claude Code's do.
		in.AgentID, in.AgentType = a.ID(), "subagent"
	}
	if id := a.SessionID(); id != "" {
		in.SessionID = id
		in.TranscriptPath = filepath.Join(dir, ".freeact", "sessions", id, a.ID()+".jsonl")
	}
	return in
}

// Run runs ev's hooks (none: a zero Outcome) and shows what they say to
// the user.
func (h *Hooks) Run(ctx context.Context, emit func(event.Event), corr string, in hooks.Input) hooks.Outcome {
	if h == nil || !h.r.Has(in.HookEventName) {
		return hooks.Outcome{}
	}
	o := h.r.Run(ctx, in)
	meta := event.Meta{AgentID: h.a.ID(), CorrelationID: corr}
	for _, m := range o.Messages {
		emit(&event.Notice{Meta: meta, Text: "Hook (" + string(in.HookEventName) + "): " + m})
	}
	if o.Stop {
		text := "A hook stopped the agent"
		if o.StopReason != "" {
			text += ": " + o.StopReason
		}
		emit(&event.Notice{Meta: meta, Text: text})
	}
	return o
}

// Denied is the result the model gets for a call a hook or a deny rule
// denied; ok false when err is neither.
func Denied(err error) (string, bool) {
	if r, ok := err.(*approval.RuleDenied); ok {
		return "Refused without asking: the user's deny rule " + r.Rule + " covers this call. Do not retry it or work around it.", true
	}
	d, ok := err.(*approval.HookDenied)
	if !ok {
		return "", false
	}
	return "A hook blocked this call: " + d.Reason, true
}

// AfterTool runs PostToolUse (or PostToolUseFailure) for the call of
// resp and adds what the hooks say for the model to its output, as plain
// text after it. rejected is the output of a call the user said no to.
func (h *Hooks) AfterTool(ctx context.Context, emit func(event.Event), resp *model.FunctionResponse, rejected string) {
	if h == nil {
		return
	}
	v, ok := h.tools.LoadAndDelete(resp.ID)
	if !ok {
		return
	}
	t := v.(hooks.Tool)
	var before []string
	if b, ok := h.before.LoadAndDelete(resp.ID); ok {
		before = b.(*texts).all()
	}
	if resp.Output == rejected {
		// The user said no: it did not run.
		return
	}
	ev := hooks.PostToolUse
	if resp.IsError {
		ev = hooks.PostToolUseFailure
	}
	in := h.Input(ev)
	in.ToolName, in.ToolInput, in.ToolUseID = t.Name, t.Input, resp.ID
	if resp.IsError {
		in.Error = resp.Output
	} else {
		in.ToolResponse, _ = json.Marshal(map[string]any{"output": resp.Output, "is_error": resp.IsError})
	}
	o := h.Run(ctx, emit, resp.ID, in)
	if len(before) > 0 {
		resp.Output += "\n\n" + Context(before)
	}
	if len(o.Context) > 0 {
		resp.Output += "\n\n" + Context(o.Context)
		emit(&event.HookNote{Meta: event.Meta{AgentID: h.a.ID(), CorrelationID: resp.ID}, Kind: event.HookContext, Event: string(ev), Tool: t.Name, Text: strings.Join(o.Context, "\n")})
	}
}

// MaxStopTurns bounds how often Stop hooks may make one prompt's turn go
// on.
const MaxStopTurns = 3

// Prompt runs the UserPromptSubmit hooks for the prompt text. What they
// (and the SessionStart hooks before the first prompt) say for the model
// goes with the prompt as a part of plain text; false: a hook blocked the
// prompt, which is not sent.
func (h *Hooks) Prompt(ctx context.Context, emit func(event.Event), msg *model.Message, text string) bool {
	if h == nil {
		return true
	}
	h.mu.Lock()
	context := h.context
	h.context = nil
	h.mu.Unlock()
	in := h.Input(hooks.UserPromptSubmit)
	in.Prompt = text
	o := h.Run(ctx, emit, "", in)
	if o.Block || o.Stop {
		emit(&event.Notice{Meta: event.Meta{AgentID: h.a.ID()}, Text: "A hook blocked the prompt; it was not sent."})
		return false
	}
	context = append(context, o.Context...)
	if len(context) > 0 {
		msg.Parts = append(msg.Parts, model.Part{Text: Context(context), User: true})
	}
	return true
}

// Stop runs the Stop hooks after the i-th turn of a prompt (0: its
// first): a hook that blocks the stop returns the message the turn goes
// on with, its reason (at most MaxStopTurns times; stop_hook_active
// tells it it did); nil: the turn stops.
func (h *Hooks) Stop(ctx context.Context, emit func(event.Event), i int) *model.Message {
	if h == nil {
		return nil
	}
	active := i > 0
	in := h.Input(hooks.Stop)
	in.StopHookActive = &active
	o := h.Run(ctx, emit, "", in)
	if !o.Block || o.Stop || i >= MaxStopTurns {
		return nil
	}
	next := model.UserText(Context(o.Context))
	next.Parts[0].User = true
	return &next
}

// Session runs SessionStart, keeping what they say for the model for the
// next prompt, or SessionEnd. source is SessionStart's: "compact" after a
// compaction, as Claude Code says it; "" is "startup" or "resume" by the
// history. What they say for the user goes to the log: no turn shows it.
func (h *Hooks) Session(ctx context.Context, ev hooks.Event, source string) {
	if h == nil || h.a.Subagent() {
		return
	}
	in := h.Input(ev)
	if ev == hooks.SessionStart {
		in.Source = source
		switch {
		case source != "":
		case len(h.a.History()) > 0:
			in.Source = "resume"
		default:
			in.Source = "startup"
		}
	} else {
		in.Reason = "other"
	}
	o := h.r.Run(ctx, in)
	for _, m := range o.Messages {
		h.a.Log().Info("hook", "event", string(ev), "said", m)
	}
	if ev == hooks.SessionStart && len(o.Context) > 0 {
		h.mu.Lock()
		h.context = append(h.context, o.Context...)
		h.mu.Unlock()
	}
}

// Compacted runs SessionStart with source "compact" once a compaction is
// in force, as Claude Code does; what they say for the model goes with
// the next prompt.
func (h *Hooks) Compacted(ctx context.Context) { h.Session(ctx, hooks.SessionStart, "compact") }

// Context is what hooks said for the model, as text that says whose it
// is. It goes into the conversation as plain text (a part the user sent,
// model.Part.User, where it stands alone), never read as the agent's
// notes whatever it imitates.
func Context(texts []string) string {
	return "Hook output:\n" + strings.Join(texts, "\n")
}

// Trust is the record of which workspace hooks the user trusted, in the
// app's state folder of dirs.
func Trust(dirs appdirs.Dirs) *hooks.Trust {
	return &hooks.Trust{File: filepath.Join(dirs.State, hooks.TrustFile)}
}

// Load reads the hooks an agent over dir runs: the user's own and the
// workspace's when the user trusted exactly what it holds. A workspace's
// hooks not (or no longer) trusted are left out, with a warning that
// says how to trust them; a broken hooks file stops the start, so that
// no one's safety hooks are dropped unseen.
func Load(dirs appdirs.Dirs, log *slog.Logger, dir string) (*hooks.Runner, error) {
	sets, st, err := hooks.Load(dirs.Config, dir, Trust(dirs))
	if err != nil {
		return nil, fmt.Errorf("hooks: %w", err)
	}
	if st.Exists && !st.Trusted {
		what := "are not trusted"
		if st.Changed {
			what = "changed since you trusted them"
		}
		log.Warn("the workspace's hooks "+what+" and do not run: review them with `freeact hooks list`, then `freeact hooks trust`", "file", st.Path)
	}
	return &hooks.Runner{Dir: dir, Sets: sets}, nil
}

// AfterCallFromCode runs PostToolUse (or PostToolUseFailure) for an MCP
// tool that code called, under the name a JSON call of it has. What the
// hooks say for the model cannot join a result the code reads: it is
// shown to the user.
func (h *Hooks) AfterCallFromCode(ctx context.Context, emit func(event.Event), corr, server, tool string, args, res json.RawMessage, err error) {
	if h == nil || !h.r.Has(hooks.PostToolUse) && !h.r.Has(hooks.PostToolUseFailure) {
		return
	}
	ev := hooks.PostToolUse
	if err != nil {
		ev = hooks.PostToolUseFailure
	}
	in := h.Input(ev)
	in.ToolName, in.ToolInput, in.ToolUseID = hooks.MCPTool(server, tool), args, corr
	if len(in.ToolInput) == 0 || !json.Valid(in.ToolInput) {
		in.ToolInput = json.RawMessage("{}")
	}
	if err != nil {
		in.Error = err.Error()
	} else if json.Valid(res) {
		in.ToolResponse = res
	}
	o := h.Run(ctx, emit, corr, in)
	if len(o.Context) > 0 {
		emit(&event.HookNote{Meta: event.Meta{AgentID: h.a.ID(), CorrelationID: corr}, Kind: event.HookContext, Event: string(ev), Tool: in.ToolName, Text: strings.Join(o.Context, "\n")})
	}
}

// Subagent runs SubagentStart or SubagentStop for the subagent id
// (agent_type "subagent"). What they say is shown; they decide nothing.
func (h *Hooks) Subagent(ctx context.Context, emit func(event.Event), corr string, ev hooks.Event, id string) {
	if h == nil {
		return
	}
	in := h.Input(ev)
	in.AgentID, in.AgentType = id, "subagent"
	if ev == hooks.SubagentStop {
		active := false
		in.StopHookActive = &active
	}
	h.Run(ctx, emit, corr, in)
}

// Changed says for the model that a hook changed a call's input, and what
// it ran with; "" when ran is tc (or nil).
func Changed(tc, ran event.ToolCall, dir string, mcp func(event.GenericCall) (string, string, bool)) string {
	if ran == nil {
		return ""
	}
	before, after := hooks.ToolFor(tc, dir, mcp), hooks.ToolFor(ran, dir, mcp)
	if string(before.Input) == string(after.Input) {
		return ""
	}
	return "A hook changed this call's input; it ran with: " + string(after.Input)
}

// PreCompact runs the PreCompact hooks before a compaction: trigger
// "manual" for Compact now, "auto" for the others. What they say is shown;
// they decide nothing (Claude Code's PreCompact does not block either).
func (h *Hooks) PreCompact(ctx context.Context, emit func(event.Event), manual bool) {
	if h == nil {
		return
	}
	in := h.Input(hooks.PreCompact)
	in.Trigger = "auto"
	if manual {
		in.Trigger = "manual"
	}
	h.Run(ctx, emit, "", in)
}

// texts gathers what PreToolUse hooks said for the model about a call and
// the shell commands and calls from code inside it.
type texts struct {
	mu    sync.Mutex
	texts []string
}

func (t *texts) add(more []string) {
	t.mu.Lock()
	t.texts = append(t.texts, more...)
	t.mu.Unlock()
}

func (t *texts) all() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.texts...)
}
