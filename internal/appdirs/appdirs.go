// Package appdirs owns where freeact keeps its files on this machine: its
// own folders below the XDG base directories, the system-wide data folders
// searched for a Python environment an administrator provides, and the
// user's documents folder, where a folder picker starts.
//
// github.com/adrg/xdg reads the environment once, when the program starts;
// FromXDG copies what it read into a Dirs value, and the program hands that
// value to what needs a folder. Nothing here is read again or changed
// later (xdg.Reload is never called), so tests build a Dirs of their own
// (In) instead of changing the environment, and nothing races.
package appdirs

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/adrg/xdg"
)

// Name is the folder freeact's files go in below each base directory.
const Name = "freeact"

// Dirs are the folders freeact uses.
type Dirs struct {
	// Config holds the app's settings and credentials:
	// $XDG_CONFIG_HOME/freeact (~/.config/freeact).
	Config string
	// Data holds the provisioned Python environment and the checkpoint
	// stores: $XDG_DATA_HOME/freeact (~/.local/share/freeact).
	Data string
	// State holds the Jupyter servers' runtime files and kernel specs:
	// $XDG_STATE_HOME/freeact (~/.local/state/freeact).
	State string
	// DataDirs are searched, in order, for a Python environment an
	// administrator provides: $XDG_DATA_DIRS/freeact
	// (/usr/local/share/freeact, /usr/share/freeact).
	DataDirs []string
	// Runtime holds what lives only while a process runs: each local
	// kernel's folder of its connection file and sockets.
	// $XDG_RUNTIME_DIR/freeact when that folder exists, else
	// $TMPDIR/freeact-<uid>. Kept short: a Unix socket's path has at most
	// 107 bytes.
	Runtime string
	// Documents is where the workspace folder picker starts
	// (XDG_DOCUMENTS_DIR of user-dirs.dirs, ~/Documents); "" for none.
	Documents string
}

// FromXDG returns the folders of the user running the program, from what
// adrg/xdg read from the environment when the program started.
func FromXDG() Dirs {
	return Dirs{
		Config:    filepath.Join(xdg.ConfigHome, Name),
		Data:      filepath.Join(xdg.DataHome, Name),
		State:     filepath.Join(xdg.StateHome, Name),
		DataDirs:  below(xdg.DataDirs),
		Runtime:   runtimeDir(xdg.RuntimeDir),
		Documents: xdg.UserDirs.Documents,
	}
}

// runtimeDir is freeact's folder below the runtime directory xdg names
// when it exists (it is made by the login session, never by us), else the
// fallback in the temporary folder.
func runtimeDir(xdgRuntime string) string {
	if fi, err := os.Stat(xdgRuntime); err == nil && fi.IsDir() && filepath.IsAbs(xdgRuntime) {
		return filepath.Join(xdgRuntime, Name)
	}
	return fallbackRuntime()
}

// fallbackRuntime is the runtime folder without a runtime directory:
// one a user, in the temporary folder.
func fallbackRuntime() string {
	return filepath.Join(os.TempDir(), Name+"-"+strconv.Itoa(os.Getuid()))
}

// In returns folders all below root, with no system-wide folders: what a
// test gives the code it runs.
func In(root string) Dirs {
	return Dirs{
		Config:    filepath.Join(root, "config", Name),
		Data:      filepath.Join(root, "data", Name),
		State:     filepath.Join(root, "state", Name),
		Runtime:   shortRuntime(root),
		Documents: filepath.Join(root, "Documents"),
	}
}

// shortRuntime is In's runtime folder: below the fallback runtime
// folder, named after root, since a test's root is often too long for a
// socket's path below it. Below the fallback, because every sandbox hides
// the fallback whole (Secrets): a sandbox of one test then finds no
// kernel of another test running beside it, as in use one user's
// processes find none of each other's.
func shortRuntime(root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(fallbackRuntime(), "t-"+hex.EncodeToString(sum[:6]))
}

// Checkpoints holds the checkpoint stores of all workspaces; "" without
// a data folder.
func (d Dirs) Checkpoints() string { return below1(d.Data, "checkpoints") }

// Jupyter holds the Jupyter servers' runtime files and kernel specs; ""
// without a state folder.
func (d Dirs) Jupyter() string { return below1(d.State, "jupyter") }

// MCPSignIn holds the MCP servers' sign-ins kept in files (without a
// Secret Service: tokens and client secrets) and their refresh locks; ""
// without a state folder.
func (d Dirs) MCPSignIn() string { return below1(d.State, "mcp-oauth") }

// Locks holds the lock files of conversations (one writer a session),
// named after what they lock; "" without a state folder.
func (d Dirs) Locks() string { return below1(d.State, "locks") }

// Kernels holds each local kernel's private folder: its connection file
// (with the key that signs its messages) and its sockets; "" without a
// runtime folder.
func (d Dirs) Kernels() string { return below1(d.Runtime, "kernels") }

// Store is a folder where freeact keeps what code in a sandbox must never
// read or open.
type Store struct {
	What string // what it holds, for messages and docs
	Path string
}

// Secrets are the app's folders that no sandbox may read or open: every
// sandbox hides all of them, whichever workspace or process it belongs
// to, so one workspace's code reaches nothing of another's. A new place
// where the app keeps a secret, a key or a lock goes here (and the test
// that walks what each store writes finds one that does not). Folders
// not set (an empty Dirs field) are left out.
func (d Dirs) Secrets() []Store {
	stores := []Store{
		// settings.json, credentials.json (API keys without a keyring),
		// the keyring's index and session-keys/ (agent/seal).
		{"settings, API keys and the keys that seal records of code", d.Config},
		{"checkpoints: earlier versions of every workspace's files, and their locks", d.Checkpoints()},
		{"MCP sign-ins kept in files, and their locks", d.MCPSignIn()},
		{"conversation locks", d.Locks()},
		{"kernel servers: kernel specs, sandbox settings, runtime files", d.Jupyter()},
		{"kernels' connection files and sockets", d.Runtime},
	}
	// Another process of the user may have found no runtime directory
	// (started outside the login session): its kernels are in the
	// fallback.
	// So may one started with another TMPDIR than the usual /tmp.
	for _, fb := range []string{fallbackRuntime(), filepath.Join("/tmp", Name+"-"+strconv.Itoa(os.Getuid()))} {
		if d.Runtime != "" && d.Runtime != fb && !slices.ContainsFunc(stores, func(s Store) bool { return s.Path == fb }) {
			stores = append(stores, Store{"kernels' connection files and sockets (without a runtime directory)", fb})
		}
	}
	out := stores[:0]
	for _, s := range stores {
		if s.Path != "" {
			out = append(out, s)
		}
	}
	return out
}

// SecretPaths are the paths of Secrets.
func (d Dirs) SecretPaths() []string {
	var out []string
	for _, s := range d.Secrets() {
		out = append(out, s.Path)
	}
	return out
}

// LockFile is the lock file in locks for what is at path: named after a
// hash of the absolute path, so every process finds the same file.
func LockFile(locks, kind, path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(locks, kind+"-"+hex.EncodeToString(sum[:16])+".lock")
}

// MakePrivate makes dir (and missing parents) with mode 0700 and checks
// that dir is a folder of this user's that no one else may enter: a
// folder in a shared place (the temporary folder) that someone else made
// first, or a link, is an error.
func MakePrivate(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return checkPrivate(dir)
}

func below1(dir, name string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, name)
}

func below(dirs []string) []string {
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		if filepath.IsAbs(d) {
			out = append(out, filepath.Join(d, Name))
		}
	}
	return out
}
