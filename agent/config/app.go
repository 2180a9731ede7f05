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
	"strings"
	"sync"

	"github.com/freeact/desktop/internal/atomicfile"
	"github.com/freeact/desktop/internal/strictjson"
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
	// MaxLiveKernels limits the conversations whose kernels the window
	// keeps running (0: the default, 4); idle ones beyond it stop.
	MaxLiveKernels int `json:"max_live_kernels,omitempty"`
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

// AppStore reads and writes the app's settings.json and its API keys in
// one directory (normally appdirs.Dirs.Config). API keys go to the OS keyring
// when the store has one that answers, else to credentials.json. It is safe
// for concurrent use.
type AppStore struct {
	dir     string
	keyring Keyring // nil: the credentials file only
	mu      sync.Mutex
}

// NewAppStore returns the store for directory dir; it keeps API keys in
// its credentials file.
func NewAppStore(dir string) *AppStore { return &AppStore{dir: dir} }

// WithKeyring makes the store keep new API keys in k when k answers.
func (a *AppStore) WithKeyring(k Keyring) *AppStore {
	a.keyring = k
	return a
}

// Dir returns the store's directory.
func (a *AppStore) Dir() string { return a.dir }

func (a *AppStore) settingsFile() string    { return filepath.Join(a.dir, "settings.json") }
func (a *AppStore) credentialsFile() string { return filepath.Join(a.dir, "credentials.json") }

// keyringIndexFile lists the names of the keys kept in the keyring, which
// cannot list them itself (it holds no secret).
func (a *AppStore) keyringIndexFile() string { return filepath.Join(a.dir, "keyring-keys.json") }

// Settings loads the app settings; a missing file gives empty settings.
func (a *AppStore) Settings() (AppSettings, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.readSettings()
}

func (a *AppStore) readSettings() (AppSettings, error) {
	var s AppSettings
	if err := readJSON(a.settingsFile(), "app settings", "fix or delete the file", &s); err != nil {
		return AppSettings{}, err
	}
	return s, nil
}

// readJSON decodes the JSON file at path into v, strictly; a missing file
// leaves v as it is. what names the content in errors, fix says how to
// repair a file that does not decode.
func readJSON(path, what, fix string, v any) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", what, err)
	}
	if err := strictjson.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w (%s)", path, err, fix)
	}
	return nil
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

// Where API keys are kept.
const (
	InKeyring = "keyring"
	InFile    = "file"
)

// KeyStorage says where the store keeps API keys.
type KeyStorage struct {
	// Kind is InKeyring when new keys go to the OS keyring, else InFile.
	Kind string `json:"kind"`
	// Where names the place: the keyring, or the credentials file's path.
	Where string `json:"where"`
	// Reason says why the keyring is not used, when it is not.
	Reason string `json:"reason,omitempty"`
}

// keyringProbe is a name no key has, looked up to see whether the keyring
// answers.
const keyringProbe = "FREEACT_KEYRING_PROBE"

// KeyStorage says where a key stored now goes: the keyring when it
// answers, else the credentials file (readable by the user only).
func (a *AppStore) KeyStorage() KeyStorage {
	file := KeyStorage{Kind: InFile, Where: a.credentialsFile()}
	if a.keyring == nil {
		file.Reason = "this build uses no keyring"
		return file
	}
	if _, err := a.keyring.Get(keyringProbe); err != nil && !errors.Is(err, ErrSecretNotFound) {
		file.Reason = a.keyring.Name() + " is not available: " + err.Error()
		return file
	}
	return KeyStorage{Kind: InKeyring, Where: a.keyring.Name()}
}

