package desktop

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/gate"
	"github.com/freeact/desktop/agent/hooks"
	"github.com/freeact/desktop/internal/redact"
)

// HookEntry is one hook of a hooks file, as Settings → Hooks lists it.
type HookEntry struct {
	Event   string `json:"event"`
	Matcher string `json:"matcher"`
	// Group and Handler place it in its event's list ("hooks", or
	// "disabledHooks" when Disabled), for SetHookDisabled.
	Group    int     `json:"group"`
	Handler  int     `json:"handler"`
	Type     string  `json:"type"`
	Command  string  `json:"command,omitempty"`
	URL      string  `json:"url,omitempty"`
	Timeout  float64 `json:"timeout,omitempty"`
	Disabled bool    `json:"disabled"`
	// Runs are its last runs in this window, newest first.
	Runs []hooks.Run `json:"runs"`
}

// HookFile is the user's or the workspace's hooks file.
type HookFile struct {
	Source string `json:"source"` // user or workspace
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	// Trusted and Changed are the workspace's: the user trusted exactly
	// this content, or other content before. The user's own always run.
	Trusted bool `json:"trusted"`
	Changed bool `json:"changed"`
	// Digest is what TrustHooks trusts: the content shown.
	Digest  string      `json:"digest"`
	Content string      `json:"content"`
	Hooks   []HookEntry `json:"hooks"`
	// Error says why the file could not be read as hooks.
	Error string `json:"error,omitempty"`
}

// HooksInfo is what Settings → Hooks shows.
type HooksInfo struct {
	User      HookFile `json:"user"`
	Workspace HookFile `json:"workspace"`
	// Claude: the workspace has Claude Code settings whose hooks can be
	// imported (read only when the user asks: ClaudeHooks).
	Claude bool `json:"claude"`
	// Note says what became of a change: applied (the agent restarted),
	// or applied with the next start.
	Note string `json:"note,omitempty"`
}

// hookRuns keeps the last runs of each hook in this window.
type hookRuns struct {
	mu   sync.Mutex
	runs map[string][]hooks.Run
}

// hookRunsKept is how many runs of each hook are kept.
const hookRunsKept = 5

func runKey(source, handler string) string { return source + "\x00" + handler }

// observe records what an event's handlers did (hooks.Runner.Observe).
func (r *hookRuns) observe(in hooks.Input, o hooks.Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.runs == nil {
		r.runs = map[string][]hooks.Run{}
	}
	for _, run := range hooks.Runs(in, o, time.Now()) {
		k := runKey(run.Source, run.Handler)
		r.runs[k] = append([]hooks.Run{run}, r.runs[k]...)
		if len(r.runs[k]) > hookRunsKept {
			r.runs[k] = r.runs[k][:hookRunsKept]
		}
	}
}

func (r *hookRuns) of(source, handler string) []hooks.Run {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]hooks.Run{}, r.runs[runKey(source, handler)]...)
}

// hookOption is the agent option that records the hooks' runs.
func (d *Desktop) hookOption() agent.Option {
	return agent.WithHooks(&hooks.Runner{Observe: d.hookRuns.observe})
}

// Hooks returns the user's and the open workspace's hooks, with their
// trust and last runs.
func (d *Desktop) Hooks() (HooksInfo, error) {
	ws, err := d.current()
	if err != nil {
		return HooksInfo{}, err
	}
	return d.hooksInfo(ws.dir), nil
}

func (d *Desktop) hooksInfo(dir string) HooksInfo {
	info := HooksInfo{}
	user := filepath.Join(d.build.Dirs.Config, hooks.FileName)
	info.User = d.hookFile(hooks.SourceUser, user, nil)
	trust := gate.Trust(d.build.Dirs)
	st, err := trust.Workspace(dir)
	info.Workspace = d.hookFile(hooks.SourceWorkspace, hooks.WorkspaceFile(dir), &st)
	if err != nil {
		info.Workspace.Error = err.Error()
	}
	for _, rel := range hooks.ClaudeFiles {
		if fi, err := os.Lstat(filepath.Join(dir, rel)); err == nil && fi.Mode().IsRegular() {
			info.Claude = true
		}
	}
	return info
}

// hookFile reads file (st: the workspace's state, nil for the user's).
func (d *Desktop) hookFile(source, file string, st *hooks.WorkspaceState) HookFile {
	f := HookFile{Source: source, Path: file, Hooks: []HookEntry{}}
	var data []byte
	if st != nil {
		f.Exists, f.Trusted, f.Changed, f.Digest, data = st.Exists, st.Trusted, st.Changed, st.Digest, st.Content
	} else {
		b, err := os.ReadFile(file)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			f.Error = err.Error()
		default:
			f.Exists, f.Trusted, data = true, true, b
		}
	}
	if !f.Exists {
		return f
	}
	f.Content = string(data)
	if _, err := hooks.Parse(data); err != nil {
		f.Error = err.Error()
		return f
	}
	for _, key := range []string{"hooks", hooks.DisabledKey} {
		s, err := hooks.ParseKey(data, key)
		if err != nil {
			f.Error = err.Error()
			return f
		}
		for _, ev := range hooks.Events {
			for gi, m := range s.Hooks[ev] {
				for hi, h := range m.Hooks {
					e := HookEntry{Event: string(ev), Matcher: m.Matcher, Group: gi, Handler: hi, Type: h.Type, Command: h.Command,
						URL: h.URL, Timeout: h.Timeout, Disabled: key == hooks.DisabledKey, Runs: []hooks.Run{}}
					if !e.Disabled {
						name := h.Command
						if h.Type == hooks.TypeHTTP {
							name = redact.URL(h.URL)
						}
						e.Runs = d.hookRuns.of(source, name)
					}
					f.Hooks = append(f.Hooks, e)
				}
			}
		}
	}
	return f
}

