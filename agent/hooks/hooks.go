// Package hooks owns the user's own scripts around every action, in Claude
// Code's hook protocol so that the public body of such scripts runs
// unchanged: the settings format (event → matchers → handlers), the JSON an
// event hands a handler on stdin (or in an HTTP POST), the answer read back
// (exit codes, hookSpecificOutput and the rest), running the matching
// handlers of an event in parallel with a timeout and a bound on their
// output, and combining their answers (deny wins). It also names freeact's
// tool calls as those scripts know them (ToolFor) and keeps which
// workspace hooks the user trusted (Trust).
//
// It decides nothing about the agent: the agent asks Runner.Run at each
// event and applies the Outcome. See docs/hooks.md.
package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Event is the name of a point where hooks run, as Claude Code names it.
type Event string

// The events.
const (
	SessionStart       Event = "SessionStart"
	UserPromptSubmit   Event = "UserPromptSubmit"
	PreToolUse         Event = "PreToolUse"
	PermissionRequest  Event = "PermissionRequest"
	PostToolUse        Event = "PostToolUse"
	PostToolUseFailure Event = "PostToolUseFailure"
	Notification       Event = "Notification"
	Stop               Event = "Stop"
	SubagentStart      Event = "SubagentStart"
	SubagentStop       Event = "SubagentStop"
	PreCompact         Event = "PreCompact"
	SessionEnd         Event = "SessionEnd"
)

// Events lists every event, in the order of a turn.
var Events = []Event{SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure,
	Notification, Stop, SubagentStart, SubagentStop, PreCompact, SessionEnd}

// DefaultTimeout is how long a handler may take when its settings give no
// timeout.
const DefaultTimeout = 60 * time.Second

// Handler types.
const (
	TypeCommand = "command"
	TypeHTTP    = "http"
)

