// Package approval owns asking for approvals on behalf of one agent: the
// permission rules of its conversation answer at once where they can,
// otherwise an ApprovalRequest goes out and its answer is applied (a
// saved rule, a session grant).
package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/hooks"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/permission"
)

// ErrTimeout is the cause of a programmatic call whose approval did
// not come within approval_timeout.
var ErrTimeout = errors.New("approval timed out")

// Approver asks for approvals on behalf of one agent: it consults the
// permission rules of the agent's conversation, emits requests and saves
// Always rules and Session grants.
type Approver struct {
	Perm    *permission.Conversation // nil: every call is asked
	SkipAll bool                     // approve everything without asking
	AgentID string
	// protectedYes counts the writes of protected files the user approved
	// (see Agent.guarded); saved is called after a rule was saved to the
	// permissions file. Both may be nil.
	ProtectedYes *atomic.Int64
	Saved        func()
	// began holds when each call (by correlation id) was let run, the
	// start of the time its result reports (Agent.result), and under
	// badgeKey who let it run without a click (Badge); nil keeps none.
	Began *sync.Map
	// PreTool runs the PreToolUse hooks for a call and returns what they
	// decided; nil when there are none. See askHooks.
	PreTool func(ctx context.Context, corr string, call event.ToolCall) hooks.Outcome
	// Asking runs the PermissionRequest hooks (and, without waiting, the
	// Notification hooks) when a call is about to be asked; nil when there
	// are none. See askPermissionHooks.
	Asking func(ctx context.Context, corr string, call event.ToolCall) hooks.Outcome
	// State holds the conversation's approval mode and auto mode's state;
	// nil is Rules mode.
	State *State
}

// mode is the approval mode now.
func (ap *Approver) mode() Mode {
	if ap.State == nil {
		return Rules
	}
	return ap.State.Mode()
}

// trust records that a call of call's MCP server was let run.
func (ap *Approver) trust(call event.ToolCall) {
	if g, ok := call.(event.GenericCall); ok && ap.State != nil {
		ap.State.Trust(g.Server)
	}
}

// HookDenied is the cause of a call a PreToolUse hook denied: Reason is
// what the hook said, for the model.
type HookDenied struct{ Reason string }

func (e *HookDenied) Error() string { return "a hook blocked this call: " + e.Reason }

// RuleDenied is the cause of a call a saved deny rule refused without
// asking: the model is told so, and the turn goes on.
type RuleDenied struct{ Rule string }

func (e *RuleDenied) Error() string {
	return "the deny rule " + e.Rule + " in .freeact/permissions.json refuses this call"
}

// errStopped stands for a "no" from a hook that stopped the agent
// (continue: false); AskEditable turns it into one.
var errStopped = errors.New("a hook stopped the agent")

// Ask returns whether call may run. Rules that allow it answer at once (an
// AutoApproved event says so, so the call is shown all the same);
// otherwise an ApprovalRequest goes out through emit and ask waits for its
// answer, for ctx, or for timeout (zero: no limit). A call that is not
// approved returns false and, for a timeout, ErrTimeout.
func (ap *Approver) Ask(ctx context.Context, emit func(event.Event), corr string, call event.ToolCall, timeout time.Duration) (bool, error) {
	ok, _, err := ap.AskEditable(ctx, emit, corr, call, timeout)
	return ok, err
}

// AskEditable is Ask for a call whose approval may bring an edited version
// (a code action's cell, ApprovalRequest.Edit): edited is it, "" when the
// call runs as it is.
func (ap *Approver) AskEditable(ctx context.Context, emit func(event.Event), corr string, call event.ToolCall, timeout time.Duration) (ok bool, edited string, err error) {
	return ap.ask(ctx, emit, corr, call, timeout, nil)
}

