package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/freeact/desktop/internal/atomicfile"
)

// DisabledKey is the top-level key of a hooks file that keeps the hooks
// the user turned off, in the same shape as "hooks": Parse leaves it
// alone, as Claude Code does keys it does not know, so the file stays
// one Claude Code reads.
const DisabledKey = "disabledHooks"

// Observe, when set on a Runner, hears each event's handlers once they
// answered (Settings → Hooks shows the last runs).
type Observe func(in Input, o Outcome)

// Verdict is what one handler's run came to, in a word: failed, blocked,
// allow, deny, ask, block, or ok.
func (r Result) Verdict() string {
	switch {
	case r.Failed != "":
		return "failed"
	case r.Blocked:
		return "blocked"
	case r.Answered && r.Output.Specific != nil && r.Output.Specific.PermissionDecision != "":
		return r.Output.Specific.PermissionDecision
	case r.Answered && r.Output.Specific != nil && r.Output.Specific.Decision != nil:
		return r.Output.Specific.Decision.Behavior
	case r.Answered && r.Output.Decision == "block":
		return "block"
	}
	return "ok"
}

// Run is one handler's run, as Settings → Hooks lists it.
type Run struct {
	Event   Event     `json:"event"`
	Tool    string    `json:"tool,omitempty"`
	Source  string    `json:"source"`
	Handler string    `json:"handler"`
	Verdict string    `json:"verdict"`
	Failed  string    `json:"failed,omitempty"`
	At      time.Time `json:"at"`
}

// Runs are the runs of an event's handlers.
func Runs(in Input, o Outcome, at time.Time) []Run {
	out := make([]Run, 0, len(o.Results))
	for _, r := range o.Results {
		out = append(out, Run{Event: in.HookEventName, Tool: in.ToolName, Source: r.Source, Handler: r.Handler, Verdict: r.Verdict(), Failed: r.Failed, At: at})
	}
	return out
}

// document is a hooks file as generic JSON: the keys freeact does not
// read are kept as they are.
type document map[string]json.RawMessage

func readDocument(data []byte) (document, error) {
	doc := document{}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return doc, nil
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("read hooks: %w", err)
	}
	return doc, nil
}

type rawMatcher struct {
	Matcher string            `json:"matcher,omitempty"`
	Hooks   []json.RawMessage `json:"hooks"`
}

func (d document) groups(key string) (map[string][]rawMatcher, error) {
	g := map[string][]rawMatcher{}
	if raw, ok := d[key]; ok {
		if err := json.Unmarshal(raw, &g); err != nil {
			return nil, fmt.Errorf("read %s: %w", key, err)
		}
	}
	return g, nil
}

func (d document) set(key string, g map[string][]rawMatcher) {
	for ev, ms := range g {
		if len(ms) == 0 {
			delete(g, ev)
		}
	}
	if len(g) == 0 && key == DisabledKey {
		delete(d, key)
		return
	}
	d[key], _ = json.Marshal(g) // raw JSON and strings always marshal
}

func (d document) bytes() ([]byte, error) {
	out, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("write hooks: %w", err)
	}
	return append(out, '\n'), nil
}

// SetDisabled turns a hook off (moves handler h of matcher m of event ev
// from "hooks" to DisabledKey) or back on (the other way), and returns the
// file's new content. m and h count in the list the hook is in now.
func SetDisabled(data []byte, ev Event, m, h int, disabled bool) ([]byte, error) {
	doc, err := readDocument(data)
	if err != nil {
		return nil, err
	}
	from, to := "hooks", DisabledKey
	if !disabled {
		from, to = to, from
	}
	src, err := doc.groups(from)
	if err != nil {
		return nil, err
	}
	dst, err := doc.groups(to)
	if err != nil {
		return nil, err
	}
	ms := src[string(ev)]
	if m < 0 || m >= len(ms) || h < 0 || h >= len(ms[m].Hooks) {
		return nil, fmt.Errorf("no hook %s[%d].hooks[%d] in %s: reload the list", ev, m, h, from)
	}
	handler, matcher := ms[m].Hooks[h], ms[m].Matcher
	ms[m].Hooks = append(ms[m].Hooks[:h:h], ms[m].Hooks[h+1:]...)
	if len(ms[m].Hooks) == 0 {
		ms = append(ms[:m:m], ms[m+1:]...)
	}
	src[string(ev)] = ms
	dst[string(ev)] = append(dst[string(ev)], rawMatcher{Matcher: matcher, Hooks: []json.RawMessage{handler}})
	doc.set(from, src)
	doc.set(to, dst)
	out, err := doc.bytes()
	if err != nil {
		return nil, err
	}
	if _, err := Parse(out); err != nil {
		return nil, err
	}
	return out, nil
}

// ClaudeFiles are the files of a project that hold Claude Code's hooks,
// as they are imported: shared settings, then the user's local ones.
var ClaudeFiles = []string{filepath.Join(".claude", "settings.json"), filepath.Join(".claude", "settings.local.json")}

// ClaudeImport is what an import of a project's Claude Code hooks would
// bring: each file's hooks, as shown before the import, and the digest of
// exactly that, which Import checks, so what is imported is what was
// shown.
type ClaudeImport struct {
	Files  []ClaudeFile `json:"files"`
	Digest string       `json:"digest"`
}

