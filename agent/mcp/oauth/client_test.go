package oauth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/config"
)

// fakeAS is an authorization server whose answers a test case spoils.
type fakeAS struct {
	srv *httptest.Server
	// prm and asm replace the metadata documents when set.
	prm, asm string
	// token is the token endpoint's status and body.
	tokenStatus int
	tokenBody   string
	// redirect changes the browser's redirect to the loopback listener.
	redirect func(q url.Values) url.Values
}

func newFakeAS(t *testing.T) *fakeAS {
	f := &fakeAS{tokenStatus: 200, tokenBody: `{"access_token":"a","token_type":"Bearer","expires_in":60}`}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		if f.prm != "" {
			w.Write([]byte(f.prm))
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"resource": f.srv.URL + "/mcp", "authorization_servers": []string{f.srv.URL}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		if f.asm != "" {
			w.Write([]byte(strings.ReplaceAll(f.asm, "URL", f.srv.URL)))
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"issuer": f.srv.URL, "authorization_endpoint": f.srv.URL + "/authorize",
			"token_endpoint": f.srv.URL + "/token", "code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(f.tokenStatus)
		w.Write([]byte(f.tokenBody))
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// browser follows the authorization URL to the loopback listener, after
// f.redirect changed the answer.
func (f *fakeAS) browser(ctx context.Context, _ string, u string) error {
	au, err := url.Parse(u)
	if err != nil {
		return err
	}
	q := au.Query()
	answer := url.Values{"code": {"c"}, "state": {q.Get("state")}}
	if f.redirect != nil {
		answer = f.redirect(answer)
		if answer == nil {
			return nil // the browser never comes back
		}
	}
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, q.Get("redirect_uri")+"?"+answer.Encode(), nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	return nil
}

func TestLoginFailures(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(f *fakeAS)
		want  string
	}{
		{"malformed resource metadata", func(f *fakeAS) { f.prm = `{"resource": ` }, "discovery: "},
		{"metadata for another resource", func(f *fakeAS) { f.prm = `{"resource":"https://elsewhere.example/mcp","authorization_servers":[]}` }, "refusing to sign in"},
		{"issuer mismatch", func(f *fakeAS) {
			f.asm = `{"issuer":"https://other.example","authorization_endpoint":"URL/a","token_endpoint":"URL/t","code_challenge_methods_supported":["S256"]}`
		}, `names issuer "https://other.example"`},
		{"no PKCE", func(f *fakeAS) {
			f.asm = `{"issuer":"URL","authorization_endpoint":"URL/a","token_endpoint":"URL/t","registration_endpoint":"URL/r"}`
		}, "does not offer PKCE with S256"},
		{"token endpoint error", func(f *fakeAS) {
			f.tokenStatus, f.tokenBody = 400, `{"error":"invalid_grant","error_description":"code expired"}`
		}, "token request: "},
		{"token without access token", func(f *fakeAS) { f.tokenBody = `{"refresh_token":"secret-refresh"}` }, "without an access token"},
		{"authorization server on plain http elsewhere", func(f *fakeAS) {
			f.asm = `{"issuer":"URL","authorization_endpoint":"http://as.example/a","token_endpoint":"URL/t","code_challenge_methods_supported":["S256"]}`
		}, "plain http to as.example"},
		{"resource metadata naming a plain http authorization server", func(f *fakeAS) {
			f.prm = `{"authorization_servers":["http://as.example"]}`
		}, "plain http to as.example"},
		{"refused in the browser", func(f *fakeAS) {
			f.redirect = func(q url.Values) url.Values { q.Del("code"); q.Set("error", "access_denied"); return q }
		}, "refused: access_denied"},
		{"browser never returns", func(f *fakeAS) { f.redirect = func(url.Values) url.Values { return nil } }, "no answer from the browser within"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeAS(t)
			tc.spoil(f)
			store := FileStore(t.TempDir())
			// Only the browser that never returns waits out the timeout.
			timeout := time.Minute
			if tc.name == "browser never returns" {
				timeout = 300 * time.Millisecond
			}
			c := New(Options{Server: "srv", URL: f.srv.URL + "/mcp", Store: store, Browser: f.browser,
				SignInTimeout: timeout, Config: &config.OAuth{ClientID: "pre-registered"}})
			err := c.Login(t.Context())
			if err == nil || !strings.Contains(err.Error(), `sign in to MCP server "srv"`) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v; want one naming the server and %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "secret-refresh") {
				t.Error("the error quotes a token")
			}
			if st, err := c.Status(); err != nil || st.SignedIn {
				t.Errorf("status after a failed sign-in: %+v %v", st, err)
			}
		})
	}
}

func TestSignAssertion(t *testing.T) {
	if _, err := SignAssertion([]byte("not pem"), "ES256", "c", "https://as", time.Now()); err == nil {
		t.Error("a key that is not PEM was taken")
	}
}
