package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Input is what a handler gets, as Claude Code sends it: the common fields
// and those of its event. Fields an event does not have are left out.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	PermissionMode string `json:"permission_mode,omitempty"`
	HookEventName  Event  `json:"hook_event_name"`

	// Tool events.
	ToolName     string          `json:"tool_name,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	// PostToolUseFailure: what went wrong.
	Error string `json:"error,omitempty"`

	// UserPromptSubmit.
	Prompt string `json:"prompt,omitempty"`
	// SessionStart: startup, resume, clear or compact.
	Source string `json:"source,omitempty"`
	// SessionEnd: why it ended.
	Reason string `json:"reason,omitempty"`
	// Stop and SubagentStop: a Stop hook already made the turn go on.
	StopHookActive *bool `json:"stop_hook_active,omitempty"`
	// Notification.
	Message          string `json:"message,omitempty"`
	NotificationType string `json:"notification_type,omitempty"`
	// PreCompact: manual or auto, and the user's instructions.
	Trigger            string `json:"trigger,omitempty"`
	CustomInstructions string `json:"custom_instructions,omitempty"`
	// SubagentStart and SubagentStop.
	AgentID   string `json:"agent_id,omitempty"`
	AgentType string `json:"agent_type,omitempty"`
}

// subject is what an event's matchers are matched against.
func (in Input) subject() string {
	switch in.HookEventName {
	case PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest:
		return in.ToolName
	case SessionStart:
		return in.Source
	case SessionEnd:
		return in.Reason
	case PreCompact:
		return in.Trigger
	case Notification:
		return in.NotificationType
	case SubagentStart, SubagentStop:
		return in.AgentType
	}
	return ""
}

// Output is a handler's JSON answer (exit 0), in Claude Code's fields.
type Output struct {
	// Continue false stops the agent after this event (StopReason says why,
	// to the user).
	Continue       *bool  `json:"continue,omitempty"`
	StopReason     string `json:"stopReason,omitempty"`
	SuppressOutput bool   `json:"suppressOutput,omitempty"`
	SystemMessage  string `json:"systemMessage,omitempty"`
	// Decision "block" (with Reason) blocks a prompt, makes a Stop go on,
	// or tells the model after a tool ran; "approve" is the older form of
	// a PreToolUse allow.
	Decision string          `json:"decision,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	Specific *SpecificOutput `json:"hookSpecificOutput,omitempty"`
}

