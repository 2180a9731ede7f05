package xdgdir

import (
	"path/filepath"
	"testing"
)

func TestDirs(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env, val string
		f        func() string
		want     string
	}{
		{"config set", "XDG_CONFIG_HOME", "/x/conf", Config, "/x/conf"},
		{"config relative is ignored", "XDG_CONFIG_HOME", "rel", Config, "/home/u/.config"},
		{"config unset", "XDG_CONFIG_HOME", "", Config, "/home/u/.config"},
		{"data set", "XDG_DATA_HOME", "/x/data", Data, "/x/data"},
		{"data unset", "XDG_DATA_HOME", "", Data, "/home/u/.local/share"},
		{"state set", "XDG_STATE_HOME", "/x/state", State, "/x/state"},
		{"state unset", "XDG_STATE_HOME", "", State, "/home/u/.local/state"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("HOME", "/home/u")
			t.Setenv(tc.env, tc.val)
			if got := tc.f(); got != filepath.FromSlash(tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// A change of HOME is seen by the next call: nothing is cached.
func TestFollowsEnvironment(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", "/a")
	first := Data()
	t.Setenv("HOME", "/b")
	if second := Data(); first == second {
		t.Errorf("Data() stayed %q after HOME changed", first)
	}
}
