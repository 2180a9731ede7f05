package adapter

import (
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/session"
	"github.com/freeact/desktop/internal/appdirs"
)

// KeyStore is the app's one store of API keys over its folders: keys the
// user saved, kept in the system keyring when it answers.
func KeyStore(dirs appdirs.Dirs) *config.AppStore {
	return config.NewAppStore(dirs.Config).WithKeyring(config.SecretService())
}

// OpenWorkspace opens (scaffolding what is missing) the workspace folder
// dir, a leading ~ the home folder, with the key store keys and the app's
// folders.
func OpenWorkspace(dir string, keys *config.AppStore, dirs appdirs.Dirs, log *slog.Logger) (*agent.Workspace, error) {
	return agent.OpenWorkspace(ExpandHome(dir), agent.WorkspaceOptions{Keys: keys, Log: log, Dirs: dirs})
}

// SessionExists reports whether the session id has been written in the
// workspace of cfg (a new session has no file before its first turn).
func SessionExists(cfg *config.Config, id string) bool {
	st, err := session.Open[json.RawMessage](cfg.SessionsDir(), id)
	return err == nil && st.Exists()
}

// BusySession reports whether err is the session lock another freeact
// process (a window, a terminal) holds, and that process's id (0 when
// unknown).
func BusySession(err error) (pid int, busy bool) {
	var b *session.BusyError
	if errors.As(err, &b) {
		return b.PID, true
	}
	return 0, errors.Is(err, session.ErrBusy)
}

// PIDText is ", pid N" for a known process id, "" for 0.
func PIDText(pid int) string {
	if pid <= 0 {
		return ""
	}
	return ", pid " + strconv.Itoa(pid)
}
