package permission

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/freeact/desktop/agent/shell"
	"github.com/freeact/desktop/internal/atomicfile"
	"github.com/freeact/desktop/internal/strictjson"
)

// FileName is the permissions file inside a workspace's .freeact directory.
const FileName = "permissions.json"

// Rules are the two tiers of one scope. Ask rules win over allow rules.
type Rules struct {
	Allow []Rule `json:"allow"`
	Ask   []Rule `json:"ask"`
}

// Decision is the outcome of checking a call against the rules.
type Decision int

const (
	// NoMatch: no rule matched; ask the user.
	NoMatch Decision = iota
	// Ask: an ask rule matched; ask the user even if an allow rule matches.
	Ask
	// Allow: an allow rule matched and no ask rule did; run without asking.
	Allow
)

func (d Decision) String() string {
	switch d {
	case Ask:
		return "ask"
	case Allow:
		return "allow"
	default:
		return "no match"
	}
}

// Scope says where a rule lives.
type Scope int

const (
	// Session rules are the grants of one conversation (a Conversation): they
	// live in memory and end with it.
	Session Scope = iota
	// Always rules are saved to permissions.json.
	Always
)

func (s Scope) String() string {
	if s == Always {
		return "always"
	}
	return "session"
}

// Verdict is the outcome of checking a call, with the rule that decided it.
type Verdict struct {
	Decision Decision
	// Rule is the rule that matched; zero for NoMatch.
	Rule Rule
	// Scope says where Rule lives: a saved rule or a grant of the session.
	Scope Scope
}

// Manager holds a workspace's saved rules (permissions.json). Each
// conversation checks calls through a Conversation of its own, which adds the
// grants made in it. It is safe for concurrent use by several agents.
type Manager struct {
	workspace string // absolute, clean
	file      string

	mu     sync.RWMutex
	always Rules
}

// Open loads the rules of the workspace at dir from
// .freeact/permissions.json, writing the default rules there first when the
// file does not exist.
func Open(dir string) (*Manager, error) {
	ws, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open permissions: workspace path %q: %w", dir, err)
	}
	m := &Manager{workspace: filepath.Clean(ws), file: filepath.Join(ws, ".freeact", FileName)}
	rules, err := readRules(m.file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		rules = DefaultRules()
		if err := writeRules(m.file, rules); err != nil {
			return nil, fmt.Errorf("write default permissions: %w", err)
		}
	case err != nil:
		return nil, err
	}
	m.always = rules
	return m, nil
}

// File returns the path of the permissions file.
func (m *Manager) File() string { return m.file }

// Check matches c against the saved rules alone (a Conversation adds its
// grants); see Conversation.Check.
func (m *Manager) Check(c Call) Decision {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.check(Rules{}, c).Decision
}

// check matches c against the grants of a session and the saved rules, in
// the order session ask, always ask, session allow, always allow; the first
// match decides. An opaque shell call (marked so, or one that agent/shell
// cannot split safely) is never allowed by a rule, and neither is a shell
// command that writes files through a redirection unless the matching
// rule's command pattern has a redirection itself. m.mu is held.
func (m *Manager) check(grants Rules, c Call) Verdict {
	tiers := []struct {
		rules []Rule
		scope Scope
	}{{grants.Ask, Session}, {m.always.Ask, Always}}
	for _, t := range tiers {
		if i := slices.IndexFunc(t.rules, func(r Rule) bool { return r.matches(c, m.workspace) }); i >= 0 {
			return Verdict{Decision: Ask, Rule: t.rules[i], Scope: t.scope}
		}
	}
	if c.Opaque || (c.Type == TypeShellAction && c.ToolName == ShellTool && shell.Split(c.Command).Opaque) {
		return Verdict{}
	}
	tiers = []struct {
		rules []Rule
		scope Scope
	}{{grants.Allow, Session}, {m.always.Allow, Always}}
	for _, t := range tiers {
		for _, r := range t.rules {
			if r.matches(c, m.workspace) && !writesPastRule(r, c) {
				return Verdict{Decision: Allow, Rule: r, Scope: t.scope}
			}
		}
	}
	return Verdict{}
}

// Suggest is SuggestPattern with a file path made relative to the
// workspace first (when it lies inside it), so the suggested rule matches
// the call it was made for.
func (m *Manager) Suggest(c Call) string {
	if isFileType(c.Type) {
		c.Path = NormalizePath(c.Path, m.workspace)
	}
	return SuggestPattern(c)
}

// IsAllowed reports whether the saved rules let c run without asking.
func (m *Manager) IsAllowed(c Call) bool { return m.Check(c) == Allow }

