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
	"path/filepath"

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
		Documents: xdg.UserDirs.Documents,
	}
}

// In returns folders all below root, with no system-wide folders: what a
// test gives the code it runs.
func In(root string) Dirs {
	return Dirs{
		Config:    filepath.Join(root, "config", Name),
		Data:      filepath.Join(root, "data", Name),
		State:     filepath.Join(root, "state", Name),
		Documents: filepath.Join(root, "Documents"),
	}
}

// Checkpoints holds the checkpoint stores of all workspaces; "" without
// a data folder.
func (d Dirs) Checkpoints() string { return below1(d.Data, "checkpoints") }

// Jupyter holds the Jupyter servers' runtime files and kernel specs; ""
// without a state folder.
func (d Dirs) Jupyter() string { return below1(d.State, "jupyter") }

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