// AskCall is Ask that also returns the call to run: call itself, or call
// as a PreToolUse hook's updatedInput changed it (the approval showed that
// one). The caller runs what it gets back.
func (ap *Approver) AskCall(ctx context.Context, emit func(event.Event), corr string, call event.ToolCall, timeout time.Duration) (ok bool, run event.ToolCall, err error) {
	run = call
	ok, _, err = ap.ask(ctx, emit, corr, call, timeout, &run)
	return ok, run, err
}

func (ap *Approver) ask(ctx context.Context, emit func(event.Event), corr string, call event.ToolCall, timeout time.Duration, run *event.ToolCall) (ok bool, edited string, err error) {
	var auto *model.Approved
	emit = keepBadge(emit, corr, &auto)
	defer func() {
		// The first approval of a call starts its time: a shell command
		// asked from inside a cell is part of the cell's. Who let it run
		// without a click is kept for its record (Badge).
		if ok && ap.Began != nil {
			if _, later := ap.Began.LoadOrStore(corr, time.Now()); !later && auto != nil {
				ap.Began.Store(badgeKey{corr}, auto)
			}
		}
	}()
	pc := call.Permission()
	meta := event.Meta{AgentID: ap.AgentID, CorrelationID: corr}
	mode := ap.mode()
	var verdict permission.Verdict
	if ap.Perm != nil {
		verdict = ap.Perm.Evaluate(pc)
	}
	// A deny rule wins in every mode, over hooks and over SkipAll: it only
	// ever refuses. It is checked again on a call a hook's updatedInput
	// changed, since the rules were asked again about that one.
	refuse := func() (bool, string, error) {
		denied := &RuleDenied{Rule: verdict.Rule.Pattern()}
		emit(&event.Notice{Meta: meta, Text: "Refused without asking by the deny rule " + denied.Rule + " (Settings → Permissions)"})
		return false, "", denied
	}
	if verdict.Decision == permission.Deny {
		return refuse()
	}
	hook, err := ap.askHooks(ctx, emit, meta, &call, &verdict)
	if run != nil {
		*run = call
	}
	pc = call.Permission()
	switch {
	case err == nil && verdict.Decision == permission.Deny:
		return refuse()
	case errors.Is(err, errStopped):
		return false, "", nil
	case err != nil:
		return false, "", err
	case hook.allowed && mode != Ask:
		// A hook's allow skips only what a rule could; in Ask mode no
		// rule does.
		return true, hook.code, nil
	}
	if ap.SkipAll && hook.ask == "" {
		emit(&event.AutoApproved{Meta: meta, ToolCall: call, Display: event.Display(call), By: event.BySkip})
		return true, hook.code, nil
	}
	if ap.Perm != nil && hook.ask == "" && mode != Ask {
		if verdict.Decision == permission.Allow {
			ap.trust(call)
			by := event.ByRule
			if verdict.Scope == permission.Session {
				by = event.BySession
			}
			emit(&event.AutoApproved{Meta: meta, ToolCall: call, Display: event.Display(call), By: by, Rule: verdict.Rule.Pattern()})
			return true, hook.code, nil
		}
	}
	var judged decision
	// Auto mode: deny and ask rules came first (an ask rule, a file an
	// ask rule covers, a protected file all ask); then the structural
	// layer, then the judge.
	// A hook that asks is asked.
	if mode == Auto && hook.ask == "" && !verdict.Protected && verdict.Decision != permission.Ask && verdict.Reason == "" {
		judged = ap.State.decide(ctx, emit, call, rulesTrust(ap.Perm))
		if judged.by != "" {
			emit(&event.AutoApproved{Meta: meta, ToolCall: call, Display: event.Display(call), By: judged.by, Reason: judged.reason})
			return true, hook.code, nil
		}
		if judged.paused {
			emit(&event.Notice{Meta: event.Meta{AgentID: ap.AgentID}, Text: pausedText})
		}
	}
	suggested := permission.SuggestPattern(pc)
	switch {
	case verdict.Protected:
		suggested = ""
	case ap.Perm != nil:
		suggested = ap.Perm.Suggest(pc)
	}
	req := event.NewApprovalRequest(meta, call, suggested)
	req.Reason, req.Protected = verdict.Reason, verdict.Protected
	if judged.label != "" {
		req.Reason, req.Judge = judged.reason, judged.label
	}
	if hook.ask != "" {
		req.Reason = strings.TrimSpace(hook.ask + "\n" + req.Reason)
	}
	if !req.Protected {
		req.NoAlways = noAlways(call)
	}
	if ran, ok, err := ap.askPermissionHooks(ctx, emit, meta, call, verdict, req); ran {
		return ok, hook.code, err
	}
	emit(req)
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case ans := <-req.Answered():
		if err := ctx.Err(); err != nil {
			// The turn ended while the answer came: nothing runs any more.
			return false, "", err
		}
		ok, err := ap.apply(req, ans, emit)
		return ok, hook.edited(ans.Code), err
	case <-ctx.Done():
		// Resolve it as rejected so that a late answer is ignored; an answer
		// that came just now is too late as well.
		req.Answer(event.Reject, "")
		<-req.Answered()
		return false, "", ctx.Err()
	case <-expired:
		if req.Answer(event.Reject, "") {
			<-req.Answered()
			return false, "", ErrTimeout
		}
		ans := <-req.Answered()
		ok, err := ap.apply(req, ans, emit)
		return ok, hook.edited(ans.Code), err
	}
}

