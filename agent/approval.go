package agent

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

// errApprovalTimeout is the cause of a programmatic call whose approval did
// not come within approval_timeout.
var errApprovalTimeout = errors.New("approval timed out")

// approver asks for approvals on behalf of one agent: it consults the
// permission rules of the agent's conversation, emits requests and saves
// Always rules and Session grants.
type approver struct {
	perm    *permission.Conversation // nil: every call is asked
	skipAll bool                     // approve everything without asking
	agentID string
	// protectedYes counts the writes of protected files the user approved
	// (see Agent.guarded); saved is called after a rule was saved to the
	// permissions file. Both may be nil.
	protectedYes *atomic.Int64
	saved        func()
	// began holds when each call (by correlation id) was let run, the
	// start of the time its result reports (Agent.result); nil keeps none.
	began *sync.Map
}

// ask returns whether call may run. Rules that allow it answer at once (an
// AutoApproved event says so, so the call is shown all the same);
// otherwise an ApprovalRequest goes out through emit and ask waits for its
// answer, for ctx, or for timeout (zero: no limit). A call that is not
// approved returns false and, for a timeout, errApprovalTimeout.
func (ap *approver) ask(ctx context.Context, emit func(Event), corr string, call ToolCall, timeout time.Duration) (bool, error) {
	ok, _, err := ap.askEditable(ctx, emit, corr, call, timeout)
	return ok, err
}

// askEditable is ask for a call whose approval may bring an edited version
// (a code action's cell, ApprovalRequest.Edit): edited is it, "" when the
// call runs as it is.
func (ap *approver) askEditable(ctx context.Context, emit func(Event), corr string, call ToolCall, timeout time.Duration) (ok bool, edited string, err error) {
	defer func() {
		// The first approval of a call starts its time: a shell command
		// asked from inside a cell is part of the cell's.
		if ok && ap.began != nil {
			ap.began.LoadOrStore(corr, time.Now())
		}
	}()
	pc := call.Permission()
	meta := Meta{AgentID: ap.agentID, CorrelationID: corr}
	if ap.skipAll {
		emit(&AutoApproved{Meta: meta, ToolCall: call, Display: event.Display(call), By: BySkip})
		return true, "", nil
	}
	var verdict permission.Verdict
	if ap.perm != nil {
		if verdict = ap.perm.Evaluate(pc); verdict.Decision == permission.Allow {
			by := ByRule
			if verdict.Scope == permission.Session {
				by = BySession
			}
			emit(&AutoApproved{Meta: meta, ToolCall: call, Display: event.Display(call), By: by, Rule: verdict.Rule.Pattern()})
			return true, "", nil
		}
	}
	suggested := permission.SuggestPattern(pc)
	switch {
	case verdict.Protected:
		suggested = ""
	case ap.perm != nil:
		suggested = ap.perm.Suggest(pc)
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
		req.Answer(Reject, "")
		<-req.Answered()
		return false, "", ctx.Err()
	case <-expired:
		if req.Answer(Reject, "") {
			<-req.Answered()
			return false, "", errApprovalTimeout
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
func noAlways(call ToolCall) string {
	if g, ok := call.(GenericCall); ok && g.Hints.IsDestructive() {
		return NoAlwaysDestructive
	}
	return ""
}

// apply carries out an answer: an Always answer saves a rule (a Session
// grant for a call whose request offers none, NoAlways), a Session
// answer adds a grant to the conversation and reports its grants.
func (ap *approver) apply(req *ApprovalRequest, ans event.Answer, emit func(Event)) (bool, error) {
	if ans.Decision == Reject {
		return false, nil
	}
	if req.Protected && ap.protectedYes != nil {
		ap.protectedYes.Add(1)
	}
	if ans.Decision == Once || ap.perm == nil || req.Protected {
		return true, nil
	}
	pattern := ans.Pattern
	if pattern == "" {
		pattern = req.Suggested
	}
	rule := permission.ParsePattern(pattern, req.ToolCall.Permission())
	scope := permission.Session
	if ans.Decision == Always && req.NoAlways == "" {
		scope = permission.Always
	}
	if err := ap.perm.Add(scope, false, rule); err != nil {
		// The call itself was approved; only the rule could not be kept.
		return true, fmt.Errorf("save permission rule %s: %w", rule, err)
	}
	if scope == permission.Always && ap.saved != nil {
		ap.saved()
	}
	if scope == permission.Session {
		emit(&SessionGrants{Meta: Meta{AgentID: ap.agentID}, Grants: ap.perm.Grants().Allow})
	}
	return true, nil
}