// writesPastRule reports a shell command that redirects output into a file
// matched by a rule that does not mention redirection: "cat *" must not
// allow "cat a > ~/.bashrc".
func writesPastRule(r Rule, c Call) bool {
	return c.Type == TypeShellAction && !strings.Contains(r.Command, ">") && shell.WritesFiles(c.Command)
}

// Add saves rule in the allow tier (ask=false) or the ask tier of
// permissions.json. It is merged into the file as it is on disk now (so
// edits made meanwhile are kept) and saved atomically. Adding a rule that
// exists already changes nothing.
func (m *Manager) Add(ask bool, rule Rule) error {
	if err := rule.validate(); err != nil {
		return fmt.Errorf("add permission rule: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	current, err := readRules(m.file)
	if errors.Is(err, fs.ErrNotExist) {
		current, err = m.always, nil
	}
	if err != nil {
		return fmt.Errorf("add permission rule: %w", err)
	}
	addTo(&current, ask, rule)
	if err := writeRules(m.file, current); err != nil {
		return fmt.Errorf("add permission rule: %w", err)
	}
	m.always = current
	return nil
}

// AllowAlways saves an allow rule.
func (m *Manager) AllowAlways(rule Rule) error { return m.Add(false, rule) }

func addTo(rs *Rules, ask bool, rule Rule) {
	tier := &rs.Allow
	if ask {
		tier = &rs.Ask
	}
	if !slices.Contains(*tier, rule) {
		*tier = append(*tier, rule)
	}
}

// Rules returns a copy of the saved rules.
func (m *Manager) Rules() Rules {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.always.clone()
}

// SetAlways validates rules, saves them as the new permissions file and
// uses them from now on (the settings panel's save).
func (m *Manager) SetAlways(rules Rules) error {
	if err := rules.validate(m.file); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := writeRules(m.file, rules); err != nil {
		return fmt.Errorf("save permissions: %w", err)
	}
	m.always = rules.clone()
	return nil
}

// Reload reads the permissions file again (after it was edited by hand).
// On error the rules in use stay unchanged.
func (m *Manager) Reload() error {
	rules, err := readRules(m.file)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.always = rules
	return nil
}

func (rs Rules) clone() Rules {
	return Rules{Allow: slices.Clone(rs.Allow), Ask: slices.Clone(rs.Ask)}
}

func (rs Rules) validate(file string) error {
	for _, tier := range []struct {
		name  string
		rules []Rule
	}{{"allow", rs.Allow}, {"ask", rs.Ask}} {
		for i, r := range tier.rules {
			if err := r.validate(); err != nil {
				return fmt.Errorf("%s: %s[%d]: %w", file, tier.name, i, err)
			}
		}
	}
	return nil
}

// ParseRules parses the content of a permissions file strictly: unknown
// keys, wrong types and incomplete rules are errors naming file and rule.
func ParseRules(data []byte, file string) (Rules, error) {
	var raw struct {
		Allow []json.RawMessage `json:"allow"`
		Ask   []json.RawMessage `json:"ask"`
	}
	if err := strictjson.Unmarshal(data, &raw); err != nil {
		return Rules{}, fmt.Errorf("%s: %w (expected {\"allow\": [rule...], \"ask\": [rule...]})", file, err)
	}
	var rs Rules
	for _, tier := range []struct {
		name string
		raw  []json.RawMessage
		dst  *[]Rule
	}{{"allow", raw.Allow, &rs.Allow}, {"ask", raw.Ask, &rs.Ask}} {
		for i, item := range tier.raw {
			var r Rule
			if err := strictjson.Unmarshal(item, &r); err != nil {
				return Rules{}, fmt.Errorf("%s: %s[%d]: %w", file, tier.name, i, err)
			}
			if err := r.validate(); err != nil {
				return Rules{}, fmt.Errorf("%s: %s[%d]: %w", file, tier.name, i, err)
			}
			*tier.dst = append(*tier.dst, r)
		}
	}
	return rs, nil
}

func readRules(file string) (Rules, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return Rules{}, fmt.Errorf("read permissions: %w", err)
	}
	return ParseRules(data, file)
}

// writeRules writes rules to file through a temporary file and a rename,
// so a reader never sees a half-written file.
func writeRules(file string, rules Rules) error {
	if rules.Allow == nil {
		rules.Allow = []Rule{}
	}
	if rules.Ask == nil {
		rules.Ask = []Rule{}
	}
	data, err := json.MarshalIndent(rules, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(file, append(data, '\n'), 0o644)
}
