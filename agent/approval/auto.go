package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/permission"
)

// Structure is what bounds and undoes an action right now: the kernel's
// sandbox (no network, writes only in the workspace, secrets unreadable)
// and checkpoints (every change can be reverted).
type Structure struct {
	Sandbox     bool
	Checkpoints bool
}

// Judge decides, for auto mode, a call the rules and the structural layer
// leave open. It sees only the user's own messages and the call; see
// package judge.
type Judge interface {
	Judge(ctx context.Context, call event.ToolCall) (JudgeVerdict, error)
}

// JudgeVerdict is a judge's answer: Allow, or ask the user for Reason.
// Model and Usage say what the call cost; a judge sets them even when it
// fails after the model answered.
type JudgeVerdict struct {
	Allow  bool
	Reason string
	Model  string
	Usage  *model.Usage
}

// The breaker: after BreakerInRow "ask" verdicts in a row, or
// BreakerTotal in a conversation, auto mode pauses until it is turned on
// again.
const (
	BreakerInRow = 3
	BreakerTotal = 20
)

// DefaultJudgeTimeout bounds a judge's answer when State.Timeout is zero.
const DefaultJudgeTimeout = 30 * time.Second

// Labels of an ApprovalRequest that auto mode sends to the user
// (ApprovalRequest.Judge).
const (
	// JudgeAsked: the judge answered "ask"; Reason is its reason.
	JudgeAsked = "ask"
	// JudgeFailed: the judge did not answer (timeout, error, outage,
	// unparsable verdict); the call is the user's to decide, not denied.
	JudgeFailed = "failed"
	// JudgePaused: the breaker paused auto mode.
	JudgePaused = "paused"
)

// State is the approval mode of one conversation and, in auto mode, its
// state: the servers the user trusts, the judge's verdicts and the
// breaker. Its zero value is Rules mode with no judge. Safe for
// concurrent use.
type State struct {
	// Structure reports the sandbox and checkpoints as they are now; nil
	// counts both as off.
	Structure func() Structure
	// Judge decides what the structural layer leaves open; nil asks the
	// user for all of it.
	Judge Judge
	// Timeout bounds one judge call (zero: DefaultJudgeTimeout).
	Timeout time.Duration
	// Usage, if set, counts a judge call's tokens and cost (a line of its
	// own in the usage: event.Usage.Judge).
	Usage func(emit func(event.Event), modelName string, u model.Usage)
	// Budget, if set, is asked before each judge call whether the
	// session's budget (max_cost_per_session) allows it; it may ask the
	// user through emit. When it does not, the judge is not asked and the
	// call goes to the user, labelled JudgeFailed with why.
	Budget func(ctx context.Context, emit func(event.Event), call event.ToolCall) (ok bool, why string)

	mu       sync.Mutex
	mode     Mode
	paused   bool
	trusted  map[string]bool
	verdicts map[string]JudgeVerdict
	inRow    int
	total    int
}

// Mode returns the conversation's approval mode.
func (au *State) Mode() Mode {
	au.mu.Lock()
	defer au.mu.Unlock()
	return au.mode
}

// Paused reports whether the breaker paused auto mode.
func (au *State) Paused() bool {
	au.mu.Lock()
	defer au.mu.Unlock()
	return au.paused
}

// SetMode sets the approval mode. Turning auto mode on (again) resets the
// breaker.
func (au *State) SetMode(m Mode) {
	au.mu.Lock()
	defer au.mu.Unlock()
	au.mode = m
	if m == Auto {
		au.paused, au.inRow, au.total = false, 0, 0
	}
}

// Trust records that the user (or a rule) let a call of server run in
// this conversation: its read-only tools run without asking in auto mode.
func (au *State) Trust(server string) {
	if server == "" {
		return
	}
	au.mu.Lock()
	defer au.mu.Unlock()
	if au.trusted == nil {
		au.trusted = map[string]bool{}
	}
	au.trusted[server] = true
}

func (au *State) trusts(server string) bool {
	au.mu.Lock()
	defer au.mu.Unlock()
	return au.trusted[server]
}

// Structural is the structural layer alone: who lets call run without
// asking (event.BySandbox, event.ByReadOnly), "" when the layer leaves it
// open. It never allows anything without the sandbox, and never a write
// outside the workspace. trusted says whether a saved rule or the user's
// earlier choice trusts an MCP server.
func Structural(call event.ToolCall, s Structure, trusted func(server string) bool) string {
	switch c := call.(type) {
	case event.CodeAction, event.ShellAction:
		// The sandbox bounds the cell and every process it starts; undo
		// takes back what it changed in the workspace.
		if s.Sandbox && s.Checkpoints {
			return event.BySandbox
		}
	case event.FileWrite:
		if s.Sandbox && s.Checkpoints && inWorkspace(c.Path) {
			return event.BySandbox
		}
	case event.FileEdit:
		if s.Sandbox && s.Checkpoints && inWorkspace(c.Path) {
			return event.BySandbox
		}
	case event.GenericCall:
		// A server's hint alone never allows a call: only where the
		// server is trusted already, and only with the sandbox on.
		if s.Sandbox && c.Hints != nil && c.Hints.ReadOnly != nil && *c.Hints.ReadOnly &&
			c.Server != "" && trusted != nil && trusted(c.Server) {
			return event.ByReadOnly
		}
	}
	return ""
}

