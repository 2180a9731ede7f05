package desktop

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/app/adapter"
)

// LaunchTarget is what the window opens at start: the workspace of
// `freeact PATH`, else the one open last, with the conversation last open
// in it. Path is "" when there is none (the window shows the picker).
type LaunchTarget struct {
	Path      string `json:"path"`
	SessionID string `json:"sessionId"`
	// FromCommandLine is set for the workspace of `freeact PATH`.
	FromCommandLine bool `json:"fromCommandLine"`
}

// Launch returns what to open at start. It answers once per window; later
// calls (a reloaded page, or a second page on the dev server) return an
// empty target, and learn of the workspace the first page opens from
// EventWorkspace.
func (d *Desktop) Launch() (LaunchTarget, error) {
	var t LaunchTarget
	var err error
	d.launchOnce.Do(func() { t, err = d.launchTarget() })
	return t, err
}

func (d *Desktop) launchTarget() (LaunchTarget, error) {
	s, err := d.store.Settings()
	if err != nil {
		return LaunchTarget{Path: d.launch, FromCommandLine: d.launch != ""}, fmt.Errorf("read the last workspace: %w", err)
	}
	if d.launch != "" {
		return LaunchTarget{Path: d.launch, SessionID: s.LastSessions[d.launch], FromCommandLine: true}, nil
	}
	for _, p := range s.RecentWorkspaces {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return LaunchTarget{Path: p, SessionID: s.LastSessions[p]}, nil
		}
	}
	return LaunchTarget{}, nil
}

// rememberSession records the conversation open in a workspace, which
// reopens with it.
func (d *Desktop) rememberSession(dir, id string) {
	if err := d.store.Update(func(s *config.AppSettings) { s.SetLastSession(dir, id) }); err != nil {
		d.log.Warn("remember the open session", "err", err)
	}
}

// FolderCheck says what a typed workspace path names.
type FolderCheck struct {
	// Path is absolute, with ~ expanded.
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	IsDir  bool   `json:"isDir"`
}

// InspectFolder expands ~ in a typed path, makes it absolute and says
// whether it is an existing folder, so the picker can offer to create a
// missing one.
func (d *Desktop) InspectFolder(path string) (FolderCheck, error) {
	if path == "" {
		return FolderCheck{}, errors.New("no folder given: type a path such as ~/projects/demo")
	}
	abs, err := filepath.Abs(adapter.ExpandHome(path))
	if err != nil {
		return FolderCheck{}, fmt.Errorf("folder %s: %w", path, err)
	}
	c := FolderCheck{Path: abs}
	st, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return c, fmt.Errorf("folder %s: %w", abs, err)
	default:
		c.Exists, c.IsDir = true, st.IsDir()
	}
	return c, nil
}

// CreateFolder creates a missing workspace folder (with its parents) and
// returns its absolute path; OpenWorkspace opens it next.
func (d *Desktop) CreateFolder(path string) (string, error) {
	c, err := d.InspectFolder(path)
	if err != nil {
		return "", err
	}
	if c.Exists {
		if !c.IsDir {
			return "", fmt.Errorf("%s is a file, not a folder", c.Path)
		}
		return c.Path, nil
	}
	if err := os.MkdirAll(c.Path, 0o755); err != nil {
		return "", fmt.Errorf("create folder %s: %w", c.Path, err)
	}
	return c.Path, nil
}
