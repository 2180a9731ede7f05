package desktop

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/internal/remotetest"
	"github.com/freeact/desktop/kernel/hub"
)

// Settings → Kernel's JupyterHub card against a real Hub: the workspace
// starts without a token and says how to sign in; a pasted token without
// a scope is refused by its name and not kept; a good one is checked,
// kept in the key store (not agent.json) and shown as "signed in as ada";
// Sign out removes it; Sign in in the browser shows the sign-in card (the
// Hub's authorize URL with PKCE) until the browser ($BROWSER, a script
// doing what the user does) came back, then ada again. No token reaches
// an event or the log.
func TestDesktopHubSignIn(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent") // no keyring: keys in a 0600 file
	local := t.TempDir()
	hb := remotetest.StartHub(t, remotetest.Options{Hide: local})
	t.Setenv("BROWSER", hb.Browser(remotetest.HubUser, filepath.Join(t.TempDir(), "browser.log")))
	t.Setenv("FREEACT_TEST_HUB_SECRET", hb.OAuthSecret)
	d, h, ws := testDesktop(t)
	var logs bytes.Buffer
	d.log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	agentJSON, _ := json.Marshal(map[string]any{"jupyter_url": hb.URL, "enable_subagents": false,
		"jupyter_oauth_client_id": hb.OAuthClientID, "jupyter_oauth_client_secret": "${FREEACT_TEST_HUB_SECRET}",
		"jupyter_oauth_redirect_uri": hb.OAuthRedirectURI})
	agentFile := filepath.Join(ws, ".freeact", "agent.json")
	if err := os.WriteFile(agentFile, agentJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := d.OpenWorkspace(ws, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.shutdown)
	if st := h.waitState(t, KernelError); !strings.Contains(st.Message+st.Summary+st.Fix, "freeact remote login") {
		t.Errorf("start without a token: %+v; want how to sign in", st)
	}
	base, _ := hub.Base(hb.URL)
	name := hub.TokenName(base)

	st, err := d.HubStatus()
	if err != nil || !st.IsHub || st.User != "" || st.HasToken || !st.OAuth || st.TokenName != name || st.TokenPage != hb.URL+"hub/token" {
		t.Fatalf("HubStatus before signing in: %+v, %v", st, err)
	}
	narrow, _ := hb.Token(remotetest.HubUser, "read:servers!user", "access:servers!user")
	if _, err := d.HubSetToken(narrow); err == nil || !strings.Contains(err.Error(), "lacks a scope: servers!user") {
		t.Fatalf("HubSetToken with a narrow token: %v", err)
	}
	if keys, _ := d.store.APIKeys(); keys[name] != "" {
		t.Fatal("a refused token was kept")
	}
	good, _ := hb.Token(remotetest.HubUser, hub.Scopes...)
	if st, err = d.HubSetToken(" " + good + "\n"); err != nil || st.User != remotetest.HubUser || !st.HasToken {
		t.Fatalf("HubSetToken: %+v, %v", st, err)
	}
	if keys, _ := d.store.APIKeys(); keys[name] != good {
		t.Fatal("the token is not in the key store")
	}
	if after, _ := os.ReadFile(agentFile); !bytes.Equal(after, agentJSON) {
		t.Errorf("agent.json changed: %s", after)
	}
	if st, err = d.HubStatus(); err != nil || st.User != remotetest.HubUser {
		t.Fatalf("HubStatus after the token: %+v, %v", st, err)
	}
	if st, err = d.HubSignOut(); err != nil || st.User != "" || st.HasToken {
		t.Fatalf("HubSignOut: %+v, %v", st, err)
	}
	if keys, _ := d.store.APIKeys(); keys[name] != "" {
		t.Fatal("the token is still kept after Sign out")
	}

	h.mu.Lock()
	from := len(h.mcp)
	h.mu.Unlock()
	done := make(chan error, 1)
	go func() {
		var err error
		st, err = d.HubSignIn()
		done <- err
	}()
	card, i := h.waitMCP(t, from, "asking to sign in to the Hub", func(r MCPRequest) bool { return r.Kind == "signin" })
	if card.Server != "JupyterHub "+base.Host || card.State != MCPWaiting || !strings.HasPrefix(card.URL, hb.URL+"hub/api/oauth2/authorize?") ||
		!strings.Contains(card.URL, "code_challenge_method=S256") || card.Host != base.Host {
		t.Errorf("sign-in card %+v", card)
	}
	end, _ := h.waitMCP(t, i+1, "ending the sign-in", func(r MCPRequest) bool { return r.ID == card.ID })
	if end.State != MCPDone {
		t.Fatalf("sign-in ended %+v, want done", end)
	}
	if err := <-done; err != nil || st.User != remotetest.HubUser {
		t.Fatalf("HubSignIn: %+v, %v", st, err)
	}
	keys, _ := d.store.APIKeys()
	oauthToken := keys[name]
	if oauthToken == "" || oauthToken == good {
		t.Fatal("the OAuth token is not in the key store")
	}
	h.mu.Lock()
	wire := strings.Join(h.wire, "\n")
	h.mu.Unlock()
	for _, secret := range []string{good, narrow, oauthToken, hb.OAuthSecret} {
		if strings.Contains(wire, secret) || strings.Contains(logs.String(), secret) {
			t.Error("a token or the client secret reached an event or the log")
		}
	}
}
