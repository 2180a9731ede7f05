package sandboxcfg

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/freeact/desktop/agent/config"
)

func TestHiddenListsEachPathOnceAndMakesTheMissingOnesPrivate(t *testing.T) {
	dir := t.TempDir()
	keys, locks := filepath.Join(dir, "keys"), filepath.Join(dir, "locks")
	got := Hidden([]string{keys, "", locks, keys})
	if want := []string{keys, locks}; !slices.Equal(got, want) {
		t.Fatalf("Hidden = %q, want %q", got, want)
	}
	for _, p := range got {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatalf("%s was not made: %v", p, err)
		}
		if !st.IsDir() || st.Mode().Perm() != 0o700 {
			t.Errorf("%s is %v, want a folder with mode 0700", p, st.Mode())
		}
	}
}

func TestConfigFileIsRelativeToTheWorkspace(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "srt.json")
	for _, tc := range []struct {
		name string
		set  *string
		want string
	}{
		{"unset", nil, ""},
		{"empty", new(string), ""},
		{"relative", ptr("conf/srt.json"), filepath.Join("/ws", "conf/srt.json")},
		{"absolute", &abs, abs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &config.Config{Dir: "/ws"}
			cfg.Options.SandboxConfig = tc.set
			if got := ConfigFile(cfg); got != tc.want {
				t.Errorf("ConfigFile = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSettingsRefusesJupyterURL(t *testing.T) {
	cfg := &config.Config{Dir: t.TempDir()}
	cfg.Options.Sandbox = true
	cfg.Options.JupyterURL = ptr("http://server:8888")
	if sb, err := Settings(cfg, nil); err == nil || sb != nil {
		t.Fatalf("Settings with jupyter_url = %v, %v; want an error", sb, err)
	}
	cfg.Options.Sandbox = false
	if sb, err := Settings(cfg, nil); err != nil || sb != nil {
		t.Fatalf("Settings without sandbox = %v, %v; want nil, nil", sb, err)
	}
}

func ptr(s string) *string { return &s }
