// Package approval owns asking for approvals on behalf of one agent: the
// permission rules of its conversation answer at once where they can,
// otherwise an ApprovalRequest goes out and its answer is applied (a
// saved rule, a session grant).
package approval

import (
	"context"
	"errors"
	"fmt"
	"github.com/freeact/desktop/agent/event"
	"sync"
	"sync/atomic"
	"time"

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
	// Mode says whether Perm's rules may allow a call (nil: ByRules).
	Mode    *ModeSwitch
	AgentID string
	// protectedYes counts the writes of protected files the user approved
	// (see Agent.guarded); saved is called after a rule was saved to the
	// permissions file. Both may be nil.
	ProtectedYes *atomic.Int64
	Saved        func()
	// began holds when each call (by correlation id) was let run, the
	// start of the time its result reports (Agent.result); nil keeps none.
	Began *sync.Map
}

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
	defer func() {
		// The first approval of a call starts its time: a shell command
		// asked from inside a cell is part of the cell's.
		if ok && ap.Began != nil {
			ap.Began.LoadOrStore(corr, time.Now())
		}
	}()
	pc := call.Permission()
	meta := event.Meta{AgentID: ap.AgentID, CorrelationID: corr}
	if ap.SkipAll {
		emit(&event.AutoApproved{Meta: meta, ToolCall: call, Display: event.Display(call), By: event.BySkip})
		return true, "", nil
	}
	var verdict permission.Verdict
	if ap.Perm != nil {
		if verdict = ap.Perm.Evaluate(pc); verdict.Decision == permission.Allow && ap.Mode.Get() != AskAll {
			by := event.ByRule
			if verdict.Scope == permission.Session {
				by = event.BySession
			}
			emit(&event.AutoApproved{Meta: meta, ToolCall: call, Display: event.Display(call), By: by, Rule: verdict.Rule.Pattern()})
			return true, "", nil
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
	if !req.Protected {
		req.NoAlways = noAlways(call)
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
		return ok, ans.Code, err
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
		return ok, ans.Code, err
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
	if ans.Decision == event.Reject {
		return false, nil
	}
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