// hookPath is the file of source ("user" or "workspace") for the open
// workspace dir.
func (d *Desktop) hookPath(source, dir string) (string, error) {
	switch source {
	case hooks.SourceUser:
		return filepath.Join(d.build.Dirs.Config, hooks.FileName), nil
	case hooks.SourceWorkspace:
		return hooks.WorkspaceFile(dir), nil
	}
	return "", fmt.Errorf("hooks of %q: use %q or %q", source, hooks.SourceUser, hooks.SourceWorkspace)
}

// SaveHooks writes content (Claude Code's settings format) as the user's
// or the workspace's hooks file, atomically, once it reads as hooks. The
// workspace's stay trusted when they were (or there were none): the user
// wrote what they now hold. The agent takes them up at once when no turn
// runs.
func (d *Desktop) SaveHooks(source, content string) (HooksInfo, error) {
	return d.changeHooks(source, func(file string, _ []byte) ([]byte, error) { return []byte(content), nil })
}

// SetHookDisabled turns a hook off (it moves to "disabledHooks" in the
// same file, which no one runs) or back on; group and handler are the
// HookEntry's.
func (d *Desktop) SetHookDisabled(source, event string, group, handler int, disabled bool) (HooksInfo, error) {
	if !slices.Contains(hooks.Events, hooks.Event(event)) {
		return HooksInfo{}, fmt.Errorf("no hook event %q", event)
	}
	return d.changeHooks(source, func(file string, data []byte) ([]byte, error) {
		return hooks.SetDisabled(data, hooks.Event(event), group, handler, disabled)
	})
}

func (d *Desktop) changeHooks(source string, change func(file string, data []byte) ([]byte, error)) (HooksInfo, error) {
	ws, err := d.current()
	if err != nil {
		return HooksInfo{}, err
	}
	file, err := d.hookPath(source, ws.dir)
	if err != nil {
		return HooksInfo{}, err
	}
	trust := gate.Trust(d.build.Dirs)
	before, err := trust.Workspace(ws.dir)
	if err != nil && source == hooks.SourceWorkspace {
		return HooksInfo{}, err
	}
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return HooksInfo{}, fmt.Errorf("read hooks: %w", err)
	}
	out, err := change(file, data)
	if err != nil {
		return HooksInfo{}, err
	}
	if err := hooks.WriteFile(file, out); err != nil {
		return HooksInfo{}, fmt.Errorf("%s: %w", file, err)
	}
	if source == hooks.SourceWorkspace && (!before.Exists || before.Trusted) {
		after, err := trust.Workspace(ws.dir)
		if err != nil {
			return HooksInfo{}, err
		}
		if err := trust.Grant(ws.dir, after.Digest); err != nil {
			return HooksInfo{}, err
		}
	}
	return d.applyHooks(ws.dir), nil
}

// TrustHooks trusts the workspace's hooks as the window showed them:
// digest is HookFile.Digest; hooks changed since are not trusted.
func (d *Desktop) TrustHooks(digest string) (HooksInfo, error) {
	ws, err := d.current()
	if err != nil {
		return HooksInfo{}, err
	}
	trust := gate.Trust(d.build.Dirs)
	st, err := trust.Workspace(ws.dir)
	if err != nil {
		return HooksInfo{}, err
	}
	if !st.Exists {
		return HooksInfo{}, fmt.Errorf("%s has no hooks to trust", ws.dir)
	}
	if st.Digest != digest {
		return HooksInfo{}, errors.New("the workspace's hooks changed since they were shown: look at them again")
	}
	if _, err := hooks.Parse(st.Content); err != nil {
		return HooksInfo{}, fmt.Errorf("%s: %w", st.Path, err)
	}
	if err := trust.Grant(ws.dir, digest); err != nil {
		return HooksInfo{}, err
	}
	return d.applyHooks(ws.dir), nil
}

// ClaudeHooks reads the hooks of the workspace's Claude Code settings
// (.claude/settings.json, .claude/settings.local.json) to show them
// before an import. Only this call, the user's, reads them.
func (d *Desktop) ClaudeHooks() (hooks.ClaudeImport, error) {
	ws, err := d.current()
	if err != nil {
		return hooks.ClaudeImport{}, err
	}
	return hooks.ReadClaude(ws.dir)
}

// ImportClaudeHooks adds the hooks ClaudeHooks showed (digest is its) to
// the workspace's .freeact/hooks.json, trusted since the user saw them,
// unless the workspace had hooks the user had not trusted.
func (d *Desktop) ImportClaudeHooks(digest string) (HooksInfo, error) {
	ws, err := d.current()
	if err != nil {
		return HooksInfo{}, err
	}
	trusted, err := hooks.ImportClaudeTrusted(ws.dir, digest, gate.Trust(d.build.Dirs))
	if err != nil {
		return HooksInfo{}, err
	}
	info := d.applyHooks(ws.dir)
	if !trusted {
		info.Note = "Imported. The workspace's other hooks are not trusted, so none of them run: trust them below once you have read them."
	}
	return info, nil
}

// applyHooks restarts the agent (when no turn runs) so that it runs the
// hooks as they are now, and returns them.
func (d *Desktop) applyHooks(dir string) HooksInfo {
	info := d.hooksInfo(dir)
	if err := d.restartAgent("a turn is running"); err != nil {
		info.Note = "Saved. The agent runs them from its next start (Apply settings, once the turn ended)."
		return info
	}
	info.Note = "Saved and applied: the agent restarted with them."
	return info
}
