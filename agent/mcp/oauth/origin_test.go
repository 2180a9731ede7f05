package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/config"
)

// recorder is a server that keeps the Authorization header of every
// request it gets.
type recorder struct {
	srv  *httptest.Server
	mu   sync.Mutex
	auth []string
}

func newRecorder(t *testing.T, h http.HandlerFunc) *recorder {
	r := &recorder{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.auth = append(r.auth, req.Header.Get("Authorization"))
		r.mu.Unlock()
		if h != nil {
			h(w, req)
		}
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.auth...)
}

// signedIn returns a Client for serverURL with a good access token kept.
func signedIn(t *testing.T, serverURL string) *Client {
	c := New(Options{Server: "srv", URL: serverURL, Store: FileStore(t.TempDir()),
		Browser: func(context.Context, string, string) error { return errors.New("no browser in this test") }})
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.save(&record{AccessToken: "the-token", TokenType: "Bearer", Issuer: "https://as.example", TokenEndpoint: "https://as.example/token"}); err != nil {
		t.Fatal(err)
	}
	return c
}

// The bearer token goes only to the server's own scheme, host, port and
// path: a redirect elsewhere, followed by a client that does not check
// (Go keeps the header on a redirect to the same host name on another
// port), reaches the other server without it.
func TestTokenGoesOnlyToItsServer(t *testing.T) {
	other := newRecorder(t, nil)
	var mcp *recorder
	mcp = newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/mcp/to-other":
			http.Redirect(w, r, other.srv.URL+"/mcp", http.StatusTemporaryRedirect)
		case "/mcp/to-sibling":
			http.Redirect(w, r, mcp.srv.URL+"/elsewhere", http.StatusFound)
		}
	})
	c := signedIn(t, mcp.srv.URL+"/mcp")
	hc := &http.Client{Transport: c.Transport(nil)}
	for _, path := range []string{"/mcp", "/mcp/to-other", "/mcp/to-sibling"} {
		resp, err := hc.Post(mcp.srv.URL+path, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
		resp.Body.Close()
	}
	if got := other.seen(); len(got) != 1 || got[0] != "" {
		t.Errorf("the other origin got Authorization %q, want one request without it", got)
	}
	want := []string{"Bearer the-token", "Bearer the-token", "Bearer the-token", ""}
	if got := mcp.seen(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the server got Authorization %q, want %q (none for /elsewhere, outside /mcp)", got, want)
	}
}

func TestOwns(t *testing.T) {
	c := New(Options{URL: "https://mcp.example/api/mcp"})
	tests := []struct {
		u    string
		want bool
	}{
		{"https://mcp.example/api/mcp", true},
		{"https://MCP.example:443/api/mcp", true},
		{"https://mcp.example/api/mcp/sub", true},
		{"https://mcp.example/api/mcpx", false},
		{"https://mcp.example/api", false},
		{"http://mcp.example/api/mcp", false},
		{"https://mcp.example:8443/api/mcp", false},
		{"https://evil.example/api/mcp", false},
		{"https://mcp.example.evil.example/api/mcp", false},
	}
	for _, tc := range tests {
		u, _ := url.Parse(tc.u)
		if got := c.Owns(u); got != tc.want {
			t.Errorf("Owns(%s) = %v, want %v", tc.u, got, tc.want)
		}
	}
}