// inWorkspace reports whether p, a path as file calls carry it
// (workspace-relative inside the workspace, absolute outside), is inside
// the workspace.
func inWorkspace(p string) bool {
	if p == "" || filepath.IsAbs(p) || strings.HasPrefix(p, "~") {
		return false
	}
	c := filepath.Clean(p)
	return c != ".." && !strings.HasPrefix(c, "../")
}

// decision is auto mode's answer for a call the rules leave open: by and
// reason for an AutoApproved event, or label and reason for the
// ApprovalRequest that goes to the user.
type decision struct {
	by, reason string
	label      string
	paused     bool // the breaker tripped on this call
}

// decide runs the structural layer, then the judge.
func (au *State) decide(ctx context.Context, emit func(event.Event), call event.ToolCall, rulesTrust func(string) bool) decision {
	s := Structure{}
	if au.Structure != nil {
		s = au.Structure()
	}
	trusted := func(server string) bool { return au.trusts(server) || (rulesTrust != nil && rulesTrust(server)) }
	if by := Structural(call, s, trusted); by != "" {
		return decision{by: by}
	}
	if au.Paused() {
		return decision{label: JudgePaused, reason: pausedText}
	}
	if au.Judge == nil {
		return decision{label: JudgeFailed, reason: "Auto mode has no judge for this call, so it is yours to decide. This is not a denial."}
	}
	key := actionKey(call)
	au.mu.Lock()
	v, seen := au.verdicts[key]
	au.mu.Unlock()
	if !seen && au.Budget != nil {
		if ok, why := au.Budget(ctx, emit, call); !ok {
			return decision{label: JudgeFailed, reason: "Auto mode's judge was not asked: " + why + " So this is yours to decide. This is not a denial."}
		}
	}
	if !seen {
		timeout := au.Timeout
		if timeout <= 0 {
			timeout = DefaultJudgeTimeout
		}
		jctx, cancel := context.WithTimeout(ctx, timeout)
		var err error
		v, err = au.Judge.Judge(jctx, call)
		cancel()
		if v.Usage != nil && au.Usage != nil {
			au.Usage(emit, v.Model, *v.Usage)
		}
		if err != nil {
			if ctx.Err() != nil {
				return decision{label: JudgeFailed, reason: "The turn ended before the judge answered."}
			}
			what := err.Error()
			if errors.Is(err, context.DeadlineExceeded) {
				what = fmt.Sprintf("no verdict within %s", timeout)
			}
			return decision{label: JudgeFailed, reason: "Auto mode's judge failed (" + what + "), so this is yours to decide. This is not a denial."}
		}
		au.mu.Lock()
		if au.verdicts == nil {
			au.verdicts = map[string]JudgeVerdict{}
		}
		au.verdicts[key] = v
		au.mu.Unlock()
	}
	if v.Allow {
		au.mu.Lock()
		au.inRow = 0
		au.mu.Unlock()
		return decision{by: event.ByJudge, reason: v.Reason}
	}
	au.mu.Lock()
	au.inRow++
	au.total++
	tripped := !au.paused && (au.inRow >= BreakerInRow || au.total >= BreakerTotal)
	if tripped {
		au.paused = true
	}
	au.mu.Unlock()
	return decision{label: JudgeAsked, reason: "Auto mode's judge asks: " + v.Reason, paused: tripped}
}

const pausedText = "Auto mode is paused: its judge asked too often. Turn auto mode on again to resume it."

// actionKey identifies an action for the judge's verdict cache: its type
// and everything the judge sees of it.
func actionKey(call event.ToolCall) string {
	b, err := json.Marshal(call)
	if err != nil {
		return ""
	}
	return event.TypeName(call) + "\x00" + string(b)
}

// rulesTrust reports whether a saved rule or a grant of conv allows some
// tool of server: such a server is trusted for its read-only tools.
func rulesTrust(conv *permission.Conversation) func(string) bool {
	if conv == nil {
		return nil
	}
	return func(server string) bool {
		rules := append(conv.Manager().Rules().Allow, conv.Grants().Allow...)
		for _, r := range rules {
			if r.Type == permission.TypeGenericCall && strings.HasPrefix(r.ToolName, server+"_") {
				return true
			}
		}
		return false
	}
}
