package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/agent/mcp/oauth"
)

// An MCP server that redirects signed-in requests to another origin gets
// the redirect refused, and the other origin never sees the token.
func TestSignInTokenNotRedirected(t *testing.T) {
	var mu sync.Mutex
	var got []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, "not an MCP server", http.StatusNotFound)
	}))
	defer other.Close()
	a := mcptest.NewOAuth(t, mcptest.RedirectMCP(other.URL+"/collect"))
	dir := t.TempDir()
	m := signInManager(t, a, dir, follow)
	_, err := m.Call(t.Context(), "secured", "echo", json.RawMessage(`{"text":"hi"}`))
	if err == nil || !strings.Contains(err.Error(), "redirected to another origin "+other.URL+"; refused") {
		t.Errorf("call = %v, want the redirect to %s refused", err, other.URL)
	}
	if st, _ := m.SignInStatus("secured"); !st.SignedIn {
		t.Fatal("the sign-in before the redirect did not happen")
	}
	mu.Lock()
	defer mu.Unlock()
	for _, h := range got {
		if h != "" {
			t.Errorf("the other origin got Authorization %q", h)
		}
	}
}

// A kept sign-in is bound to the authorization server that issued it:
// when the server's metadata names another one, the next process neither
// refreshes there nor signs in there on its own; the tokens are dropped,
// the status says why, and the second server never sees the refresh
// token or the client secret.
func TestSignInPinsTheAuthorizationServer(t *testing.T) {
	const secret = "client-secret-of-the-first-server"
	first := mcptest.NewOAuth(t, mcptest.ClientSecret(secret))
	second := mcptest.NewOAuth(t, mcptest.ClientSecret("second-secret"))
	dir := t.TempDir()
	ctx := t.Context()
	m1 := signInManager(t, first, dir, follow)
	if _, err := m1.Call(ctx, "secured", "echo", json.RawMessage(`{"text":"hi"}`)); err != nil {
		t.Fatal(err)
	}
	m1.Close()

	first.Revoke() // the access token is refused: the next use refreshes
	first.NameAuthorizationServer(second.Issuer())
	opened := 0
	noBrowser := func(context.Context, string, string) error {
		opened++
		return errors.New("no browser in this test")
	}
	for i := range 2 { // the process that finds the change, and the one after it
		m := signInManager(t, first, dir, noBrowser)
		_, err := m.Call(ctx, "secured", "echo", json.RawMessage(`{"text":"again"}`))
		if err == nil || !strings.Contains(err.Error(), "now names the authorization server "+`"`+second.Issuer()+`"`) ||
			!strings.Contains(err.Error(), "freeact mcp login secured") {
			t.Errorf("process %d: call = %v, want the change named and how to sign in again", i+2, err)
		}
		st, err := m.SignInStatus("secured")
		if err != nil || st.SignedIn || st.Refreshable || !strings.Contains(st.Dropped, second.Issuer()) {
			t.Errorf("process %d: status %+v, %v; want the tokens dropped, saying why", i+2, st, err)
		}
		m.Close()
	}
	if opened != 0 {
		t.Errorf("the browser was opened %d times", opened)
	}
	for _, s := range second.Seen() {
		if strings.Contains(s, "refresh-token") || strings.Contains(s, "refresh_token") {
			t.Errorf("the second authorization server got a refresh token: %s", s)
		}
		if strings.Contains(s, "Basic ") || strings.Contains(s, secret) {
			t.Errorf("the second authorization server got the client's credentials: %s", s)
		}
	}
	if len(second.Seen()) != 0 {
		t.Errorf("the second authorization server got %d requests, want none", len(second.Seen()))
	}
}

// Connect (the start of a workspace) opens no browser for a server whose
// sign-in expired (its refresh token refused too): the server fails,
// saying it needs a sign-in, until the user signs in. $BROWSER is a
// script that records that it ran.
func TestConnectOpensNoBrowser(t *testing.T) {
	a := mcptest.NewOAuth(t)
	dir := t.TempDir()
	m1 := signInManager(t, a, dir, follow)
	if _, err := m1.Call(t.Context(), "secured", "echo", json.RawMessage(`{"text":"hi"}`)); err != nil {
		t.Fatal(err)
	}
	m1.Close()
	a.RevokeAll()

	calls := filepath.Join(t.TempDir(), "browser-calls")
	browser := filepath.Join(t.TempDir(), "browser")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\necho \"$1\" >> "+calls+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", browser)
	// The system browser ($BROWSER); the timeout bounds the wait for a
	// browser that should never have been opened (the old failure).
	m := mcp.NewManager(map[string]config.Server{"secured": a.Server()}, mcp.Options{
		SignIn: mcp.SignInOptions{Dir: dir, Store: oauth.FileStore(filepath.Join(dir, "tokens")), Timeout: 5 * time.Second},
	})
	defer m.Close()
	err := m.Connect(t.Context())
	if err == nil || !strings.Contains(err.Error(), "sign-in needed") || !strings.Contains(err.Error(), "freeact mcp login secured") {
		t.Errorf("Connect = %v, want the server to say it needs a sign-in", err)
	}
	if !errors.Is(err, oauth.ErrSignInRequired) {
		t.Errorf("Connect = %v, want it to wrap oauth.ErrSignInRequired", err)
	}
	if b, err := os.ReadFile(calls); err == nil {
		t.Errorf("the browser was opened at the start: %q", b)
	}
	if reg, authz := a.Counts(); authz != 1 {
		t.Errorf("authorized %d times (registered %d), want only the first sign-in", authz, reg)
	}
}