// NoAlwaysDestructive is ApprovalRequest.NoAlways for a tool its server
// marks destructive.
const NoAlwaysDestructive = "The server marks this tool destructive, so no lasting rule is offered: allow it once or for this session. " +
	"A rule for it can still be written in Settings → Permissions (.freeact/permissions.json)."

// noAlways is ApprovalRequest.NoAlways for call: why no lasting rule is
// offered, "" when one is. The server's annotations only ever take the
// offer away; they never allow a call.
func noAlways(call event.ToolCall) string {
	if g, ok := call.(event.GenericCall); ok && g.Hints.IsDestructive() {
		return NoAlwaysDestructive
	}
	return ""
}

// apply carries out an answer: an Always answer saves a rule (a Session
// grant for a call whose request offers none, NoAlways), a Session
// answer adds a grant to the conversation and reports its grants.
func (ap *Approver) apply(req *event.ApprovalRequest, ans event.Answer, emit func(event.Event)) (bool, error) {
	if ans.Decision == event.Never {
		ap.deny(req, ans, emit)
		return false, nil
	}
	if ans.Decision == event.Reject {
		return false, nil
	}
	ap.trust(req.ToolCall)
	if req.Protected && ap.ProtectedYes != nil {
		ap.ProtectedYes.Add(1)
	}
	if ans.Decision == event.Once || ap.Perm == nil || req.Protected {
		return true, nil
	}
	pattern := ans.Pattern
	if pattern == "" {
		pattern = req.Suggested
	}
	rule := permission.ParsePattern(pattern, req.ToolCall.Permission())
	scope := permission.Session
	if ans.Decision == event.Always && req.NoAlways == "" {
		scope = permission.Always
	}
	if err := ap.Perm.Add(scope, false, rule); err != nil {
		// The call itself was approved; only the rule could not be kept.
		return true, fmt.Errorf("save permission rule %s: %w", rule, err)
	}
	if scope == permission.Always && ap.Saved != nil {
		ap.Saved()
	}
	if scope == permission.Session {
		emit(&event.SessionGrants{Meta: event.Meta{AgentID: ap.AgentID}, Grants: ap.Perm.Grants().Allow})
	}
	return true, nil
}

// deny saves the deny rule of a Never answer (the request's suggestion
// unless the answer brings its own pattern). A protected call saves none:
// its answer is a plain no. A rule that cannot be saved is reported; the
// call is refused all the same.
func (ap *Approver) deny(req *event.ApprovalRequest, ans event.Answer, emit func(event.Event)) {
	if ap.Perm == nil || req.Protected {
		return
	}
	pattern := ans.Pattern
	if pattern == "" {
		pattern = req.Suggested
	}
	if pattern == "" {
		return
	}
	rule := permission.ParsePattern(pattern, req.ToolCall.Permission())
	if err := ap.Perm.Manager().DenyAlways(rule); err != nil {
		emit(&event.Notice{Meta: event.Meta{AgentID: ap.AgentID}, Text: fmt.Sprintf("The deny rule %s could not be saved: %v", rule, err)})
		return
	}
	if ap.Saved != nil {
		ap.Saved()
	}
}

