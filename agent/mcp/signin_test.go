package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/agent/mcp/oauth"
)

// authServer is an OAuth authorization server and an MCP server it
// protects, in one httptest server: metadata, registration, an
// authorization endpoint that approves at once, and a token endpoint that
// rotates refresh tokens and issues tokens that expire at once when
// expiresIn is negative.
type authServer struct {
	t   *testing.T
	srv *httptest.Server

	mu          sync.Mutex
	registered  int
	authorized  int
	tokens      map[string]bool // valid access tokens
	refresh     string          // the one valid refresh token
	refreshes   []url.Values
	expiresIn   int
	rejectFirst bool // the MCP endpoint refuses the first token (a 401 mid-session)
	issued      int
	// prm replaces the protected resource metadata when set; tokenError
	// is the body of a 400 answer to every authorization code.
	prm, tokenError string
}

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{t: t, tokens: map[string]bool{}, expiresIn: 3600}
	mcpHandler := server.NewStreamableHTTPServer(mcptest.New())
	mux := http.NewServeMux()
	writeJSON := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		if a.prm != "" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(a.prm))
			return
		}
		writeJSON(w, map[string]any{"resource": a.srv.URL + "/mcp", "authorization_servers": []string{a.srv.URL}, "scopes_supported": []string{"tools"}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"issuer": a.srv.URL, "authorization_endpoint": a.srv.URL + "/authorize", "token_endpoint": a.srv.URL + "/token",
			"registration_endpoint": a.srv.URL + "/register", "code_challenge_methods_supported": []string{"S256"}, "scopes_supported": []string{"tools", "offline_access"}})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.registered++
		a.mu.Unlock()
		writeJSON(w, map[string]any{"client_id": "client-1"})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("code_challenge_method") != "S256" || q.Get("resource") != a.srv.URL+"/mcp" || !strings.Contains(q.Get("scope"), "offline_access") {
			t.Errorf("authorization request %v: want S256, the resource and offline_access", q)
		}
		a.mu.Lock()
		a.authorized++
		a.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=code-1&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		a.mu.Lock()
		defer a.mu.Unlock()
		switch r.PostForm.Get("grant_type") {
		case "authorization_code":
			if r.PostForm.Get("code_verifier") == "" || r.PostForm.Get("resource") == "" {
				t.Errorf("token request %v lacks the verifier or the resource", r.PostForm)
			}
			if a.tokenError != "" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				w.Write([]byte(a.tokenError))
				return
			}
		case "refresh_token":
			a.refreshes = append(a.refreshes, r.PostForm)
			if r.PostForm.Get("refresh_token") != a.refresh {
				w.WriteHeader(http.StatusBadRequest)
				writeJSON(w, map[string]string{"error": "invalid_grant"})
				return
			}
		}
		a.issued++
		access, refresh := fmt.Sprintf("access-%d", a.issued), fmt.Sprintf("refresh-%d", a.issued)
		a.tokens[access], a.refresh = true, refresh
		writeJSON(w, map[string]any{"access_token": access, "token_type": "Bearer", "refresh_token": refresh, "expires_in": a.expiresIn})
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		a.mu.Lock()
		ok := a.tokens[tok]
		if ok && a.rejectFirst {
			a.rejectFirst, ok = false, false
			delete(a.tokens, tok)
		}
		a.mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+a.srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	})
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	return a
}

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

func signInManager(t *testing.T, a *authServer, dir string, browser func(context.Context, string, string) error) *mcp.Manager {
	m := mcp.NewManager(map[string]config.Server{"secured": {URL: a.srv.URL + "/mcp"}}, mcp.Options{
		SignIn: mcp.SignInOptions{Dir: dir, Store: oauth.FileStore(filepath.Join(dir, "tokens")), Browser: browser},
	})
	t.Cleanup(func() { m.Close() })
	return m
}

func TestSignIn(t *testing.T) {
	a := newAuthServer(t)
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
	a.mu.Lock()
	a.rejectFirst = true
	for k := range a.tokens {
		a.tokens[k] = true
	}
	a.mu.Unlock()
	if _, err := m.Call(ctx, "secured", "echo", json.RawMessage(`{"text":"again"}`)); err != nil {
		t.Fatalf("call after a 401 mid-session: %v", err)
	}
	// Another process (a new Manager on the same store) uses the rotated
	// token: no new registration and no new sign-in.
	m2 := signInManager(t, a, dir, func(context.Context, string, string) error {
		t.Error("a second sign-in was started although the kept tokens are good")
		return fmt.Errorf("no browser")
	})
	a.mu.Lock()
	a.tokens = map[string]bool{} // every access token expired: refresh
	a.mu.Unlock()
	if _, err := m2.Call(ctx, "secured", "echo", json.RawMessage(`{"text":"third"}`)); err != nil {
		t.Fatalf("call of a second manager: %v", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.registered != 1 || a.authorized != 1 {
		t.Errorf("registered %d times and signed in %d times, want once each", a.registered, a.authorized)
	}
	if len(a.refreshes) != 2 {
		t.Fatalf("refreshes %v, want two", a.refreshes)
	}
	for _, f := range a.refreshes {
		if f.Get("resource") != a.srv.URL+"/mcp" {
			t.Errorf("refresh without the resource: %v", f)
		}
	}
	if a.refreshes[1].Get("refresh_token") == a.refreshes[0].Get("refresh_token") {
		t.Error("the rotated refresh token was not kept")
	}
}

func TestSignInLogoutAndFailure(t *testing.T) {
	a := newAuthServer(t)
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
	a := newAuthServer(t)
	dir := t.TempDir()
	m := mcp.NewManager(map[string]config.Server{"pasted": {URL: a.srv.URL + "/mcp", Headers: map[string]string{"authorization": "Bearer wrong"}}}, mcp.Options{
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
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.registered != 0 {
		t.Error("a client was registered")
	}
}