// SpecificOutput is hookSpecificOutput.
type SpecificOutput struct {
	HookEventName            string          `json:"hookEventName,omitempty"`
	PermissionDecision       string          `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string          `json:"permissionDecisionReason,omitempty"`
	UpdatedInput             json.RawMessage `json:"updatedInput,omitempty"`
	AdditionalContext        string          `json:"additionalContext,omitempty"`
	// PermissionRequest's answer.
	Decision *RequestDecision `json:"decision,omitempty"`
}

// RequestDecision is a PermissionRequest hook's hookSpecificOutput.decision.
type RequestDecision struct {
	Behavior     string          `json:"behavior"`
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
	Message      string          `json:"message,omitempty"`
	Interrupt    bool            `json:"interrupt,omitempty"`
}

// Permission decisions.
const (
	Allow = "allow"
	Deny  = "deny"
	Ask   = "ask"
)

// ParseOutput reads a handler's stdout after exit 0 for ev. Empty output,
// or text that does not start like JSON, is no answer (ok false, no
// error): Claude Code shows such text and goes on. Output that starts like
// JSON but is not a valid answer is an error: a broken script must not
// pass for a silent one.
func ParseOutput(ev Event, stdout []byte) (out Output, ok bool, err error) {
	t := bytes.TrimSpace(stdout)
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		return Output{}, false, nil
	}
	if t[0] == '[' {
		return Output{}, false, fmt.Errorf("answered a JSON array, not an object")
	}
	if err := json.Unmarshal(t, &out); err != nil {
		return Output{}, false, fmt.Errorf("answered invalid JSON: %v", err)
	}
	switch out.Decision {
	case "", "block", "approve":
	default:
		return Output{}, false, fmt.Errorf("answered decision %q: use \"block\"", out.Decision)
	}
	if s := out.Specific; s != nil {
		if s.HookEventName != "" && Event(s.HookEventName) != ev {
			return Output{}, false, fmt.Errorf("answered for %s during %s", s.HookEventName, ev)
		}
		switch s.PermissionDecision {
		case "", Allow, Deny, Ask:
		default:
			return Output{}, false, fmt.Errorf("answered permissionDecision %q: use allow, deny or ask", s.PermissionDecision)
		}
		if len(s.UpdatedInput) > 0 && !isObject(s.UpdatedInput) {
			return Output{}, false, fmt.Errorf("answered updatedInput that is not a JSON object")
		}
		if d := s.Decision; d != nil {
			switch d.Behavior {
			case Allow, Deny:
			default:
				return Output{}, false, fmt.Errorf("answered decision.behavior %q: use allow or deny", d.Behavior)
			}
			if len(d.UpdatedInput) > 0 && !isObject(d.UpdatedInput) {
				return Output{}, false, fmt.Errorf("answered decision.updatedInput that is not a JSON object")
			}
		}
	}
	return out, true, nil
}

func isObject(b json.RawMessage) bool {
	t := bytes.TrimSpace(b)
	return len(t) > 0 && t[0] == '{'
}

// Result is what one handler did.
type Result struct {
	Source string // SourceUser, SourceWorkspace, SourceSDK
	// Handler names it: the command, the URL (redacted) or the Func's name.
	Handler string
	Exit    int
	Stderr  string
	Output  Output
	// Answered: Output was read from the handler's JSON.
	Answered bool
	// Text is plain text a handler printed on exit 0 (for UserPromptSubmit
	// and SessionStart it is context for the model, as in Claude Code).
	Text string
	// Blocked: exit status 2 (Stderr says why).
	Blocked bool
	// Failed says why the handler gave no usable answer: it could not
	// start, timed out, exited with another status than 0 or 2, flooded its
	// output, or answered garbage. "" when it worked.
	Failed string
}

// Outcome is the combined answer of an event's handlers.
type Outcome struct {
	Results []Result
	// Tool is the call as the handlers saw it (PreToolUse and
	// PermissionRequest; set by the agent, which named it).
	Tool Tool
	// Decision for PreToolUse and PermissionRequest: Deny wins over Ask,
	// Ask over Allow; "" is no opinion. A handler that failed counts as
	// Ask (its reason in Reasons), never as allow or deny.
	Decision string
	// Reasons say why, one line per handler that had a say: for Deny the
	// text the model gets, for Ask what the user is shown.
	Reasons []string
	// UpdatedInput is the tool input a hook asked to run instead (the
	// last handler's that gave one). Conflict: handlers gave different ones.
	UpdatedInput json.RawMessage
	Conflict     bool
	// Block: a handler blocked (exit 2 or decision "block"): the prompt is
	// not sent, a Stop goes on, the model is told after a tool.
	Block bool
	// Context is text for the model: additionalContext, a blocking
	// reason where the event gives it to the model, plain text of
	// UserPromptSubmit and SessionStart handlers.
	Context []string
	// Stop: a handler answered continue false; StopReason is for the user.
	Stop       bool
	StopReason string
	// Messages are for the user: systemMessage, the stderr of a block the
	// model is not told of, failures of handlers whose failure changes
	// nothing.
	Messages []string
}

// Ran reports whether any handler ran.
func (o Outcome) Ran() bool { return len(o.Results) > 0 }

// combine folds results into the event's Outcome.
func combine(ev Event, results []Result) Outcome {
	o := Outcome{Results: results}
	decide := func(d, reason string) {
		if rank(d) > rank(o.Decision) {
			o.Decision = d
		}
		if reason != "" {
			o.Reasons = append(o.Reasons, reason)
		}
	}
	tool := ev == PreToolUse || ev == PermissionRequest
	for _, r := range results {
		who := r.Handler
		if r.Failed != "" {
			msg := fmt.Sprintf("hook %s failed: %s", who, r.Failed)
			if tool {
				decide(Ask, msg)
			} else {
				o.Messages = append(o.Messages, msg)
			}
			continue
		}
		if r.Blocked {
			reason := strings.TrimSpace(r.Stderr)
			if reason == "" {
				reason = "blocked by hook " + who
			}
			switch ev {
			case PreToolUse, PermissionRequest:
				decide(Deny, reason)
			case UserPromptSubmit:
				o.Block = true
				o.Messages = append(o.Messages, reason)
			case Stop, SubagentStop, PostToolUse, PostToolUseFailure:
				o.Block = true
				o.Context = append(o.Context, reason)
			default:
				o.Messages = append(o.Messages, reason)
			}
			continue
		}
		if r.Text != "" && (ev == UserPromptSubmit || ev == SessionStart) {
			o.Context = append(o.Context, r.Text)
		}
		if !r.Answered {
			continue
		}
		out := r.Output
		if out.SystemMessage != "" {
			o.Messages = append(o.Messages, out.SystemMessage)
		}
		if out.Continue != nil && !*out.Continue {
			o.Stop = true
			if out.StopReason != "" {
				o.StopReason = out.StopReason
			}
		}
		switch out.Decision {
		case "block":
			reason := out.Reason
			if reason == "" {
				reason = "blocked by hook " + who
			}
			if tool {
				decide(Deny, reason)
			} else {
				o.Block = true
				if ev == UserPromptSubmit {
					o.Messages = append(o.Messages, reason)
				} else {
					o.Context = append(o.Context, reason)
				}
			}
		case "approve":
			if ev == PreToolUse {
				decide(Allow, out.Reason)
			}
		}
		if s := out.Specific; s != nil {
			if s.AdditionalContext != "" {
				o.Context = append(o.Context, s.AdditionalContext)
			}
			if tool && s.PermissionDecision != "" {
				decide(s.PermissionDecision, s.PermissionDecisionReason)
			}
			upd := s.UpdatedInput
			if d := s.Decision; d != nil && ev == PermissionRequest {
				decide(d.Behavior, d.Message)
				if len(d.UpdatedInput) > 0 {
					upd = d.UpdatedInput
				}
			}
			if tool && len(upd) > 0 {
				if o.UpdatedInput != nil && !jsonEqual(o.UpdatedInput, upd) {
					o.Conflict = true
				}
				o.UpdatedInput = upd
			}
		}
	}
	if o.Conflict && rank(o.Decision) < rank(Ask) {
		o.Decision = Ask
		o.Reasons = append(o.Reasons, "hooks asked for different changes to the input")
	}
	return o
}

func rank(d string) int {
	switch d {
	case Allow:
		return 1
	case Ask:
		return 2
	case Deny:
		return 3
	}
	return 0
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
