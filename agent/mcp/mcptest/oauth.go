package mcptest

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/freeact/desktop/agent/config"
)

// OAuth is an OAuth authorization server and the test tools behind it, in
// one httptest server: protected resource and authorization server
// metadata, dynamic registration, an authorization endpoint that approves
// at once (redirecting to the loopback listener, as a browser that was
// signed in would), and a token endpoint that rotates refresh tokens. The
// MCP endpoint (URL) answers 401 with WWW-Authenticate without a token it
// issued, or with one that expired.
//
// A request that breaks what MCP asks of a client (an authorization
// request without a loopback redirect, PKCE S256, the resource or
// offline_access; a code exchanged without its PKCE verifier or the
// resource) fails the test and is answered with invalid_request.
type OAuth struct {
	t        testing.TB
	srv      *httptest.Server
	lifetime time.Duration // of an access token
	// metadata replaces the protected resource metadata when set;
	// tokenError is the body of a 400 answer to every authorization code.
	metadata, tokenError string
	// secret is the client_secret a registration gets ("": none);
	// redirect is where the MCP endpoint sends signed-in requests ("":
	// it serves them).
	secret, redirect string

	mu         sync.Mutex
	registered int
	authorized int
	challenges map[string]string    // authorization code → PKCE challenge
	issued     []string             // every access and refresh token, to look for leaks
	valid      map[string]time.Time // access token → expiry
	refresh    string
	refused    int // MCP requests answered 401
	grants     []Grant
	refreshes  []url.Values
	// names is the authorization server the resource metadata names (""
	// this one).
	names string
	// seen is every request to the authorization server's registration
	// and token endpoints: its Authorization header and body.
	seen []string
}

// Grant is a token request the token endpoint answered with tokens.
type Grant struct {
	// Type is the grant_type: authorization_code or refresh_token.
	Type string
	// Resource is the request's resource parameter (RFC 8707).
	Resource string
	// At is when it was answered; Expiry is when the access token it
	// issued expires.
	At, Expiry time.Time
}

// OAuthOption changes what the servers of NewOAuth do.
type OAuthOption func(*OAuth)

// AccessLifetime makes access tokens expire d after they are issued (the
// default is an hour): expires_in says so, and the MCP endpoint refuses
// them afterwards with 401 invalid_token.
func AccessLifetime(d time.Duration) OAuthOption {
	return func(a *OAuth) { a.lifetime = d }
}

// ResourceMetadata makes the protected resource metadata endpoint answer
// body, as it is, instead of valid metadata.
func ResourceMetadata(body string) OAuthOption {
	return func(a *OAuth) { a.metadata = body }
}

// TokenError makes the token endpoint answer every authorization code
// with 400 Bad Request and body (JSON, as RFC 6749 §5.2 has it).
func TokenError(body string) OAuthOption {
	return func(a *OAuth) { a.tokenError = body }
}

// ClientSecret makes a dynamic registration issue a confidential client
// with secret: token requests then authenticate with it (HTTP Basic).
func ClientSecret(secret string) OAuthOption {
	return func(a *OAuth) { a.secret = secret }
}

// RedirectMCP makes the MCP endpoint answer every request that carries a
// valid token with 307 Temporary Redirect to target (unsigned requests
// still get the 401 that starts a sign-in).
func RedirectMCP(target string) OAuthOption {
	return func(a *OAuth) { a.redirect = target }
}

