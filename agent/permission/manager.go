package permission

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/freeact/desktop/agent/shell"
	"github.com/freeact/desktop/internal/atomicfile"
	"github.com/freeact/desktop/internal/strictjson"
)

// FileName is the permissions file inside a workspace's .freeact directory.
const FileName = "permissions.json"

// Rules are the tiers of one scope. Deny rules win over ask rules, ask
// rules over allow rules. Deny is saved only when it has rules, so a
// file without any reads as before.
type Rules struct {
	Allow []Rule `json:"allow"`
	Ask   []Rule `json:"ask"`
	Deny  []Rule `json:"deny,omitempty"`
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
	// Deny: a deny rule matched; refuse without asking, whatever else
	// matches (a "reject always" answer saves one).
	Deny
)

func (d Decision) String() string {
	switch d {
	case Ask:
		return "ask"
	case Allow:
		return "allow"
	case Deny:
		return "deny"
	default:
		return "no match"
	}
}

// Scope says where a rule lives.
type Scope int

const (
	// Session rules are the grants of one conversation (a Conversation):
	// they live in memory and end with it.
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

// Manager holds a workspace's saved rules. Each conversation checks calls
// through a Conversation of its own, which adds the grants made in it. It
// is safe for concurrent use by several agents.
//
// The always rules are those of permissions.json and, in a workspace of the
// Python freeact 0.11, those of its permissions.toml (the imported rules),
// which count the same but are only read: new and edited rules go to
// permissions.json.
type Manager struct {
	workspace string // absolute, clean
	file      string
	tomlFile  string

	mu        sync.RWMutex
	always    Rules
	imported  Rules    // of permissions.toml
	protected []string // absolute paths besides file (see Protect)
	walkLimit int      // entries one check may visit (see guard.go)
}

// Exists reports whether the workspace at dir has a permissions file:
// permissions.json, or freeact 0.11's permissions.toml.
func Exists(dir string) bool {
	for _, name := range []string{FileName, TOMLFileName} {
		if _, err := os.Stat(filepath.Join(dir, ".freeact", name)); err == nil {
			return true
		}
	}
	return false
}

// Open loads the rules of the workspace at dir from
// .freeact/permissions.json and freeact 0.11's .freeact/permissions.toml.
// When neither exists, the default rules are written to permissions.json
// first; a permissions.toml holds freeact's defaults already, so it gets
// no permissions.json beside it until a rule is added.
func Open(dir string) (*Manager, error) {
	ws, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open permissions: workspace path %q: %w", dir, err)
	}
	m := &Manager{workspace: filepath.Clean(ws), file: filepath.Join(ws, ".freeact", FileName),
		tomlFile: filepath.Join(ws, ".freeact", TOMLFileName), walkLimit: maxWalk}
	imported, err := readTOMLRules(m.tomlFile)
	hasTOML := err == nil
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	}
	rules, err := readRules(m.file)
	switch {
	case errors.Is(err, fs.ErrNotExist) && hasTOML:
	case errors.Is(err, fs.ErrNotExist):
		rules = DefaultRules()
		if err := writeRules(m.file, rules); err != nil {
			return nil, fmt.Errorf("write default permissions: %w", err)
		}
	case err != nil:
		return nil, err
	}
	m.always, m.imported = rules, imported
	return m, nil
}

// Imported returns the rules read from freeact 0.11's permissions.toml and
// its path, or empty rules and "" when the workspace has none.
func (m *Manager) Imported() (Rules, string) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.imported.Allow == nil && m.imported.Ask == nil && m.imported.Deny == nil {
		return Rules{}, ""
	}
	return m.imported.clone(), m.tomlFile
}

// File returns the path of the permissions file.
func (m *Manager) File() string { return m.file }

// Check is Evaluate's decision.
func (m *Manager) Check(c Call) Decision { return m.Evaluate(c).Decision }

// Evaluate matches c against the saved rules alone; a Conversation adds
// its grants (see evaluate).
func (m *Manager) Evaluate(c Call) Verdict {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.evaluate(Rules{}, c)
}

