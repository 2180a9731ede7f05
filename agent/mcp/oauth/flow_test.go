package oauth_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/mcp/oauth"
)

// freePort is a loopback port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// A CodeFlow sends the browser to the authorization endpoint with a PKCE
// S256 challenge and a state; a redirect to the loopback listener with
// another state (a page that sent the browser there) is refused and the
// sign-in goes on; the code of the right redirect is exchanged with the
// verifier that matches the challenge and the client's secret, and the
// browser's context ends with ErrSignedIn, as a sign-in card expects.
func TestCodeFlowPKCEAndState(t *testing.T) {
	var challenge string
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/token" {
			http.NotFound(w, r)
			return
		}
		r.ParseForm()
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		switch {
		case r.PostForm.Get("code") != "the-code", r.PostForm.Get("client_secret") != "s3cret", r.PostForm.Get("client_id") != "cid":
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
		case base64.RawURLEncoding.EncodeToString(sum[:]) != challenge:
			http.Error(w, `{"error":"invalid_grant","error_description":"PKCE"}`, http.StatusBadRequest)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"access_token":"tok-123","token_type":"Bearer","expires_in":3600}`)
		}
	}))
	defer as.Close()
	redirect := fmt.Sprintf("http://127.0.0.1:%d/oauth/callback", freePort(t))
	var browserCtx context.Context
	var forged int
	flow := oauth.CodeFlow{
		Name: "hub", AuthorizationEndpoint: as.URL + "/authorize", TokenEndpoint: as.URL + "/token",
		ClientID: "cid", ClientSecret: "s3cret", RedirectURI: redirect, Scopes: []string{"a", "b"},
		Timeout: time.Minute,
		Browser: func(ctx context.Context, name, authURL string) error {
			browserCtx = ctx
			u, _ := url.Parse(authURL)
			q := u.Query()
			if q.Get("code_challenge_method") != "S256" || q.Get("state") == "" || q.Get("redirect_uri") != redirect || q.Get("scope") != "a b" || q.Has("client_secret") {
				return fmt.Errorf("authorization request %v", q)
			}
			challenge = q.Get("code_challenge")
			// Another state first: refused.
			resp, err := http.Get(redirect + "?code=the-code&state=forged")
			if err != nil {
				return err
			}
			resp.Body.Close()
			forged = resp.StatusCode
			go func() {
				resp, err := http.Get(redirect + "?code=the-code&state=" + url.QueryEscape(q.Get("state")))
				if err == nil {
					resp.Body.Close()
				}
			}()
			return nil
		},
	}
	tok, err := flow.SignIn(context.Background())
	if err != nil {
		t.Fatalf("sign in: %v", err)
	}
	if tok.AccessToken != "tok-123" || tok.ExpiresIn != 3600 {
		t.Fatalf("token %+v", tok)
	}
	if forged != http.StatusBadRequest {
		t.Errorf("a redirect with another state: HTTP %d; want 400", forged)
	}
	if !errors.Is(context.Cause(browserCtx), oauth.ErrSignedIn) {
		t.Errorf("the browser step ended with %v; want ErrSignedIn", context.Cause(browserCtx))
	}
}

// The registered redirect URI's port is the only one that will do: when
// it is taken the error says so; a redirect URI that is not loopback is
// refused before anything is opened.
func TestCodeFlowRedirectURI(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	opened := false
	browser := func(context.Context, string, string) error { opened = true; return nil }
	for _, tc := range []struct{ redirect, want string }{
		{fmt.Sprintf("http://127.0.0.1:%d/cb", l.Addr().(*net.TCPAddr).Port), "only its port will do"},
		{"http://example.org:8080/cb", "is not on this computer"},
		{"http://127.0.0.1/cb", "a loopback address with a port"},
	} {
		flow := oauth.CodeFlow{Name: "hub", AuthorizationEndpoint: "http://127.0.0.1:1/a", TokenEndpoint: "http://127.0.0.1:1/t",
			ClientID: "cid", RedirectURI: tc.redirect, Browser: browser}
		_, err := flow.SignIn(context.Background())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", tc.redirect, err, tc.want)
		}
	}
	if opened {
		t.Error("the browser was opened")
	}
}
