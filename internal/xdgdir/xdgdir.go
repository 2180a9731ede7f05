// Package xdgdir resolves the XDG base directories (config, data, state)
// from the environment at the time of the call. It keeps no state, so
// tests and processes that change HOME or XDG_* see the change at once and
// concurrent callers never race on a shared copy.
package xdgdir

import (
	"os"
	"path/filepath"
)

// Config returns $XDG_CONFIG_HOME, else ~/.config.
func Config() string { return base("XDG_CONFIG_HOME", ".config") }

// Data returns $XDG_DATA_HOME, else ~/.local/share.
func Data() string { return base("XDG_DATA_HOME", filepath.Join(".local", "share")) }

// State returns $XDG_STATE_HOME, else ~/.local/state.
func State() string { return base("XDG_STATE_HOME", filepath.Join(".local", "state")) }

// base follows the XDG Base Directory rules: a set, absolute variable wins;
// otherwise the default below the home directory. Without a home directory
// (a stripped-down service environment) the temporary directory stands in,
// so callers always get an absolute path.
func base(env, fallback string) string {
	if d := os.Getenv(env); filepath.IsAbs(d) {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		home = os.TempDir()
	}
	return filepath.Join(home, fallback)
}