// SetAPIKey stores an API key under its environment variable name (such as
// GEMINI_API_KEY): in the keyring when it answers, else in
// credentials.json, readable by the user only (0600). A key is kept in one
// place: storing it in the keyring removes it from the file. An empty key
// removes it from both. It returns where the key went.
func (a *AppStore) SetAPIKey(name, key string) (KeyStorage, error) {
	if !envName.MatchString(name) {
		return KeyStorage{}, fmt.Errorf("store API key: %q is not an environment variable name like GEMINI_API_KEY", name)
	}
	storage := a.KeyStorage()
	a.mu.Lock()
	defer a.mu.Unlock()
	index, err := a.readIndex()
	if err != nil {
		return KeyStorage{}, err
	}
	inKeyring := slices.Contains(index, name)
	switch {
	case key == "" && inKeyring:
		if err := a.keyring.Delete(name); err != nil {
			return KeyStorage{}, fmt.Errorf("remove API key from %s: %w", a.keyring.Name(), err)
		}
		index = slices.DeleteFunc(index, func(n string) bool { return n == name })
	case key != "" && storage.Kind == InKeyring:
		if err := a.keyring.Set(name, key); err != nil {
			return KeyStorage{}, fmt.Errorf("store API key in %s: %w", a.keyring.Name(), err)
		}
		if !inKeyring {
			index = append(index, name)
		}
	case inKeyring:
		// The keyring went away: the new key goes to the file, and the
		// old one in the keyring is no longer read.
		index = slices.DeleteFunc(index, func(n string) bool { return n == name })
	}
	if err := a.writeIndex(index); err != nil {
		return KeyStorage{}, err
	}
	fileKey := key
	if storage.Kind == InKeyring {
		fileKey = ""
	}
	if err := a.setFileKey(name, fileKey); err != nil {
		return KeyStorage{}, err
	}
	return storage, nil
}

// setFileKey sets or (with "") removes a key of credentials.json.
func (a *AppStore) setFileKey(name, key string) error {
	keys, err := a.readKeys()
	if err != nil {
		return err
	}
	if _, ok := keys[name]; !ok && key == "" {
		return nil
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

// StoredKey is where one stored API key is kept.
type StoredKey struct {
	Name string `json:"name"`
	// Kind is InKeyring or InFile.
	Kind string `json:"kind"`
	// Problem says why a key of the keyring cannot be read now.
	Problem string `json:"problem,omitempty"`
}

// StoredKeys lists the stored API keys (never their values), by name.
func (a *AppStore) StoredKeys() ([]StoredKey, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	keys, index, err := a.readStored()
	if err != nil {
		return nil, err
	}
	var out []StoredKey
	for _, name := range index {
		k := StoredKey{Name: name, Kind: InKeyring}
		if _, err := a.keyringGet(name); err != nil {
			k.Problem = err.Error()
		}
		out = append(out, k)
	}
	for name := range keys {
		out = append(out, StoredKey{Name: name, Kind: InFile})
	}
	slices.SortFunc(out, func(x, y StoredKey) int { return strings.Compare(x.Name, y.Name) })
	return out, nil
}

// APIKeys returns the stored keys by environment variable name: those of
// the keyring that it gives, and those of the credentials file.
func (a *AppStore) APIKeys() (map[string]string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	keys, index, err := a.readStored()
	if err != nil {
		return nil, err
	}
	for _, name := range index {
		if v, err := a.keyringGet(name); err == nil {
			keys[name] = v
		}
	}
	return keys, nil
}

func (a *AppStore) keyringGet(name string) (string, error) {
	if a.keyring == nil {
		return "", errors.New("this build uses no keyring")
	}
	return a.keyring.Get(name)
}

// readStored reads the credentials file and the keyring's index.
func (a *AppStore) readStored() (map[string]string, []string, error) {
	keys, err := a.readKeys()
	if err != nil {
		return nil, nil, err
	}
	index, err := a.readIndex()
	if err != nil {
		return nil, nil, err
	}
	return keys, index, nil
}

func (a *AppStore) readKeys() (map[string]string, error) {
	keys := map[string]string{}
	if err := readJSON(a.credentialsFile(), "API keys", "fix or delete the file, then enter the keys again", &keys); err != nil {
		return nil, err
	}
	return keys, nil
}

func (a *AppStore) readIndex() ([]string, error) {
	var index []string
	if err := readJSON(a.keyringIndexFile(), "API keys", "delete the file, then enter the keys again", &index); err != nil {
		return nil, err
	}
	return index, nil
}

func (a *AppStore) writeIndex(index []string) error {
	if len(index) == 0 {
		if err := os.Remove(a.keyringIndexFile()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("store API key: %w", err)
		}
		return nil
	}
	slices.Sort(index)
	data, err := json.Marshal(index)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(a.dir, 0o700); err != nil {
		return fmt.Errorf("store API key: %w", err)
	}
	if err := atomicfile.Write(a.keyringIndexFile(), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("store API key: %w", err)
	}
	return nil
}
