package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestAppSettings(t *testing.T) {
	a := NewAppStore(filepath.Join(t.TempDir(), "freeact"))
	s, err := a.Settings()
	if err != nil || !reflect.DeepEqual(s, AppSettings{}) {
		t.Fatalf("missing file: %+v, %v", s, err)
	}
	for i := range 12 {
		s.AddRecent(filepath.FromSlash("/ws/") + string(rune('a'+i)))
	}
	s.AddRecent(filepath.FromSlash("/ws/c"))
	s.Window = &Window{X: 10, Y: 20, Width: 1200, Height: 800}
	s.LastModel = "openai:gpt-5"
	if err := a.SaveSettings(s); err != nil {
		t.Fatal(err)
	}
	back, err := a.Settings()
	if err != nil || !reflect.DeepEqual(back, s) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	if len(back.RecentWorkspaces) != 10 || back.RecentWorkspaces[0] != filepath.FromSlash("/ws/c") || back.RecentWorkspaces[1] != filepath.FromSlash("/ws/l") {
		t.Fatalf("recent = %v", back.RecentWorkspaces)
	}
	if err := os.WriteFile(filepath.Join(a.Dir(), "settings.json"), []byte(`{"recent": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Settings(); err == nil || !strings.Contains(err.Error(), "settings.json") {
		t.Fatalf("bad settings file: %v", err)
	}
}

func TestAPIKeys(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg", "freeact")
	a := NewAppStore(dir)
	if _, err := a.SetAPIKey("GEMINI_API_KEY", "secret-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.SetAPIKey("OPENAI_API_KEY", "secret-2"); err != nil {
		t.Fatal(err)
	}
	if got := a.KeyStorage(); got.Kind != InFile || got.Where != filepath.Join(dir, "credentials.json") {
		t.Errorf("storage without a keyring = %+v", got)
	}
	keys, err := a.APIKeys()
	if err != nil || keys["GEMINI_API_KEY"] != "secret-1" || keys["OPENAI_API_KEY"] != "secret-2" {
		t.Fatalf("keys %v, %v", keys, err)
	}
	st, err := os.Stat(filepath.Join(dir, "credentials.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("credentials file mode %v, %v", st.Mode(), err)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("app dir mode %v, %v", st.Mode(), err)
	}
	if _, err := a.SetAPIKey("GEMINI_API_KEY", ""); err != nil {
		t.Fatal(err)
	}
	if keys, _ := a.APIKeys(); len(keys) != 1 {
		t.Fatalf("after removal: %v", keys)
	}
	if _, err := a.SetAPIKey("not a name", "x"); err == nil {
		t.Fatal("accepted a bad variable name")
	}
	// Keys reach a workspace only through LoadOptions, never its files.
	ws := t.TempDir()
	if err := Init(ws); err != nil {
		t.Fatal(err)
	}
	keys, _ = a.APIKeys()
	c, err := Load(ws, LoadOptions{Lookup: noEnv, APIKeys: keys})
	if err != nil || c.Env.Getenv("OPENAI_API_KEY") != "secret-2" {
		t.Fatalf("key not visible through Env: %v", err)
	}
	data, _ := os.ReadFile(filepath.Join(ws, FreeactDir, AgentFile))
	// The values, not the word: a key's name may hold it
	// (jupyter_oauth_client_secret).
	if strings.Contains(string(data), "secret-1") || strings.Contains(string(data), "secret-2") {
		t.Fatal("a key ended up in agent.json")
	}
}