// Handler is one hook: a shell command fed the event on stdin, or a URL the
// event is POSTed to. Func is a Go function registered through the SDK; it
// has no JSON form.
type Handler struct {
	Type    string            `json:"type"`
	Command string            `json:"command,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Timeout in seconds; 0 is DefaultTimeout.
	Timeout float64 `json:"timeout,omitempty"`
	Func    Func    `json:"-"`
	// Name labels a Func in results and errors.
	Name string `json:"-"`
	// If narrows a handler of a tool event to the calls a permission rule
	// of this form would match (cond.go).
	If   string `json:"if,omitempty"`
	cond *cond
}

// Matcher is a group of handlers for the calls (or sources, triggers, ...)
// its pattern matches.
type Matcher struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []Handler `json:"hooks"`
	re      *regexp.Regexp
	names   []string
}

// Settings are the hooks of one file: event → matchers → handlers.
type Settings struct {
	Hooks map[Event][]Matcher `json:"hooks"`
}

// Parse reads hooks in Claude Code's settings format. Keys other than
// "hooks" at the top are left alone (a Claude Code settings.json has many),
// so either a freeact hooks.json or a settings.json parses; within "hooks"
// an unknown event, a handler type freeact does not run, a bad matcher or
// a negative timeout is an error that says what to change.
func Parse(data []byte) (Settings, error) {
	var raw struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if err := json.Unmarshal(data, &raw); err != nil {
		return Settings{}, fmt.Errorf("read hooks: %w (the file holds {\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"...\"}]}]}})", err)
	}
	s := Settings{Hooks: map[Event][]Matcher{}}
	for name, body := range raw.Hooks {
		ev := Event(name)
		if !slices.Contains(Events, ev) {
			return Settings{}, fmt.Errorf("hooks: unknown event %q: use one of %s", name, eventList())
		}
		var ms []Matcher
		var keys []map[string]json.RawMessage
		if err := errors.Join(json.Unmarshal(body, &ms), json.Unmarshal(body, &keys)); err != nil {
			return Settings{}, fmt.Errorf("hooks.%s: %w (each entry is {\"matcher\": \"...\", \"hooks\": [{\"type\": \"command\", \"command\": \"...\"}]})", name, err)
		}
		for i := range ms {
			// A misspelt key would make a matcher match everything.
			for k := range keys[i] {
				if k != "matcher" && k != "hooks" {
					return Settings{}, fmt.Errorf("hooks.%s[%d]: unknown key %q: an entry has \"matcher\" and \"hooks\"", name, i, k)
				}
			}
			if err := ms[i].compile(); err != nil {
				return Settings{}, fmt.Errorf("hooks.%s[%d]: %w", name, i, err)
			}
			for j := range ms[i].Hooks {
				h := &ms[i].Hooks[j]
				if err := h.check(); err != nil {
					return Settings{}, fmt.Errorf("hooks.%s[%d].hooks[%d]: %w", name, i, j, err)
				}
				c, err := parseCond(h.If)
				if err != nil {
					return Settings{}, fmt.Errorf("hooks.%s[%d].hooks[%d]: %w", name, i, j, err)
				}
				h.cond = c
			}
			if err := handlerKeys(keys[i]["hooks"]); err != nil {
				return Settings{}, fmt.Errorf("hooks.%s[%d].%w", name, i, err)
			}
		}
		s.Hooks[ev] = ms
	}
	return s, nil
}

// handlerKeys refuses a handler key freeact does not read: a setting
// read wrongly would run something else than its author wrote (the exec
// form's "args" would run the command without its arguments).
func handlerKeys(body json.RawMessage) error {
	var hs []map[string]json.RawMessage
	if err := json.Unmarshal(body, &hs); err != nil {
		return fmt.Errorf("hooks: %w", err)
	}
	for j, h := range hs {
		for k := range h {
			switch k {
			case "type", "command", "url", "headers", "timeout", "if", "statusMessage":
			case "args":
				return fmt.Errorf("hooks[%d]: \"args\" (the exec form) is not supported: write the program and its arguments in \"command\", e.g. \"command\": \"belay hook claude-code\"", j)
			default:
				return fmt.Errorf("hooks[%d]: unknown key %q: a handler has type, command or url, headers, timeout, if and statusMessage", j, k)
			}
		}
	}
	return nil
}

func eventList() string {
	names := make([]string, len(Events))
	for i, e := range Events {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}

func (h Handler) check() error {
	switch h.Type {
	case TypeCommand:
		if strings.TrimSpace(h.Command) == "" {
			return fmt.Errorf("a command hook needs \"command\"")
		}
	case TypeHTTP:
		if !strings.HasPrefix(h.URL, "http://") && !strings.HasPrefix(h.URL, "https://") {
			return fmt.Errorf("an http hook needs \"url\" starting with http:// or https://")
		}
	default:
		return fmt.Errorf("hook type %q is not run by freeact: use \"command\" or \"http\"", h.Type)
	}
	if h.Timeout < 0 {
		return fmt.Errorf("timeout %v: give seconds, above 0", h.Timeout)
	}
	return nil
}

// plainMatcher is a matcher of names and "|" only: those match a name
// exactly, one of the alternatives.
var plainMatcher = regexp.MustCompile(`^[A-Za-z0-9_|-]*$`)

func (m *Matcher) compile() error {
	p := m.Matcher
	switch {
	case p == "" || p == "*":
		return nil
	case plainMatcher.MatchString(p):
		m.names = strings.Split(p, "|")
		return nil
	}
	re, err := regexp.Compile("^(?:" + p + ")$")
	if err != nil {
		return fmt.Errorf("matcher %q is neither a name, names joined by |, nor a regular expression: %w", p, err)
	}
	m.re = re
	return nil
}

// Matches reports whether the matcher applies to s (a tool name, a
// session's source, a compaction's trigger...): "" and "*" match all,
// names and "|" alternatives match exactly, anything else is a regular
// expression the whole of s must match. Case counts, as in Claude Code.
func (m *Matcher) Matches(s string) bool {
	switch {
	case m.re != nil:
		return m.re.MatchString(s)
	case m.names != nil:
		return slices.Contains(m.names, s)
	}
	if m.Matcher != "" && m.Matcher != "*" {
		// Not compiled (built in Go): compile now.
		c := *m
		if c.compile() != nil {
			return false
		}
		return c.Matches(s)
	}
	return true
}

// Set is the hooks of one source: the user's own, a workspace's, or the
// SDK's.
type Set struct {
	Source   string // SourceUser, SourceWorkspace, SourceSDK
	Path     string // the file they came from; "" for the SDK
	Settings Settings
	// Verify, when set, is asked before the set's handlers run: an error
	// (a workspace's hooks changed since they were trusted) makes each of
	// them a failed handler, which sends a tool call to the user.
	Verify func() error
}

// Sources of hooks.
const (
	SourceUser      = "user"
	SourceWorkspace = "workspace"
	SourceSDK       = "sdk"
)

// Add registers fn for ev on the calls matcher matches (see
// Matcher.Matches) in a Set of SDK hooks.
func (s *Set) Add(ev Event, matcher, name string, fn Func) {
	if s.Settings.Hooks == nil {
		s.Settings.Hooks = map[Event][]Matcher{}
	}
	if s.Source == "" {
		s.Source = SourceSDK
	}
	s.Settings.Hooks[ev] = append(s.Settings.Hooks[ev], Matcher{Matcher: matcher, Hooks: []Handler{{Func: fn, Name: name}}})
}