// evaluate matches c against the grants of a conversation and the saved
// rules in the order deny (permissions.json, then permissions.toml),
// session ask, always ask, session allow, always allow; the first match
// decides, except:
//   - a call that changes a protected file (see Protect) is asked before
//     any rule is consulted, and Verdict.Protected is set;
//   - an opaque shell call (marked so, or one that agent/shell cannot
//     split safely) is never allowed by a rule;
//   - a shell command that writes files (a redirection, tee, --output...)
//     is allowed only by a rule that names what makes it write;
//   - a call an allow rule matches is still asked when its files meet an
//     ask rule: a shell command naming .env, a recursive search over a
//     folder holding it, a hard link to it (see guard.go).
//
// m.mu is held.
func (m *Manager) evaluate(grants Rules, c Call) Verdict {
	var acc []shell.Access
	if c.Type == TypeShellAction && (c.ToolName == ShellTool || c.ToolName == ShellMagicTool) {
		dir := c.Dir
		if dir == "" {
			dir = m.workspace
		}
		acc = m.place(shell.FileAccesses(c.Command, dir), dir)
	}
	// A deny rule wins over everything, a protected file included: it
	// only ever refuses.
	for _, rules := range [][]Rule{m.always.Deny, m.imported.Deny} {
		for _, r := range rules {
			if r.matches(c, m.workspace) {
				return Verdict{Decision: Deny, Rule: r, Scope: Always, Reason: fmt.Sprintf("the deny rule %s refuses it", r)}
			}
		}
	}
	if reason := m.protectedCall(c, acc); reason != "" {
		return Verdict{Decision: Ask, Reason: reason, Protected: true}
	}
	for _, rules := range [][]Rule{grants.Ask, m.always.Ask, m.imported.Ask} {
		for _, r := range rules {
			if r.matches(c, m.workspace) {
				return Verdict{Decision: Ask, Reason: fmt.Sprintf("the rule %s asks for it", r)}
			}
		}
	}
	if c.Opaque || (c.Type == TypeShellAction && c.ToolName == ShellTool && shell.Split(c.Command).Opaque) {
		return Verdict{Decision: NoMatch}
	}
	var markers []string
	if c.Type == TypeShellAction {
		markers = writeMarkers(c.Command, acc)
	}
	var allowed *Rule
	scope := Session
	notCovered := ""
	for i, rules := range [][]Rule{grants.Allow, m.always.Allow, m.imported.Allow} {
		for _, r := range rules {
			if !r.matches(c, m.workspace) {
				continue
			}
			if mk := uncovered(r, markers); mk != "" {
				if notCovered == "" {
					notCovered = fmt.Sprintf("the rule %s allows the command but not how it writes files: the rule does not name %s", r, mk)
				}
				continue
			}
			allowed = &r
			if i > 0 {
				scope = Always
			}
			break
		}
		if allowed != nil {
			break
		}
	}
	if allowed == nil {
		return Verdict{Decision: NoMatch, Reason: notCovered}
	}
	if reason := m.askReason(grants, c, acc); reason != "" {
		return Verdict{Decision: Ask, Reason: fmt.Sprintf("the rule %s allows it, but %s", allowed, reason)}
	}
	return Verdict{Decision: Allow, Rule: *allowed, Scope: scope}
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

// Add saves rule in the allow tier (ask=false) or the ask tier of
// permissions.json (AddTo names any tier). It is merged into the file as it is on disk now (so
// edits made meanwhile are kept) and saved atomically. Adding a rule that
// exists already changes nothing.
func (m *Manager) Add(ask bool, rule Rule) error {
	tier := TierAllow
	if ask {
		tier = TierAsk
	}
	return m.AddTo(tier, rule)
}

// The tiers of a Rules.
const (
	TierAllow = "allow"
	TierAsk   = "ask"
	TierDeny  = "deny"
)

// AddTo saves rule in tier (TierAllow, TierAsk or TierDeny) of
// permissions.json, as Add does.
func (m *Manager) AddTo(tier string, rule Rule) error {
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
	if err := addTo(&current, tier, rule); err != nil {
		return fmt.Errorf("add permission rule: %w", err)
	}
	if err := writeRules(m.file, current); err != nil {
		return fmt.Errorf("add permission rule: %w", err)
	}
	m.always = current
	return nil
}

// AllowAlways saves an allow rule.
func (m *Manager) AllowAlways(rule Rule) error { return m.Add(false, rule) }

// DenyAlways saves a deny rule: calls it matches are refused without
// asking from now on.
func (m *Manager) DenyAlways(rule Rule) error { return m.AddTo(TierDeny, rule) }

func addTo(rs *Rules, tier string, rule Rule) error {
	var t *[]Rule
	switch tier {
	case TierAllow:
		t = &rs.Allow
	case TierAsk:
		t = &rs.Ask
	case TierDeny:
		t = &rs.Deny
	default:
		return fmt.Errorf("unknown tier %q: want allow, ask or deny", tier)
	}
	if !slices.Contains(*t, rule) {
		*t = append(*t, rule)
	}
	return nil
}

// Rules returns a copy of the saved rules (permissions.json).
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
	imported, terr := readTOMLRules(m.tomlFile)
	switch {
	case errors.Is(terr, fs.ErrNotExist):
		terr = nil
	case terr == nil && errors.Is(err, fs.ErrNotExist):
		err = nil
	}
	if err := errors.Join(err, terr); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.always, m.imported = rules, imported
	return nil
}

func (rs Rules) clone() Rules {
	return Rules{Allow: slices.Clone(rs.Allow), Ask: slices.Clone(rs.Ask), Deny: slices.Clone(rs.Deny)}
}

func (rs Rules) validate(file string) error {
	for _, tier := range []struct {
		name  string
		rules []Rule
	}{{"allow", rs.Allow}, {"ask", rs.Ask}, {"deny", rs.Deny}} {
		for i, r := range tier.rules {
			if err := r.validate(); err != nil {
				return fmt.Errorf("%s: %s[%d] %s: %w", file, tier.name, i, r, err)
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
		Deny  []json.RawMessage `json:"deny"`
	}
	if err := strictjson.Unmarshal(data, &raw); err != nil {
		return Rules{}, fmt.Errorf("%s: %w (expected {\"allow\": [rule...], \"ask\": [rule...], \"deny\": [rule...]})", file, err)
	}
	var rs Rules
	for _, tier := range []struct {
		name string
		raw  []json.RawMessage
		dst  *[]Rule
	}{{"allow", raw.Allow, &rs.Allow}, {"ask", raw.Ask, &rs.Ask}, {"deny", raw.Deny, &rs.Deny}} {
		for i, item := range tier.raw {
			var r Rule
			if err := strictjson.Unmarshal(item, &r); err != nil {
				return Rules{}, fmt.Errorf("%s: %s[%d]: %w", file, tier.name, i, err)
			}
			if err := r.validate(); err != nil {
				return Rules{}, fmt.Errorf("%s: %s[%d] %s: %w", file, tier.name, i, compactJSON(item), err)
			}
			*tier.dst = append(*tier.dst, r)
		}
	}
	return rs, nil
}

// compactJSON returns a rule's JSON text on one line, to name it in an
// error.
func compactJSON(item json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, item) != nil {
		return string(item)
	}
	return b.String()
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