// NewOAuth starts the servers for the test's lifetime.
func NewOAuth(t testing.TB, opts ...OAuthOption) *OAuth {
	a := &OAuth{t: t, valid: map[string]time.Time{}, challenges: map[string]string{}, lifetime: time.Hour}
	for _, o := range opts {
		o(a)
	}
	mcpHandler := server.NewStreamableHTTPServer(New())
	mux := http.NewServeMux()
	writeJSON := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		if a.metadata != "" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(a.metadata))
			return
		}
		a.mu.Lock()
		as := a.names
		a.mu.Unlock()
		if as == "" {
			as = a.srv.URL
		}
		writeJSON(w, map[string]any{"resource": a.URL(), "authorization_servers": []string{as}, "scopes_supported": []string{"tools"}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"issuer": a.srv.URL, "authorization_endpoint": a.srv.URL + "/authorize", "token_endpoint": a.srv.URL + "/token",
			"registration_endpoint": a.srv.URL + "/register", "code_challenge_methods_supported": []string{"S256"}, "scopes_supported": []string{"tools", "offline_access"}})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		a.see(r)
		a.mu.Lock()
		a.registered++
		a.mu.Unlock()
		reg := map[string]any{"client_id": "client-1"}
		if a.secret != "" {
			reg["client_secret"] = a.secret
		}
		writeJSON(w, reg)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		redirect, err := url.Parse(q.Get("redirect_uri"))
		if err != nil || redirect.Hostname() != "127.0.0.1" {
			a.badRequest(w, "authorization request %v: want a loopback redirect_uri", q)
			return
		}
		if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("resource") != a.URL() ||
			!slices.Contains(strings.Fields(q.Get("scope")), "offline_access") {
			a.t.Errorf("mcptest.OAuth: authorization request %v: want PKCE with S256, the resource and offline_access", q)
			// The error goes back to the client (RFC 6749 §4.1.2.1), which
			// stops at once rather than wait for a code.
			http.Redirect(w, r, q.Get("redirect_uri")+"?error=invalid_request&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
			return
		}
		a.mu.Lock()
		a.authorized++
		code := fmt.Sprintf("code-%d", a.authorized)
		a.challenges[code] = q.Get("code_challenge")
		a.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		a.see(r)
		r.ParseForm()
		f := r.PostForm
		a.mu.Lock()
		defer a.mu.Unlock()
		switch f.Get("grant_type") {
		case "authorization_code":
			challenge, ok := a.challenges[f.Get("code")]
			delete(a.challenges, f.Get("code"))
			sum := sha256.Sum256([]byte(f.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != challenge || f.Get("resource") != a.URL() {
				a.badRequest(w, "token request %v: want a code this server issued, its PKCE verifier and the resource", f)
				return
			}
			if a.tokenError != "" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				w.Write([]byte(a.tokenError))
				return
			}
		case "refresh_token":
			a.refreshes = append(a.refreshes, f)
			if f.Get("refresh_token") != a.refresh {
				w.WriteHeader(http.StatusBadRequest)
				writeJSON(w, map[string]string{"error": "invalid_grant"})
				return
			}
		}
		n := len(a.issued)/2 + 1
		access, refresh := fmt.Sprintf("access-token-%d-secret", n), fmt.Sprintf("refresh-token-%d-secret", n)
		a.issued = append(a.issued, access, refresh)
		now := time.Now()
		a.valid[access], a.refresh = now.Add(a.lifetime), refresh
		a.grants = append(a.grants, Grant{Type: f.Get("grant_type"), Resource: f.Get("resource"), At: now, Expiry: now.Add(a.lifetime)})
		writeJSON(w, map[string]any{"access_token": access, "token_type": "Bearer", "refresh_token": refresh, "expires_in": int(a.lifetime / time.Second)})
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		expiry, ok := a.valid[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		expired := ok && !time.Now().Before(expiry)
		if !ok || expired {
			a.refused++
		}
		a.mu.Unlock()
		if !ok || expired {
			challenge := `Bearer resource_metadata="` + a.srv.URL + `/.well-known/oauth-protected-resource/mcp"`
			if expired {
				challenge += `, error="invalid_token", error_description="the access token expired"`
			}
			w.Header().Set("WWW-Authenticate", challenge)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if a.redirect != "" {
			http.Redirect(w, r, a.redirect, http.StatusTemporaryRedirect)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	})
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	return a
}

// see records what r carries (its Authorization header and body) and
// leaves the body to be read again.
func (a *OAuth) see(r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seen = append(a.seen, r.URL.Path+" "+r.Header.Get("Authorization")+" "+string(body))
}

// Seen returns every request to the registration and token endpoints:
// its path, Authorization header and body, one string each.
func (a *OAuth) Seen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.seen...)
}

// Issuer is the authorization server's issuer (its origin).
func (a *OAuth) Issuer() string { return a.srv.URL }

// NameAuthorizationServer makes the protected resource metadata name
// issuer as the authorization server from now on (a server that moved,
// or one that wants its tokens sent elsewhere).
func (a *OAuth) NameAuthorizationServer(issuer string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.names = issuer
}

// badRequest fails the test with what the client sent wrong and answers
// 400 invalid_request.
func (a *OAuth) badRequest(w http.ResponseWriter, format string, args ...any) {
	a.t.Errorf("mcptest.OAuth: "+format, args...)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	json.NewEncoder(w).Encode(map[string]string{"error": "invalid_request"})
}

// URL is the MCP endpoint.
func (a *OAuth) URL() string { return a.srv.URL + "/mcp" }

// Server is the configuration of the MCP endpoint (no credentials: the
// client signs in).
func (a *OAuth) Server() config.Server {
	return config.Server{URL: a.URL(), ConnectTimeout: connectTimeout()}
}

// Counts returns how often a client registered and was authorized.
func (a *OAuth) Counts() (registered, authorized int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.registered, a.authorized
}

// Refused returns how many MCP requests were answered 401.
func (a *OAuth) Refused() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.refused
}

// Tokens returns every access and refresh token issued so far.
func (a *OAuth) Tokens() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.issued...)
}

// Grants returns the token requests answered with tokens, in order.
func (a *OAuth) Grants() []Grant {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Grant(nil), a.grants...)
}

// Refreshes returns the form of every refresh token request, answered
// with tokens or refused, in order.
func (a *OAuth) Refreshes() []url.Values {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]url.Values(nil), a.refreshes...)
}

// RevokeAll makes every access and refresh token issued so far invalid:
// the next request gets a 401, a refresh invalid_grant, and only a new
// sign-in helps (a sign-in that expired).
func (a *OAuth) RevokeAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.valid)
	a.refresh = ""
}

// Revoke makes every access token issued so far invalid: the next request
// gets a 401 (and the refresh token still works).
func (a *OAuth) Revoke() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.valid)
}
