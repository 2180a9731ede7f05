package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/agent/mcp/oauth"
)

// follow is the browser: it opens the URL and follows the redirects to
// the loopback listener.
func follow(ctx context.Context, _ string, u string) error {
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	return nil
}

func signInManager(t *testing.T, a *mcptest.OAuth, dir string, browser func(context.Context, string, string) error) *mcp.Manager {
	m := mcp.NewManager(map[string]config.Server{"secured": a.Server()}, mcp.Options{
		SignIn: mcp.SignInOptions{Dir: dir, Store: oauth.FileStore(filepath.Join(dir, "tokens")), Browser: browser},
	})
	t.Cleanup(func() { m.Close() })
	return m
}

func TestSignIn(t *testing.T) {
	a := mcptest.NewOAuth(t)
	dir := t.TempDir()
	ctx := t.Context()
	m := signInManager(t, a, dir, follow)
	res, err := m.Call(ctx, "secured", "echo", json.RawMessage(`{"text":"hi"}`))
	if err != nil || res.Text != "echo: hi" {
		t.Fatalf("call after sign-in = %v, %v; want echo: hi", res, err)
	}
	st, err := m.SignInStatus("secured")
	if err != nil || !st.SignedIn || !st.Refreshable {
		t.Fatalf("status = %+v, %v; want signed in with a refresh token", st, err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "tokens", "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files %v, want one", files)
	}
	if fi, _ := os.Stat(files[0]); fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}

	// A 401 in the middle of the session: refreshed silently, with the
	// resource, and the rotated refresh token kept.
	a.Revoke()
	if _, err := m.Call(ctx, "secured", "echo", json.RawMessage(`{"text":"again"}`)); err != nil {
		t.Fatalf("call after a 401 mid-session: %v", err)
	}
	// Another process (a new Manager on the same store) uses the rotated
	// token: no new registration and no new sign-in.
	m2 := signInManager(t, a, dir, func(context.Context, string, string) error {
		t.Error("a second sign-in was started although the kept tokens are good")
		return fmt.Errorf("no browser")
	})
	a.Revoke() // every access token expired: refresh
	if _, err := m2.Call(ctx, "secured", "echo", json.RawMessage(`{"text":"third"}`)); err != nil {
		t.Fatalf("call of a second manager: %v", err)
	}
	if reg, authz := a.Counts(); reg != 1 || authz != 1 {
		t.Errorf("registered %d times and signed in %d times, want once each", reg, authz)
	}
	refreshes := a.Refreshes()
	if len(refreshes) != 2 {
		t.Fatalf("refreshes %v, want two", refreshes)
	}
	for _, f := range refreshes {
		if f.Get("resource") != a.URL() {
			t.Errorf("refresh without the resource: %v", f)
		}
	}
	if refreshes[1].Get("refresh_token") == refreshes[0].Get("refresh_token") {
		t.Error("the rotated refresh token was not kept")
	}
}

func TestSignInLogoutAndFailure(t *testing.T) {
	a := mcptest.NewOAuth(t)
	dir := t.TempDir()
	ctx := t.Context()
	opened := 0
	m := signInManager(t, a, dir, func(ctx context.Context, s, u string) error {
		opened++
		return fmt.Errorf("the user closed the sign-in card")
	})
	_, err := m.Call(ctx, "secured", "echo", json.RawMessage(`{"text":"x"}`))
	if err == nil || !strings.Contains(err.Error(), `MCP server "secured": sign-in failed (open the browser): the user closed the sign-in card`) {
		t.Fatalf("error = %v; want one naming the server and the failed step", err)
	}
	_, err = m.Call(ctx, "secured", "echo", json.RawMessage(`{"text":"x"}`))
	if err == nil || !strings.Contains(err.Error(), "freeact mcp login secured") {
		t.Fatalf("second error = %v; want the hint to sign in again", err)
	}
	if opened != 1 {
		t.Errorf("the browser was opened %d times, want once per server", opened)
	}
	// Login in another process (freeact mcp login) after the failure:
	// the first manager takes its tokens instead of staying stuck.
	m2 := signInManager(t, a, dir, follow)
	if err := m2.Login(ctx, "secured"); err != nil {
		t.Fatal(err)
	}
	if st, _ := m2.SignInStatus("secured"); !st.SignedIn {
		t.Fatal("not signed in after Login")
	}
	if res, err := m.Call(ctx, "secured", "echo", json.RawMessage(`{"text":"after login"}`)); err != nil || res.Text != "echo: after login" {
		t.Fatalf("the manager whose sign-in failed, after a login elsewhere: %v, %v", res, err)
	}
	if opened != 1 {
		t.Errorf("the browser was opened %d times, want once", opened)
	}
	// Logout forgets the tokens.
	if err := m2.Logout("secured"); err != nil {
		t.Fatal(err)
	}
	if st, _ := m2.SignInStatus("secured"); st.SignedIn || st.Refreshable {
		t.Fatalf("status after Logout = %+v, want no tokens", st)
	}
}

// A server whose headers carry a token is not signed in to: its 401 is
// reported as it is.
func TestSignInNotForPastedTokens(t *testing.T) {
	a := mcptest.NewOAuth(t)
	dir := t.TempDir()
	pasted := a.Server()
	pasted.Headers = map[string]string{"authorization": "Bearer wrong"}
	m := mcp.NewManager(map[string]config.Server{"pasted": pasted}, mcp.Options{
		SignIn: mcp.SignInOptions{Dir: dir, Store: oauth.FileStore(dir), Browser: func(context.Context, string, string) error {
			t.Error("a sign-in was started for a server with a pasted token")
			return nil
		}},
	})
	defer m.Close()
	if _, err := m.Call(t.Context(), "pasted", "echo", json.RawMessage(`{"text":"x"}`)); err == nil {
		t.Fatal("a call with a wrong pasted token succeeded")
	}
	if _, err := m.SignInStatus("pasted"); err == nil || !strings.Contains(err.Error(), "Authorization") {
		t.Errorf("SignInStatus: %v, want it to say why sign-in does not apply", err)
	}
	if reg, _ := a.Counts(); reg != 0 {
		t.Error("a client was registered")
	}
}