// hookAnswer is what the PreToolUse hooks made of a call.
type hookAnswer struct {
	// allowed: a hook allowed the call where a rule could have, so it
	// runs without asking.
	allowed bool
	// ask is why the call goes to the user although a rule may allow it:
	// a hook asked, failed, or wanted a change freeact cannot make.
	ask string
	// code is a code action's cell as a hook changed it; "" unchanged.
	code string
}

// edited is the code that runs after the user's answer: the user's edit,
// else the hook's.
func (h hookAnswer) edited(user string) string {
	if user != "" {
		return user
	}
	return h.code
}

// askHooks runs the PreToolUse hooks for *call. A deny is returned as a
// *HookDenied error (the call does not run; the model is told why). An
// updatedInput replaces *call (hooks.Apply: a code action's code, an MCP
// call's arguments, a file write's content or an edit's texts), so the
// approval shows what will run and the rules' *verdict is taken anew for
// it; a change freeact cannot make sends the call to the user unchanged.
// An allow lets the call run without asking only where a permission rule
// could have (RuleCould); a failed hook or an ask sends it to the user with
// the reason. A call runs neither silently nor is it denied silently
// because a hook broke. What the hooks did to the call is told as a
// HookNote.
func (ap *Approver) askHooks(ctx context.Context, emit func(event.Event), meta event.Meta, call *event.ToolCall, verdict *permission.Verdict) (hookAnswer, error) {
	if ap.PreTool == nil {
		return hookAnswer{}, nil
	}
	o := ap.PreTool(ctx, meta.CorrelationID, *call)
	if !o.Ran() {
		return hookAnswer{}, nil
	}
	reasons := strings.Join(o.Reasons, "\n")
	for _, m := range o.Messages {
		emit(&event.Notice{Meta: meta, Text: "Hook: " + m})
	}
	if o.Stop {
		// continue: false stops the agent: the call is refused as a "no"
		// is, which ends the turn.
		text := "A hook stopped the agent"
		if o.StopReason != "" {
			text += ": " + o.StopReason
		}
		emit(&event.Notice{Meta: meta, Text: text})
		return hookAnswer{}, errStopped
	}
	tool := o.Tool.Name
	if tool == "" {
		tool = (*call).Name()
	}
	if o.Decision == hooks.Deny {
		if reasons == "" {
			reasons = "no reason given"
		}
		emit(&event.HookNote{Meta: meta, Kind: event.HookBlocked, Event: string(hooks.PreToolUse), Tool: tool, Text: reasons})
		return hookAnswer{}, &HookDenied{Reason: reasons}
	}
	if len(o.Context) > 0 {
		// The model gets it after the call's result (agent/hookwire.go).
		emit(&event.HookNote{Meta: meta, Kind: event.HookContext, Event: string(hooks.PreToolUse), Tool: tool, Text: strings.Join(o.Context, "\n")})
	}
	var h hookAnswer
	decision := o.Decision
	if len(o.UpdatedInput) > 0 {
		changed, err := hooks.Apply(*call, o.Tool, o.UpdatedInput)
		switch {
		case err != nil:
			decision = hooks.Ask
			reasons = strings.TrimSpace(reasons + "\nA hook asked to change this call's input, which freeact cannot do (" + err.Error() + "); if you approve, it runs as shown.")
		case !sameCall(changed, *call):
			if ca, ok := changed.(event.CodeAction); ok {
				h.code = ca.Code
			}
			*call = changed
			if ap.Perm != nil {
				*verdict = ap.Perm.Evaluate(changed.Permission())
			}
			reasons = strings.TrimSpace(reasons + "\nA hook changed the input; what is shown is what will run.")
			emit(&event.HookNote{Meta: meta, Kind: event.HookChanged, Event: string(hooks.PreToolUse), Tool: tool,
				Text: strings.Join(o.Reasons, "\n"), Input: string(o.UpdatedInput)})
		}
	}
	switch decision {
	case hooks.Allow:
		if hooks.RuleCould(*verdict, *call) {
			emit(&event.AutoApproved{Meta: meta, ToolCall: *call, Display: event.Display(*call), By: event.ByHook, Rule: reasons})
			h.allowed = true
			return h, nil
		}
	case hooks.Ask:
		if reasons == "" {
			reasons = "no reason given"
		}
		h.ask = "Hook: " + reasons
	}
	return h, nil
}

