package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"

	"github.com/freeact/desktop/internal/atomicfile"
	"github.com/freeact/desktop/internal/strictjson"
	"github.com/freeact/desktop/internal/xdgdir"
)

// AppName is the folder name of the app under the XDG directories.
const AppName = "freeact"

// maxRecent bounds the recent workspaces list.
const maxRecent = 10

// AppSettings are the app-level settings, kept apart from any workspace.
type AppSettings struct {
	RecentWorkspaces []string `json:"recent_workspaces"`
	Window           *Window  `json:"window,omitempty"`
	LastModel        string   `json:"last_model,omitempty"`
	// LastSessions is the conversation last open in each workspace (by
	// its absolute path), which reopens with it.
	LastSessions map[string]string `json:"last_sessions,omitempty"`
}

// Window is the main window's geometry.
type Window struct {
	X         int  `json:"x"`
	Y         int  `json:"y"`
	Width     int  `json:"width"`
	Height    int  `json:"height"`
	Maximized bool `json:"maximized"`
}

// AddRecent puts workspace first in the recent list, without duplicates.
func (s *AppSettings) AddRecent(workspace string) {
	s.RecentWorkspaces = slices.DeleteFunc(s.RecentWorkspaces, func(w string) bool { return w == workspace })
	s.RecentWorkspaces = append([]string{workspace}, s.RecentWorkspaces...)
	if len(s.RecentWorkspaces) > maxRecent {
		s.RecentWorkspaces = s.RecentWorkspaces[:maxRecent]
	}
}

// SetLastSession records the conversation open in workspace; "" forgets
// it. Workspaces that left the recent list are forgotten as well.
func (s *AppSettings) SetLastSession(workspace, id string) {
	if s.LastSessions == nil {
		s.LastSessions = map[string]string{}
	}
	if id == "" {
		delete(s.LastSessions, workspace)
	} else {
		s.LastSessions[workspace] = id
	}
	for w := range s.LastSessions {
		if !slices.Contains(s.RecentWorkspaces, w) {
			delete(s.LastSessions, w)
		}
	}
}

// DefaultAppDir returns $XDG_CONFIG_HOME/freeact (~/.config/freeact when
// unset). It reads the environment afresh on every call.
func DefaultAppDir() string { return filepath.Join(xdgdir.Config(), AppName) }

// AppStore reads and writes the app's settings.json and credentials.json
// in one directory (normally DefaultAppDir). It is safe for concurrent use.
type AppStore struct {
	dir string
	mu  sync.Mutex
}

// NewAppStore returns the store for directory dir.
func NewAppStore(dir string) *AppStore { return &AppStore{dir: dir} }

// Dir returns the store's directory.
func (a *AppStore) Dir() string { return a.dir }

func (a *AppStore) settingsFile() string    { return filepath.Join(a.dir, "settings.json") }
func (a *AppStore) credentialsFile() string { return filepath.Join(a.dir, "credentials.json") }

// Settings loads the app settings; a missing file gives empty settings.
func (a *AppStore) Settings() (AppSettings, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.readSettings()
}

func (a *AppStore) readSettings() (AppSettings, error) {
	var s AppSettings
	data, err := os.ReadFile(a.settingsFile())
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("read app settings: %w", err)
	}
	if err := strictjson.Unmarshal(data, &s); err != nil {
		return AppSettings{}, fmt.Errorf("%s: %w (fix or delete the file)", a.settingsFile(), err)
	}
	return s, nil
}

// SaveSettings writes the app settings atomically.
func (a *AppStore) SaveSettings(s AppSettings) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.writeSettings(s)
}

func (a *AppStore) writeSettings(s AppSettings) error {
	if err := a.writeJSON(a.settingsFile(), s, 0o644); err != nil {
		return fmt.Errorf("save app settings: %w", err)
	}
	return nil
}

// writeJSON writes v, indented, to file in the app's folder (made when
// missing), atomically.
func (a *AppStore) writeJSON(file string, v any, perm os.FileMode) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(a.dir, 0o700); err != nil {
		return err
	}
	return atomicfile.Write(file, append(data, '\n'), perm)
}

// Update reads the settings, lets change edit them and writes them back,
// as one step: concurrent updates do not lose each other's changes.
func (a *AppStore) Update(change func(*AppSettings)) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, err := a.readSettings()
	if err != nil {
		return err
	}
	change(&s)
	return a.writeSettings(s)
}

var envName = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)

// SetAPIKey stores an API key under its environment variable name (such as
// GEMINI_API_KEY) in credentials.json, readable by the user only (0600).
// An empty key removes it.
func (a *AppStore) SetAPIKey(name, key string) error {
	if !envName.MatchString(name) {
		return fmt.Errorf("store API key: %q is not an environment variable name like GEMINI_API_KEY", name)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	keys, err := a.readKeys()
	if err != nil {
		return err
	}
	if key == "" {
		delete(keys, name)
	} else {
		keys[name] = key
	}
	if err := a.writeJSON(a.credentialsFile(), keys, 0o600); err != nil {
		return fmt.Errorf("store API key: %w", err)
	}
	return nil
}

// APIKeys returns the stored keys by environment variable name.
func (a *AppStore) APIKeys() (map[string]string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.readKeys()
}

func (a *AppStore) readKeys() (map[string]string, error) {
	keys := map[string]string{}
	data, err := os.ReadFile(a.credentialsFile())
	if errors.Is(err, fs.ErrNotExist) {
		return keys, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read API keys: %w", err)
	}
	if err := strictjson.Unmarshal(data, &keys); err != nil {
		return nil, fmt.Errorf("%s: %w (fix or delete the file, then enter the keys again)", a.credentialsFile(), err)
	}
	return keys, nil
}
