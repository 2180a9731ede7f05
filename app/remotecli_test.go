package app

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/internal/appdirs"
	"github.com/freeact/desktop/internal/remotetest"
	"github.com/freeact/desktop/kernel/hub"
)

// `freeact remote login --workspace DIR` with the token on stdin checks it
// against a real Hub and keeps it in the key store, not in agent.json; a
// token without a scope is refused by the scope's name, a revoked one as
// refused, neither shown; logout removes it.
func TestRemoteLoginCommand(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent") // no keyring: keys in a 0600 file
	local := t.TempDir()
	h := remotetest.StartHub(t, remotetest.Options{Hide: local})
	ws := filepath.Join(local, "ws")
	if err := os.MkdirAll(filepath.Join(ws, ".freeact"), 0o755); err != nil {
		t.Fatal(err)
	}
	agentJSON, _ := json.Marshal(map[string]any{"jupyter_url": h.URL})
	if err := os.WriteFile(filepath.Join(ws, ".freeact", "agent.json"), agentJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	b := Build{Dirs: appdirs.In(t.TempDir())}
	good, _ := h.Token(remotetest.HubUser, hub.Scopes...)
	narrow, _ := h.Token(remotetest.HubUser, "read:servers!user", "access:servers!user")
	revoked, id := h.Token(remotetest.HubUser)
	h.Revoke(remotetest.HubUser, id)
	base, _ := hub.Base(h.URL)
	name := hub.TokenName(base)
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"narrow token", []string{"remote", "login", "--workspace", ws}, narrow, 1, "", "lacks a scope: servers!user"},
		{"revoked token", []string{"remote", "login", "--workspace", ws}, revoked + "\n", 1, "", "token was refused"},
		{"no token", []string{"remote", "login", "--workspace", ws}, "", 1, "", "no token given"},
		{"login", []string{"remote", "login", "--workspace", ws}, good + "\n", 0, "Signed in to " + h.URL + " as ada", ""},
		{"unknown subcommand", []string{"remote", "status"}, "", 2, "", "remote takes login or logout"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(context.Background(), tc.args, b, Streams{In: strings.NewReader(tc.stdin), Out: &stdout, Err: &stderr})
			if code != tc.wantCode || !strings.Contains(stdout.String(), tc.wantStdout) || !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("freeact %s: code %d, stdout %q, stderr %q; want code %d, stdout with %q, stderr with %q",
					strings.Join(tc.args, " "), code, stdout.String(), stderr.String(), tc.wantCode, tc.wantStdout, tc.wantStderr)
			}
			for _, tok := range []string{good, narrow, revoked} {
				if strings.Contains(stdout.String()+stderr.String(), tok) {
					t.Errorf("the output shows a token")
				}
			}
		})
	}
	keys, err := config.NewAppStore(b.Dirs.Config).APIKeys()
	if err != nil || keys[name] != good {
		t.Fatalf("key store after login: %v, has the token under %s: %v", err, name, keys[name] == good)
	}
	if after, _ := os.ReadFile(filepath.Join(ws, ".freeact", "agent.json")); !bytes.Equal(after, agentJSON) || strings.Contains(string(after), good) {
		t.Errorf("agent.json changed: %s", after)
	}
	var stdout, stderr bytes.Buffer
	if code := Main(context.Background(), []string{"remote", "logout", "--workspace", ws}, b, Streams{In: strings.NewReader(""), Out: &stdout, Err: &stderr}); code != 0 {
		t.Fatalf("logout: %d %s", code, stderr.String())
	}
	if keys, _ := config.NewAppStore(b.Dirs.Config).APIKeys(); keys[name] != "" {
		t.Errorf("the token is still stored after logout")
	}

	// --browser: the Hub's OAuth sign-in, the link on stderr, the token
	// kept as a pasted one is; the client secret comes from the
	// environment, never shown.
	t.Setenv("BROWSER", h.Browser(remotetest.HubUser, filepath.Join(t.TempDir(), "browser.log")))
	t.Setenv("FREEACT_TEST_HUB_SECRET", h.OAuthSecret)
	agentJSON, _ = json.Marshal(map[string]any{"jupyter_url": h.URL, "jupyter_oauth_client_id": h.OAuthClientID,
		"jupyter_oauth_client_secret": "${FREEACT_TEST_HUB_SECRET}", "jupyter_oauth_redirect_uri": h.OAuthRedirectURI})
	if err := os.WriteFile(filepath.Join(ws, ".freeact", "agent.json"), agentJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	if code := Main(context.Background(), []string{"remote", "login", "--browser", "--workspace", ws}, b, Streams{In: strings.NewReader(""), Out: &stdout, Err: &stderr}); code != 0 {
		t.Fatalf("login --browser: %d %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "Signed in to "+h.URL+" as ada") || !strings.Contains(stderr.String(), "hub/api/oauth2/authorize?") {
		t.Errorf("login --browser: stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	keys, _ = config.NewAppStore(b.Dirs.Config).APIKeys()
	if keys[name] == "" || strings.Contains(stdout.String()+stderr.String(), keys[name]) || strings.Contains(stdout.String()+stderr.String(), h.OAuthSecret) {
		t.Errorf("after login --browser: a token stored %v, the output shows the token or the secret", keys[name] != "")
	}
}