// sameCall reports whether a and b are the same call.
func sameCall(a, b event.ToolCall) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// askPermissionHooks runs the PermissionRequest hooks for a call about to
// be asked. A deny ends it (ran, a *HookDenied error); an allow answers
// it without asking where a rule could have (ran, ok); anything else
// (no opinion, a failure, a wish to change the input) leaves the question
// to the user, with the hooks' reasons added to req.Reason.
func (ap *Approver) askPermissionHooks(ctx context.Context, emit func(event.Event), meta event.Meta, call event.ToolCall, verdict permission.Verdict, req *event.ApprovalRequest) (ran, ok bool, err error) {
	if ap.Asking == nil {
		return false, false, nil
	}
	o := ap.Asking(ctx, meta.CorrelationID, call)
	if !o.Ran() {
		return false, false, nil
	}
	for _, m := range o.Messages {
		emit(&event.Notice{Meta: meta, Text: "Hook: " + m})
	}
	reasons := strings.Join(o.Reasons, "\n")
	switch {
	case o.Decision == hooks.Deny:
		if reasons == "" {
			reasons = "no reason given"
		}
		tool := o.Tool.Name
		if tool == "" {
			tool = call.Name()
		}
		emit(&event.HookNote{Meta: meta, Kind: event.HookBlocked, Event: string(hooks.PermissionRequest), Tool: tool, Text: reasons})
		return true, false, &HookDenied{Reason: reasons}
	case o.Decision == hooks.Allow && len(o.UpdatedInput) == 0 && hooks.RuleCould(verdict, call):
		emit(&event.AutoApproved{Meta: meta, ToolCall: call, Display: event.Display(call), By: event.ByHook, Rule: reasons})
		return true, true, nil
	}
	if len(o.UpdatedInput) > 0 {
		reasons = strings.TrimSpace(reasons + "\nA hook asked to change this call's input, which a permission hook cannot do in freeact; if you approve, it runs as shown.")
	}
	if reasons != "" {
		req.Reason = strings.TrimSpace("Hook: " + reasons + "\n" + req.Reason)
	}
	return false, false, nil
}

// badgeKey keys, in Approver.Began, who let a call run without a click.
type badgeKey struct{ corr string }

// keepBadge is emit that also keeps, in *auto, who an AutoApproved of
// the call corr says let it run.
func keepBadge(emit func(event.Event), corr string, auto **model.Approved) func(event.Event) {
	return func(ev event.Event) {
		if a, ok := ev.(*event.AutoApproved); ok && a.CorrelationID == corr && *auto == nil {
			*auto = &model.Approved{By: a.By, Reason: a.Reason, Rule: a.Rule}
		}
		emit(ev)
	}
}

// Badge returns, and forgets, who let the call corr run without a click:
// nil when the user approved it, or it never ran. The call's record
// keeps it, so that a resumed conversation shows the badge again.
func (ap *Approver) Badge(corr string) *model.Approved {
	if ap.Began == nil {
		return nil
	}
	if a, ok := ap.Began.LoadAndDelete(badgeKey{corr}); ok {
		return a.(*model.Approved)
	}
	return nil
}