// ClaudeFile is one settings file's hooks.
type ClaudeFile struct {
	Path string `json:"path"`
	// Hooks is the file's "hooks", indented; "" when it has none.
	Hooks string `json:"hooks"`
}

// ReadClaude reads the hooks of dir's .claude/settings.json and
// .claude/settings.local.json (regular files only: a link is refused).
// Only the user's own action calls it: Claude Code's hooks are never
// read silently. A workspace without either is an error that says so.
func ReadClaude(dir string) (ClaudeImport, error) {
	var imp ClaudeImport
	h := sha256.New()
	for _, rel := range ClaudeFiles {
		p := filepath.Join(dir, rel)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return imp, fmt.Errorf("read %s: %w", p, err)
		}
		if !fi.Mode().IsRegular() {
			return imp, fmt.Errorf("%s is not a regular file: import reads no links", p)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return imp, fmt.Errorf("read %s: %w", p, err)
		}
		if _, err := Parse(data); err != nil {
			return imp, fmt.Errorf("%s: %w", p, err)
		}
		doc, err := readDocument(data)
		if err != nil {
			return imp, fmt.Errorf("%s: %w", p, err)
		}
		f := ClaudeFile{Path: p}
		if raw, ok := doc["hooks"]; ok {
			var b bytes.Buffer
			if err := json.Indent(&b, raw, "", "  "); err != nil {
				return imp, fmt.Errorf("%s: %w", p, err)
			}
			f.Hooks = b.String()
		}
		fmt.Fprintf(h, "%s\x00%d\x00%s", rel, len(f.Hooks), f.Hooks)
		imp.Files = append(imp.Files, f)
	}
	if len(imp.Files) == 0 {
		return imp, fmt.Errorf("%s has no %s nor %s: there are no Claude Code hooks to import", dir, ClaudeFiles[0], ClaudeFiles[1])
	}
	imp.Digest = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return imp, nil
}

// ImportClaude adds the hooks of dir's Claude Code settings to its
// .freeact/hooks.json (written atomically; hooks already there stay, an
// identical group is not added twice) and returns the new content. digest
// is ReadClaude's for what the user was shown: if the files changed since,
// nothing is imported.
func ImportClaude(dir, digest string) ([]byte, error) {
	imp, err := ReadClaude(dir)
	if err != nil {
		return nil, err
	}
	if imp.Digest != digest {
		return nil, errors.New("the Claude Code settings changed since they were shown: look at them again, then import")
	}
	file := WorkspaceFile(dir)
	existing, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read workspace hooks: %w", err)
	}
	doc, err := readDocument(existing)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	have, err := doc.groups("hooks")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for _, f := range imp.Files {
		if f.Hooks == "" {
			continue
		}
		var add map[string][]rawMatcher
		if err := json.Unmarshal([]byte(f.Hooks), &add); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
		for ev, ms := range add {
			for _, m := range ms {
				if !containsGroup(have[ev], m) {
					have[ev] = append(have[ev], m)
				}
			}
		}
	}
	doc.set("hooks", have)
	out, err := doc.bytes()
	if err != nil {
		return nil, err
	}
	if _, err := Parse(out); err != nil {
		return nil, fmt.Errorf("the imported hooks: %w", err)
	}
	if err := WriteFile(file, out); err != nil {
		return nil, err
	}
	return out, nil
}

func containsGroup(ms []rawMatcher, m rawMatcher) bool {
	want, _ := json.Marshal(m)
	for _, x := range ms {
		if got, _ := json.Marshal(x); jsonEqual(got, want) {
			return true
		}
	}
	return false
}

// WriteFile checks data is a hooks file Parse reads, then writes it to
// file atomically (its folder made as needed).
func WriteFile(file string, data []byte) error {
	if _, err := Parse(data); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return fmt.Errorf("save hooks: %w", err)
	}
	if err := atomicfile.Write(file, data, 0o644); err != nil {
		return fmt.Errorf("save hooks: %w", err)
	}
	return nil
}

// ImportClaudeTrusted is ImportClaude for a user who saw what is imported:
// the workspace's hooks are trusted as they are afterwards when they were
// trusted (or absent) before, since the user has then seen all they hold.
// Hooks the user had not trusted stay untrusted (trusted false): trusting
// them is `freeact hooks trust` or the window's question, after seeing
// them.
func ImportClaudeTrusted(dir, digest string, t *Trust) (trusted bool, err error) {
	before, err := t.Workspace(dir)
	if err != nil {
		return false, err
	}
	if _, err := ImportClaude(dir, digest); err != nil {
		return false, err
	}
	if before.Exists && !before.Trusted {
		return false, nil
	}
	after, err := t.Workspace(dir)
	if err != nil {
		return false, err
	}
	if err := t.Grant(dir, after.Digest); err != nil {
		return false, err
	}
	return true, nil
}

// ParseKey is Parse of the hooks under the top-level key of a hooks file:
// "hooks", or DisabledKey for those the user turned off.
func ParseKey(data []byte, key string) (Settings, error) {
	if key == "hooks" {
		return Parse(data)
	}
	doc, err := readDocument(data)
	if err != nil {
		return Settings{}, err
	}
	raw, ok := doc[key]
	if !ok {
		return Settings{Hooks: map[Event][]Matcher{}}, nil
	}
	s, err := Parse(append(append([]byte(`{"hooks":`), raw...), '}'))
	if err != nil {
		return Settings{}, fmt.Errorf("%s: %w", key, err)
	}
	return s, nil
}