// A redirect of a token request is not followed: its body holds the
// refresh token (and may hold the client secret).
func TestTokenRequestNotRedirected(t *testing.T) {
	f := newFakeAS(t)
	var mu sync.Mutex
	var bodies []string
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		mu.Lock()
		bodies = append(bodies, r.PostForm.Encode())
		mu.Unlock()
	}))
	defer elsewhere.Close()
	f.asm = `{"issuer":"URL","authorization_endpoint":"URL/authorize","token_endpoint":"URL/redirected","code_challenge_methods_supported":["S256"]}`
	f.srv.Config.Handler.(*http.ServeMux).HandleFunc("/redirected", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/token", http.StatusTemporaryRedirect)
	})
	c := New(Options{Server: "srv", URL: f.srv.URL + "/mcp", Store: FileStore(t.TempDir()), Browser: f.browser,
		Config: &config.OAuth{ClientID: "pre-registered", ClientSecret: "the-client-secret"}, SignInTimeout: time.Minute})
	err := c.Login(t.Context())
	if err == nil || !strings.Contains(err.Error(), "redirected the POST request") {
		t.Fatalf("Login = %v, want the redirect of the token request refused", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 0 {
		t.Errorf("the redirect target got token requests %q", bodies)
	}
}

// A redirect to the loopback listener with a state that is not the
// sign-in's (a page that sent the browser there) is ignored: the real
// answer that follows completes the sign-in.
func TestForgedCallbackIgnored(t *testing.T) {
	f := newFakeAS(t)
	forged := make(chan int, 1)
	browser := func(ctx context.Context, server, u string) error {
		au, _ := url.Parse(u)
		q := au.Query()
		bad := url.Values{"code": {"attacker-code"}, "state": {"forged"}}
		resp, err := http.Get(q.Get("redirect_uri") + "?" + bad.Encode())
		if err != nil {
			return err
		}
		resp.Body.Close()
		forged <- resp.StatusCode
		return f.browser(ctx, server, u)
	}
	c := New(Options{Server: "srv", URL: f.srv.URL + "/mcp", Store: FileStore(t.TempDir()), Browser: browser,
		Config: &config.OAuth{ClientID: "pre-registered"}, SignInTimeout: time.Minute})
	if err := c.Login(t.Context()); err != nil {
		t.Fatalf("Login after a forged callback: %v", err)
	}
	if code := <-forged; code != http.StatusBadRequest {
		t.Errorf("the forged callback was answered %d, want 400", code)
	}
	if st, _ := c.Status(); !st.SignedIn {
		t.Error("not signed in")
	}
}

// An MCP server on plain http on another host gets no sign-in: its
// token would travel in clear. Nothing is fetched.
func TestNoSignInToPlainHTTPServer(t *testing.T) {
	c := New(Options{Server: "srv", URL: "http://mcp.example/mcp", Store: FileStore(t.TempDir()),
		HTTP: &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			t.Errorf("fetched %s", r.URL)
			return nil, errors.New("no network in this test")
		})}})
	err := c.Login(t.Context())
	if err == nil || !strings.Contains(err.Error(), "plain http on a host that is not this computer") {
		t.Errorf("Login = %v, want the plain http server refused", err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A kept sign-in is held to the issuer and token endpoint that issued it;
// a record kept before the token endpoint was kept, to its issuer.
func TestPinned(t *testing.T) {
	d := &Discovery{Server: &ServerMetadata{Issuer: "https://as.example", TokenEndpoint: "https://as.example/token"}}
	tests := []struct {
		name string
		rec  record
		want string // "" when the refresh may go to d
	}{
		{"same server", record{Issuer: "https://as.example/", TokenEndpoint: "https://as.example/token"}, ""},
		{"kept before the token endpoint was", record{Issuer: "https://as.example"}, ""},
		{"another issuer", record{Issuer: "https://old.example", TokenEndpoint: "https://as.example/token"}, `now names the authorization server "https://as.example", not "https://old.example"`},
		{"another token endpoint", record{Issuer: "https://as.example", TokenEndpoint: "https://as.example/old-token"}, `now names the token endpoint "https://as.example/token"`},
		{"nothing kept", record{}, "does not know which authorization server issued"},
	}
	c := New(Options{Server: "srv", URL: "https://mcp.example/mcp"})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := c.pinned(&tc.rec, d)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (!errors.Is(err, ErrAuthServerChanged) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want ErrAuthServerChanged saying %q", err, tc.want)
			}
		})
	}
}
