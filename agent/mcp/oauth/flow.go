package oauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/freeact/desktop/internal/opener"
)

// CodeFlow is an authorization code sign-in in the user's browser with
// endpoints and a client registered beforehand (not discovered): PKCE
// with S256, a state only the loopback listener's answer may carry, the
// browser opened through Browser (as Options.Browser: a sign-in card and
// internal/opener), and the code exchanged at the token endpoint. It is
// the browser step of Client for services that are not MCP servers (a
// JupyterHub). The context Browser receives ends with ErrSignedIn or the
// failure, and CancelSignIn on it stops the sign-in with ErrCancelled, as
// for an MCP server.
type CodeFlow struct {
	// Name is whom the user signs in to, for messages and the card.
	Name string
	// AuthorizationEndpoint and TokenEndpoint are the server's.
	AuthorizationEndpoint, TokenEndpoint string
	// ClientID and ClientSecret are the registered client's; a secret is
	// sent in the token request's body (client_secret_post).
	ClientID, ClientSecret string
	// RedirectURI is the loopback redirect URI registered with the client,
	// http://127.0.0.1:PORT/PATH (or localhost, [::1]): the listener takes
	// exactly that port and path, since servers that compare the URI
	// exactly (JupyterHub) accept no other.
	RedirectURI string
	// Scopes are asked for; none means the server's default.
	Scopes []string
	// Browser shows the authorization URL; nil opens the system browser.
	Browser func(ctx context.Context, name, authURL string) error
	// Timeout bounds the wait for the browser; 0 means
	// DefaultSignInTimeout.
	Timeout time.Duration
	// HTTP sends the token request; nil means a client with a 30 s
	// timeout that follows no redirect of it.
	HTTP *http.Client
}

// Token is what a CodeFlow obtained. It is the caller's to keep.
type Token struct {
	AccessToken string
	// ExpiresIn is the access token's lifetime in seconds; 0 if not said.
	ExpiresIn int64
	// Scope is the granted scope when the server says it.
	Scope string
}

// loopbackRedirect checks that raw is an http redirect URI to this
// machine with a port, and returns the address to listen on and the path.
func loopbackRedirect(raw string) (addr, path string, err error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Port() == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", "", fmt.Errorf("redirect URI %q is not http://127.0.0.1:PORT/PATH (a loopback address with a port, no query)", raw)
	}
	host := u.Hostname()
	switch host {
	case "127.0.0.1", "::1":
	case "localhost":
		host = "127.0.0.1"
	default:
		return "", "", fmt.Errorf("redirect URI %q is not on this computer: it must be http://127.0.0.1:PORT/PATH", raw)
	}
	path = u.EscapedPath()
	if path == "" {
		path = "/"
	}
	return net.JoinHostPort(host, u.Port()), path, nil
}

// SignIn runs the flow: it listens on RedirectURI, shows the
// authorization URL, waits for the browser's answer with the right state
// and exchanges its code (with the PKCE verifier) for a token. Errors are
// *SignInError naming the step; none holds the code, the verifier or the
// token.
func (f CodeFlow) SignIn(ctx context.Context) (tok Token, err error) {
	wrap := func(step string, err error) error {
		return &SignInError{Server: f.Name, Step: step, Err: err, flow: true}
	}
	if f.AuthorizationEndpoint == "" || f.TokenEndpoint == "" || f.ClientID == "" {
		return Token{}, wrap("configuration", errors.New("the authorization and token endpoints and the client id are needed"))
	}
	addr, path, err := loopbackRedirect(f.RedirectURI)
	if err != nil {
		return Token{}, wrap("configuration", err)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return Token{}, wrap("open the loopback listener for the browser's answer",
			fmt.Errorf("%w (the redirect URI %s is registered with the server, so only its port will do: close what uses it, or have another redirect URI registered)", err, f.RedirectURI))
	}
	cb := serveCallback(l, f.RedirectURI, path)
	defer cb.close()
	verifier, challenge := pkce()
	state := randomString(24)
	cb.expect(state)
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {f.ClientID},
		"redirect_uri":          {f.RedirectURI},
		"code_challenge":        {challenge},
		"code_challenge_method": {"S256"},
		"state":                 {state},
	}
	if len(f.Scopes) > 0 {
		q.Set("scope", strings.Join(f.Scopes, " "))
	}
	authURL := f.AuthorizationEndpoint
	if strings.Contains(authURL, "?") {
		authURL += "&" + q.Encode()
	} else {
		authURL += "?" + q.Encode()
	}
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultSignInTimeout
	}
	browser := f.Browser
	if browser == nil {
		browser = func(ctx context.Context, _ string, u string) error {
			_, err := opener.Opener{}.OpenURL(ctx, u)
			return err
		}
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	wctx, stop := context.WithCancelCause(wctx)
	defer func() {
		if err == nil {
			stop(ErrSignedIn)
		} else {
			stop(err)
		}
	}()
	if err := browser(context.WithValue(wctx, stopKey{}, stop), f.Name, authURL); err != nil {
		return Token{}, wrap("open the browser", err)
	}
	code, err := cb.wait(wctx)
	if err != nil {
		switch {
		case errors.Is(context.Cause(wctx), ErrCancelled):
			return Token{}, wrap("browser", ErrCancelled)
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			return Token{}, wrap("browser", fmt.Errorf("no answer from the browser within %s", timeout))
		}
		return Token{}, wrap("browser", err)
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {f.RedirectURI},
		"code_verifier": {verifier},
		"client_id":     {f.ClientID},
	}
	if f.ClientSecret != "" {
		form.Set("client_secret", f.ClientSecret)
	}
	hc := f.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	// The body holds the code, the verifier and the secret: never sent
	// on to where a redirect points.
	noRedirect := *hc
	noRedirect.CheckRedirect = refuseSecretRedirects
	t, err := postToken(ctx, &noRedirect, f.TokenEndpoint, form, "", "", true)
	if err != nil {
		return Token{}, wrap("token request", err)
	}
	return Token{AccessToken: t.AccessToken, ExpiresIn: t.ExpiresIn, Scope: t.Scope}, nil
}
