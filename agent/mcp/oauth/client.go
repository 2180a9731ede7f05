package oauth

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/internal/opener"
)

// Default limits of Options.
const (
	// DefaultSignInTimeout bounds the browser step of a sign-in.
	DefaultSignInTimeout = 5 * time.Minute
	// maxStepUps bounds the scope step-ups of one server that never
	// succeed: a server that keeps answering 403 insufficient_scope is not
	// sent to the browser forever.
	maxStepUps = 2
	// refreshMargin is how long before its expiry an access token is
	// refreshed (at most half its lifetime).
	refreshMargin = 30 * time.Second
)

// ErrSignInRequired is wrapped by errors of a request that needs a sign-in
// the Client may not start on its own (see WithoutBrowser).
var ErrSignInRequired = errors.New("sign-in required")

// NeedSignInError is the error of a request that needs the user to sign
// in (Login) first; it says why and how, and wraps ErrSignInRequired and
// its cause.
type NeedSignInError struct {
	Server string
	msg    string
	cause  error
}

func (e *NeedSignInError) Error() string   { return e.msg }
func (e *NeedSignInError) Unwrap() []error { return []error{ErrSignInRequired, e.cause} }

// ErrAuthServerChanged is wrapped by the error of a kept sign-in whose
// MCP server now names another authorization server (issuer or token
// endpoint) than the one that issued its tokens: the tokens are dropped,
// never sent to the new one, and the user signs in again (Login).
var ErrAuthServerChanged = errors.New("the MCP server names another authorization server")

type noBrowserKey struct{}

// WithoutBrowser marks ctx so that a request made with it never starts a
// browser sign-in on its own: one that needs it fails with
// ErrSignInRequired (a refresh, or joining a sign-in under way, still
// happen). The start of a workspace connects its servers so; the
// browser opens only when the user asks (Login, a call).
func WithoutBrowser(ctx context.Context) context.Context {
	return context.WithValue(ctx, noBrowserKey{}, true)
}

func browserAllowed(ctx context.Context) bool {
	no, _ := ctx.Value(noBrowserKey{}).(bool)
	return !no
}

// ErrCancelled ends a sign-in the user stopped with CancelSignIn.
var ErrCancelled = errors.New("sign-in cancelled")

// ErrSignedIn is the cause with which the context given to
// Options.Browser ends when the sign-in succeeded; after a failure its
// cause is the failure. A sign-in card waits for that context to end and
// shows how it ended.
var ErrSignedIn = errors.New("signed in")

// SignInError is a failed sign-in: the server, the step that failed
// (discovery, client registration, open the browser, browser, token
// request, ...) and why.
type SignInError struct {
	Server, Step string
	Err          error
	// flow: the sign-in of a CodeFlow, whose Server is not an MCP
	// server's name.
	flow bool
}

func (e *SignInError) Error() string {
	if e.flow {
		return fmt.Sprintf("sign in to %s: %s: %v", e.Server, e.Step, e.Err)
	}
	return fmt.Sprintf("sign in to MCP server %q: %s: %v", e.Server, e.Step, e.Err)
}

func (e *SignInError) Unwrap() error { return e.Err }

type stopKey struct{}

// CancelSignIn stops the sign-in whose browser step was given ctx (the
// context Options.Browser received): it ends with ErrCancelled.
func CancelSignIn(ctx context.Context) {
	if stop, ok := ctx.Value(stopKey{}).(context.CancelCauseFunc); ok {
		stop(ErrCancelled)
	}
}

// Options configures a Client for one MCP server.
type Options struct {
	// Server is the name of the server in mcp_servers (for messages).
	Server string
	// URL is the MCP server's URL.
	URL string
	// Config is the server's "oauth" object; nil means discovery and
	// registration do everything.
	Config *config.OAuth
	// Store keeps the registration and tokens (see NewStore).
	Store config.Keyring
	// LockDir holds the lock files that serialise token refreshes across
	// processes; "" means no cross-process lock.
	LockDir string
	// Browser shows the user the authorization URL (opens the system
	// browser, shows a sign-in card, prints the link) and returns; the
	// result comes to the loopback listener. Nil: the system browser
	// (internal/opener).
	Browser func(ctx context.Context, server, authURL string) error
	// Asking, if set, is called when the user is asked to sign in in the
	// browser; what it returns is called when the answer came or the wait
	// ended (the Manager stops the timeouts of calls meanwhile).
	Asking func() (done func())
	// SignInTimeout bounds the wait for the browser; 0 means
	// DefaultSignInTimeout.
	SignInTimeout time.Duration
	// ClientName is the client_name of a dynamic registration.
	ClientName string
	// HTTP sends the OAuth requests (discovery, token, registration);
	// nil means a client with a 30 s timeout that follows no redirect of
	// a token or registration request (see refuseSecretRedirects).
	HTTP *http.Client
	Log  *slog.Logger
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// Client signs in to one MCP server and keeps its tokens. Its Transport
// adds the bearer token to the requests to the server (its scheme, host,
// port and path) and, on a 401 or a 403
// insufficient_scope, refreshes, signs in or steps up, then sends the
// request again. Safe for concurrent use.
type Client struct {
	opts Options
	key  string
	// origin is the server URL the token is bound to.
	origin *url.URL

	mu       sync.Mutex // serialises sign-in, refresh and record updates
	rec      *record
	failed   error   // the last interactive sign-in's failure, until Login
	flight   *flight // the browser sign-in under way
	stepUps  int
	discover *Discovery
}

// record is what is kept for a server and client: the registration and
// the tokens.
type record struct {
	// Issuer and TokenEndpoint are the authorization server that issued
	// the tokens: a refresh goes there or nowhere.
	Issuer        string    `json:"issuer,omitempty"`
	TokenEndpoint string    `json:"token_endpoint,omitempty"`
	ClientID      string    `json:"client_id,omitempty"`
	ClientSecret  string    `json:"client_secret,omitempty"`
	AuthMethod    string    `json:"token_endpoint_auth_method,omitempty"`
	RedirectURI   string    `json:"redirect_uri,omitempty"`
	AccessToken   string    `json:"access_token,omitempty"`
	TokenType     string    `json:"token_type,omitempty"`
	RefreshToken  string    `json:"refresh_token,omitempty"`
	Scope         string    `json:"scope,omitempty"`
	Expiry        time.Time `json:"expiry,omitzero"`
	// Issued is when the access token came (zero in records kept before
	// it was kept).
	Issued time.Time `json:"issued,omitzero"`
	// Dropped says why the tokens were dropped (the authorization server
	// changed), until the next sign-in.
	Dropped string `json:"dropped,omitempty"`
}

// New returns a Client for one server.
func New(opts Options) *Client {
	if opts.HTTP == nil {
		opts.HTTP = &http.Client{Timeout: 30 * time.Second, CheckRedirect: refuseSecretRedirects}
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.SignInTimeout <= 0 {
		opts.SignInTimeout = DefaultSignInTimeout
	}
	if opts.Browser == nil {
		opts.Browser = func(ctx context.Context, _ string, u string) error {
			_, err := opener.Opener{}.OpenURL(ctx, u)
			return err
		}
	}
	if opts.ClientName == "" {
		opts.ClientName = "freeact"
	}
	client := "dynamic"
	if opts.Config != nil && opts.Config.ClientID != "" {
		client = opts.Config.ClientID
	}
	origin, err := url.Parse(opts.URL)
	if err != nil {
		origin = &url.URL{} // matches no request: no token is sent
	}
	return &Client{opts: opts, key: "mcp-oauth " + opts.URL + " " + client, origin: origin}
}

// refuseSecretRedirects follows redirects of metadata requests only: a
// token or registration request (a POST) carries the code, the refresh
// token or the client secret in its body, which a 307 would send on to
// wherever it points.
func refuseSecretRedirects(req *http.Request, via []*http.Request) error {
	if first := via[0]; first.Method != http.MethodGet {
		return fmt.Errorf("%s redirected the %s request to %s: refused (a token or registration request is sent only where the metadata says)", first.URL.Redacted(), first.Method, req.URL.Redacted())
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

// Owns reports whether u is a URL of the MCP server the Client signs in
// to: same scheme, host and port, and the server URL's path or one below
// it. Only such requests get its token.
func (c *Client) Owns(u *url.URL) bool {
	o := c.origin
	if o.Host == "" || !strings.EqualFold(u.Scheme, o.Scheme) || !strings.EqualFold(hostPort(u), hostPort(o)) {
		return false
	}
	p := strings.TrimSuffix(o.EscapedPath(), "/")
	up := u.EscapedPath()
	return p == "" || up == p || up == p+"/" || strings.HasPrefix(up, p+"/")
}

// hostPort is u's host with the scheme's default port made explicit.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// Status is what is known about a server's sign-in.
type Status struct {
	SignedIn bool
	// Expiry of the access token (zero: none given).
	Expiry time.Time
	// Refreshable is set when a refresh token is kept.
	Refreshable bool
	ClientID    string
	// Dropped says why the tokens were dropped, when they were (the
	// authorization server changed): the user must sign in again.
	Dropped string
}

// Status reads the kept tokens.
func (c *Client) Status() (Status, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rec, err := c.load()
	if err != nil {
		return Status{}, err
	}
	return Status{SignedIn: rec.AccessToken != "", Expiry: rec.Expiry, Refreshable: rec.RefreshToken != "", ClientID: rec.ClientID, Dropped: rec.Dropped}, nil
}

// Login signs in now (also after a failed sign-in).
func (c *Client) Login(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failed = nil
	c.stepUps = 0
	if c.grant() != "authorization_code" {
		return c.obtain(ctx, nil, "", true)
	}
	return c.await(ctx, c.signIn(ctx, c.probe(ctx), "", true))
}

// probe asks the server, without a token, what sign-in it wants: the
// Bearer challenge of its 401 (or 403) names the protected resource
// metadata and the scope, which discovery alone may not find. Nil when
// the server answers otherwise, cannot be reached, or is on plain http
// away from this computer: discovery then starts from the server's URL,
// as without a challenge (and refuses the last).
func (c *Client) probe(ctx context.Context) map[string]string {
	if checkEndpointURL(c.opts.URL) != nil {
		return nil // plain http elsewhere: discovery refuses it, and says why
	}
	body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"freeact","version":"0"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.opts.URL, strings.NewReader(body))
	if err != nil {
		return nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	// No redirect: the challenge is the server's own, and nothing of the
	// sign-in goes to another origin.
	hc := &http.Client{Timeout: 30 * time.Second, Transport: c.opts.HTTP.Transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return nil
	}
	return BearerChallenge(resp.Header.Values("WWW-Authenticate"))
}

// Logout forgets the tokens (the registration is kept).
func (c *Client) Logout() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	rec, err := c.load()
	if err != nil {
		return err
	}
	rec.AccessToken, rec.RefreshToken, rec.Scope, rec.TokenType, rec.Expiry, rec.Issued = "", "", "", "", time.Time{}, time.Time{}
	return c.save(rec)
}

// Transport returns an http.RoundTripper that authorizes requests through
// base (nil: http.DefaultTransport).
func (c *Client) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &roundTripper{c: c, base: base}
}

type roundTripper struct {
	c    *Client
	base http.RoundTripper
}

func (t *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	send := func(token string) (*http.Response, error) {
		r := req.Clone(ctx)
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		return t.base.RoundTrip(r)
	}
	if !t.c.Owns(req.URL) {
		// Another origin or path (a redirect followed, a link): it gets
		// no token, and its 401 starts no sign-in.
		return send("")
	}
	token := t.c.token(ctx)
	resp, err := send(token)
	if err != nil {
		return nil, err
	}
	for attempt := 0; attempt < 2; attempt++ {
		var challenge map[string]string
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			challenge = BearerChallenge(resp.Header.Values("WWW-Authenticate"))
			if challenge == nil {
				challenge = map[string]string{}
			}
		case http.StatusForbidden:
			challenge = BearerChallenge(resp.Header.Values("WWW-Authenticate"))
			if challenge["error"] != "insufficient_scope" {
				return resp, nil
			}
		default:
			return resp, nil
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		next, err := t.c.authorize(ctx, token, resp.StatusCode, challenge)
		if err != nil {
			return nil, err
		}
		token = next
		if resp, err = send(token); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// token returns the access token to send: the kept one, refreshed when it
// has expired; "" when there is none.
func (c *Client) token(ctx context.Context) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	rec, err := c.load()
	if err != nil {
		c.opts.Log.Warn("MCP sign-in: the kept tokens cannot be read", "mcp_server", c.opts.Server, "err", err)
		return ""
	}
	if rec.AccessToken == "" {
		return ""
	}
	if c.expired(rec) && rec.RefreshToken != "" {
		if err := c.refresh(ctx, rec.AccessToken); err != nil {
			c.opts.Log.Info("MCP sign-in: refresh failed", "mcp_server", c.opts.Server, "err", err)
			return ""
		}
		return c.rec.AccessToken
	}
	return rec.AccessToken
}

// expired reports whether rec's access token has expired or is about to:
// within refreshMargin of its expiry, or in the second half of a shorter
// life (else a token issued for less than the margin would be refreshed
// at every request).
func (c *Client) expired(rec *record) bool {
	if rec.Expiry.IsZero() {
		return false
	}
	margin := refreshMargin
	if !rec.Issued.IsZero() {
		margin = min(margin, rec.Expiry.Sub(rec.Issued)/2)
	}
	return c.opts.Now().Add(margin).After(rec.Expiry)
}

// authorize answers a 401 or 403 to a request sent with token: refresh,
// then sign in (or step up), once at a time for the server.
func (c *Client) authorize(ctx context.Context, sent string, status int, challenge map[string]string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rec = nil // read again: another process may have signed in
	rec, err := c.load()
	if err != nil {
		return "", err
	}
	if rec.AccessToken != "" && rec.AccessToken != sent && !c.expired(rec) && status == http.StatusUnauthorized {
		// Another request or process signed in meanwhile (freeact mcp
		// login after a failed sign-in here, too).
		c.failed = nil
		return rec.AccessToken, nil
	}
	if status == http.StatusUnauthorized && rec.RefreshToken != "" {
		if err := c.refresh(ctx, sent); err == nil {
			return c.rec.AccessToken, nil
		} else {
			c.opts.Log.Info("MCP sign-in: refresh failed; signing in again", "mcp_server", c.opts.Server, "err", err)
		}
	}
	var extra []string
	if status == http.StatusForbidden {
		if c.stepUps >= maxStepUps {
			return "", fmt.Errorf("MCP server %q still refuses the request for want of scope after %d step-ups (%s): giving up", c.opts.Server, maxStepUps, challenge["scope"])
		}
		c.stepUps++
		extra = strings.Fields(rec.Scope)
	}
	if errors.Is(c.failed, ErrAuthServerChanged) {
		return "", &NeedSignInError{Server: c.opts.Server, cause: c.failed, msg: "sign-in needed: " + c.failed.Error()}
	}
	if c.failed != nil {
		return "", &NeedSignInError{Server: c.opts.Server, cause: c.failed,
			msg: fmt.Sprintf("sign-in needed: the last sign-in failed (%v); sign in again from Settings → MCP or with `freeact mcp login %s`", c.failed, c.opts.Server)}
	}
	if c.grant() != "authorization_code" {
		if err := c.obtain(ctx, challenge, strings.Join(extra, " "), false); err != nil {
			return "", err
		}
		return c.rec.AccessToken, nil
	}
	if c.flight == nil && !browserAllowed(ctx) {
		return "", &NeedSignInError{Server: c.opts.Server, cause: ErrSignInRequired,
			msg: fmt.Sprintf("sign-in needed: the server asks for a sign-in, which opens the browser only when you ask; sign in from Settings → MCP or with `freeact mcp login %s`", c.opts.Server)}
	}
	if err := c.await(ctx, c.signIn(ctx, challenge, strings.Join(extra, " "), false)); err != nil {
		return "", err
	}
	return c.rec.AccessToken, nil
}

// flight is a sign-in with the browser under way.
type flight struct {
	done chan struct{}
	err  error
}

// signIn starts the browser sign-in, or joins the one under way. It
// outlives the request that started it (a protocol probe has a few
// seconds, the user minutes): it ends when the user signs in, when it
// fails, at SignInTimeout or by CancelSignIn. A failure is kept: requests
// fail at once until Login. c.mu is held.
func (c *Client) signIn(ctx context.Context, challenge map[string]string, held string, login bool) *flight {
	if c.flight != nil {
		return c.flight
	}
	f := &flight{done: make(chan struct{})}
	c.flight = f
	bctx := context.WithoutCancel(ctx)
	go func() {
		c.mu.Lock()
		f.err = c.obtain(bctx, challenge, held, login)
		if f.err != nil {
			c.failed = f.err
		}
		c.flight = nil
		c.mu.Unlock()
		close(f.done)
	}()
	return f
}

// await waits for f without holding c.mu (it is held before and after):
// a request that gives up leaves the sign-in running.
func (c *Client) await(ctx context.Context, f *flight) error {
	c.mu.Unlock()
	defer c.mu.Lock()
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return fmt.Errorf("waiting for the sign-in to MCP server %q: %w", c.opts.Server, context.Cause(ctx))
	}
}

func (c *Client) grant() string {
	if c.opts.Config != nil && c.opts.Config.Grant != "" {
		return c.opts.Config.Grant
	}
	return "authorization_code"
}

// obtain gets new tokens: discovery, client identity, then the grant.
// Unless login (the user asked to sign in), the authorization server
// must be the one of the kept sign-in, if any. c.mu is held (and let go
// while the browser step waits).
func (c *Client) obtain(ctx context.Context, challenge map[string]string, held string, login bool) (err error) {
	wrap := func(step string, err error) error {
		return &SignInError{Server: c.opts.Server, Step: step, Err: err}
	}
	d, err := discover(ctx, c.opts.HTTP, c.opts.URL, challenge["resource_metadata"])
	if err != nil {
		return wrap("discovery", err)
	}
	rec, err := c.load()
	if err != nil {
		return wrap("read the kept registration", err)
	}
	if !login && (rec.Issuer != "" || rec.TokenEndpoint != "") {
		if err := c.pinned(rec, d); err != nil {
			c.failed = err
			return err
		}
	}
	c.discover = d
	scope := c.scope(d, challenge, held)
	switch c.grant() {
	case "client_credentials":
		tok, err := c.clientCredentials(ctx, d, scope)
		if err != nil {
			return wrap("client credentials", err)
		}
		return c.keep(rec, d, tok)
	case "enterprise":
		tok, err := c.enterprise(ctx, d, scope)
		if err != nil {
			return wrap("enterprise-managed authorization", err)
		}
		return c.keep(rec, d, tok)
	case "authorization_code":
	default:
		return wrap("configuration", fmt.Errorf("grant %q is not one of authorization_code, client_credentials, enterprise", c.grant()))
	}
	if d.Server.AuthorizationEndpoint == "" {
		return wrap("discovery", errors.New("the authorization server has no authorization endpoint"))
	}
	if !d.Server.Defaults && !slices.Contains(d.Server.CodeChallengeMethodsSupported, "S256") {
		return wrap("discovery", fmt.Errorf("the authorization server %s does not offer PKCE with S256 (code_challenge_methods_supported: %v), which MCP requires: refusing to sign in", d.Server.Issuer, d.Server.CodeChallengeMethodsSupported))
	}
	cb, err := listen(rec.RedirectURI)
	if err != nil {
		return wrap("open the loopback listener for the browser's answer", err)
	}
	defer cb.close()
	if err := c.identify(ctx, d, rec, cb.redirectURI); err != nil {
		return wrap("client registration", err)
	}
	verifier, challenge256 := pkce()
	state := randomString(24)
	cb.expect(state)
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {rec.ClientID},
		"redirect_uri":          {rec.RedirectURI},
		"code_challenge":        {challenge256},
		"code_challenge_method": {"S256"},
		"state":                 {state},
		"resource":              {d.Resource},
	}
	if scope != "" {
		q.Set("scope", scope)
	}
	authURL := d.Server.AuthorizationEndpoint
	if strings.Contains(authURL, "?") {
		authURL += "&" + q.Encode()
	} else {
		authURL += "?" + q.Encode()
	}
	wctx, cancel := context.WithTimeout(ctx, c.opts.SignInTimeout)
	defer cancel()
	if c.opts.Asking != nil {
		defer c.opts.Asking()()
	}
	wctx, stop := context.WithCancelCause(wctx)
	// The browser step's context ends with the outcome (ErrSignedIn or
	// the failure), for a sign-in card to show.
	defer func() {
		if err == nil {
			stop(ErrSignedIn)
		} else {
			stop(err)
		}
	}()
	if err := c.opts.Browser(context.WithValue(wctx, stopKey{}, stop), c.opts.Server, authURL); err != nil {
		return wrap("open the browser", err)
	}
	// The user takes minutes: meanwhile c.mu is free, so that requests
	// join this sign-in (authorize) instead of waiting for the lock, and
	// Status answers.
	c.mu.Unlock()
	code, err := cb.wait(wctx)
	c.mu.Lock()
	if err != nil {
		switch {
		case errors.Is(context.Cause(wctx), ErrCancelled):
			return wrap("browser", ErrCancelled)
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			return wrap("browser", fmt.Errorf("no answer from the browser within %s", c.opts.SignInTimeout))
		}
		return wrap("browser", err)
	}
	tok, err := c.tokenRequest(ctx, d, rec, url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {rec.RedirectURI},
		"code_verifier": {verifier},
		"resource":      {d.Resource},
	})
	if err != nil {
		return wrap("token request", err)
	}
	return c.keep(rec, d, tok)
}

// scope chooses the scopes to ask for: the configured ones, else the
// challenge's, else the resource's scopes_supported, else none; with
// held (a step-up keeps what was granted) and offline_access where the
// authorization server offers it.
func (c *Client) scope(d *Discovery, challenge map[string]string, held string) string {
	var s []string
	switch {
	case c.opts.Config != nil && len(c.opts.Config.Scopes) > 0:
		s = slices.Clone(c.opts.Config.Scopes)
	case challenge["scope"] != "":
		s = strings.Fields(challenge["scope"])
	case d.PRM != nil && len(d.PRM.ScopesSupported) > 0:
		s = slices.Clone(d.PRM.ScopesSupported)
	}
	for _, h := range strings.Fields(held) {
		if !slices.Contains(s, h) {
			s = append(s, h)
		}
	}
	if len(s) > 0 && c.grant() == "authorization_code" && slices.Contains(d.Server.ScopesSupported, "offline_access") && !slices.Contains(s, "offline_access") {
		s = append(s, "offline_access")
	}
	return strings.Join(s, " ")
}

// identify settles the client: configured, kept from an earlier
// registration with this issuer, a client ID metadata document, or a new
// dynamic registration (RFC 7591).
func (c *Client) identify(ctx context.Context, d *Discovery, rec *record, redirectURI string) error {
	cfg := c.opts.Config
	switch {
	case cfg != nil && cfg.ClientID != "":
		rec.ClientID, rec.ClientSecret = cfg.ClientID, cfg.ClientSecret
		rec.AuthMethod = authMethod(d.Server, rec.ClientSecret != "", "")
		rec.RedirectURI = redirectURI
		return nil
	case rec.ClientID != "" && rec.Issuer == d.Server.Issuer && rec.RedirectURI == redirectURI:
		return nil
	case cfg != nil && cfg.ClientMetadataURL != "" && d.Server.ClientIDMetadataDocumentSupported:
		rec.Issuer, rec.ClientID, rec.ClientSecret, rec.AuthMethod = d.Server.Issuer, cfg.ClientMetadataURL, "", "none"
		rec.RedirectURI = redirectURI
		return nil
	}
	if d.Server.RegistrationEndpoint == "" {
		return fmt.Errorf("the authorization server %s offers no dynamic client registration: register a client with it and give its client_id in the server's \"oauth\" object in agent.json", d.Server.Issuer)
	}
	body, _ := json.Marshal(map[string]any{
		"client_name":                c.opts.ClientName,
		"redirect_uris":              []string{redirectURI},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.Server.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.opts.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s answered %s: %s", d.Server.RegistrationEndpoint, resp.Status, oauthError(b))
	}
	var reg struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		AuthMethod   string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(b, &reg); err != nil || reg.ClientID == "" {
		return fmt.Errorf("%s answered without a client_id", d.Server.RegistrationEndpoint)
	}
	rec.Issuer, rec.ClientID, rec.ClientSecret = d.Server.Issuer, reg.ClientID, reg.ClientSecret
	rec.AuthMethod = authMethod(d.Server, reg.ClientSecret != "", reg.AuthMethod)
	rec.RedirectURI = redirectURI
	return c.save(rec) // keep the registration even if the sign-in fails
}

// authMethod picks the token endpoint authentication: the registered one,
// else none for a public client, else client_secret_basic unless the
// server offers only client_secret_post.
func authMethod(m *ServerMetadata, secret bool, registered string) string {
	switch {
	case registered != "":
		return registered
	case !secret:
		return "none"
	case len(m.TokenEndpointAuthMethodsSupported) == 0 || slices.Contains(m.TokenEndpointAuthMethodsSupported, "client_secret_basic"):
		return "client_secret_basic"
	case slices.Contains(m.TokenEndpointAuthMethodsSupported, "client_secret_post"):
		return "client_secret_post"
	}
	return "client_secret_basic"
}

// tokenResponse is a token endpoint's answer.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
}

// tokenRequest POSTs form to the token endpoint with the client's
// authentication.
func (c *Client) tokenRequest(ctx context.Context, d *Discovery, rec *record, form url.Values) (*tokenResponse, error) {
	if d.Server.TokenEndpoint == "" {
		return nil, errors.New("the authorization server has no token endpoint")
	}
	var user, pass string
	switch rec.AuthMethod {
	case "client_secret_basic":
		user, pass = url.QueryEscape(rec.ClientID), url.QueryEscape(rec.ClientSecret)
	case "client_secret_post":
		form.Set("client_id", rec.ClientID)
		form.Set("client_secret", rec.ClientSecret)
	case "private_key_jwt":
		// set by the caller
	default:
		form.Set("client_id", rec.ClientID)
	}
	return c.postToken(ctx, d.Server.TokenEndpoint, form, user, pass, true)
}

// postToken sends a token request; bearer requires a bearer token back
// (an ID-JAG from a token exchange is not one).
func (c *Client) postToken(ctx context.Context, endpoint string, form url.Values, user, pass string, bearer bool) (*tokenResponse, error) {
	return postToken(ctx, c.opts.HTTP, endpoint, form, user, pass, bearer)
}

// postToken sends a token request with hc.
func postToken(ctx context.Context, hc *http.Client, endpoint string, form url.Values, user, pass string, bearer bool) (*tokenResponse, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s answered %s: %s", endpoint, resp.Status, oauthError(b))
	}
	var t tokenResponse
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s answered with something that is not a token response: %w", endpoint, err)
	}
	if t.AccessToken == "" {
		// Not the body: it may hold a refresh token.
		return nil, fmt.Errorf("%s answered without an access token", endpoint)
	}
	if bearer && t.TokenType != "" && !strings.EqualFold(t.TokenType, "bearer") {
		return nil, fmt.Errorf("%s issued a %q token; only bearer tokens are supported", endpoint, t.TokenType)
	}
	return &t, nil
}

// oauthError describes an OAuth error response (or a short body).
func oauthError(b []byte) string {
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		if e.Description != "" {
			return e.Error + ": " + e.Description
		}
		return e.Error
	}
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// keep stores new tokens in rec (a refresh token not given is kept).
func (c *Client) keep(rec *record, d *Discovery, t *tokenResponse) error {
	rec.AccessToken, rec.TokenType, rec.Scope = t.AccessToken, t.TokenType, t.Scope
	if t.RefreshToken != "" {
		rec.RefreshToken = t.RefreshToken
	}
	rec.Issued, rec.Expiry = c.opts.Now(), time.Time{}
	if t.ExpiresIn > 0 {
		rec.Expiry = rec.Issued.Add(time.Duration(t.ExpiresIn) * time.Second)
	}
	rec.Issuer, rec.TokenEndpoint, rec.Dropped = d.Server.Issuer, d.Server.TokenEndpoint, ""
	if err := c.save(rec); err != nil {
		return &SignInError{Server: c.opts.Server, Step: "keep the tokens", Err: err}
	}
	return nil
}

// refresh exchanges the refresh token, under the cross-process lock; a
// token that another process refreshed meanwhile (the kept access token
// is no longer stale) is taken instead. c.mu is held.
func (c *Client) refresh(ctx context.Context, stale string) error {
	unlock, err := lockFile(ctx, c.opts.LockDir, c.key)
	if err != nil {
		return fmt.Errorf("take the refresh lock: %w", err)
	}
	defer unlock()
	c.rec = nil // read what another process may have written
	rec, err := c.load()
	if err != nil {
		return err
	}
	if rec.AccessToken != "" && rec.AccessToken != stale && !c.expired(rec) {
		return nil
	}
	if rec.RefreshToken == "" {
		return errors.New("no refresh token")
	}
	d := c.discover
	if d == nil {
		if d, err = discover(ctx, c.opts.HTTP, c.opts.URL, ""); err != nil {
			return fmt.Errorf("discovery: %w", err)
		}
	}
	if err := c.pinned(rec, d); err != nil {
		// Drop the tokens (the pin stays, so that no sign-in but the
		// user's goes to the new server) and say why until Login.
		rec.AccessToken, rec.RefreshToken, rec.Scope, rec.TokenType, rec.Expiry, rec.Issued = "", "", "", "", time.Time{}, time.Time{}
		rec.Dropped = err.Error()
		if serr := c.save(rec); serr != nil {
			c.opts.Log.Warn("MCP sign-in: the dropped tokens could not be forgotten", "mcp_server", c.opts.Server, "err", serr)
		}
		c.failed = err
		return err
	}
	c.discover = d
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rec.RefreshToken}, "resource": {d.Resource}}
	t, err := c.tokenRequest(ctx, d, rec, form)
	if err != nil {
		return err
	}
	return c.keep(rec, d, t)
}

// pinned checks that d names the authorization server that issued rec's
// tokens: the same issuer and token endpoint. A record kept before the
// token endpoint was kept is held to its issuer alone.
func (c *Client) pinned(rec *record, d *Discovery) error {
	issuer, endpoint := d.Server.Issuer, d.Server.TokenEndpoint
	switch {
	case rec.Issuer == "" && rec.TokenEndpoint == "":
		return fmt.Errorf("%w: freeact does not know which authorization server issued the kept tokens of MCP server %q, so they are not sent to %s; sign in again from Settings → MCP or with `freeact mcp login %s`", ErrAuthServerChanged, c.opts.Server, endpoint, c.opts.Server)
	case strings.TrimSuffix(rec.Issuer, "/") != strings.TrimSuffix(issuer, "/"):
		return fmt.Errorf("%w: MCP server %q now names the authorization server %q, not %q that you signed in with; its tokens and client secret are not sent to the new one: sign in again from Settings → MCP or with `freeact mcp login %s` if you trust it", ErrAuthServerChanged, c.opts.Server, issuer, rec.Issuer, c.opts.Server)
	case rec.TokenEndpoint != "" && rec.TokenEndpoint != endpoint:
		return fmt.Errorf("%w: the authorization server of MCP server %q now names the token endpoint %q, not %q that issued its tokens; they are not sent to the new one: sign in again from Settings → MCP or with `freeact mcp login %s` if you trust it", ErrAuthServerChanged, c.opts.Server, endpoint, rec.TokenEndpoint, c.opts.Server)
	}
	return nil
}

// load returns the kept record (cached after the first read). c.mu held.
func (c *Client) load() (*record, error) {
	if c.rec != nil {
		return c.rec, nil
	}
	rec := &record{}
	if c.opts.Store != nil {
		s, err := c.opts.Store.Get(c.key)
		switch {
		case errors.Is(err, config.ErrSecretNotFound):
		case err != nil:
			return nil, fmt.Errorf("read the tokens of MCP server %q: %w", c.opts.Server, err)
		default:
			if err := json.Unmarshal([]byte(s), rec); err != nil {
				return nil, fmt.Errorf("the kept tokens of MCP server %q are damaged (%v): sign in again", c.opts.Server, err)
			}
		}
	}
	c.rec = rec
	return rec, nil
}

func (c *Client) save(rec *record) error {
	c.rec = rec
	if c.opts.Store == nil {
		return nil
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return c.opts.Store.Set(c.key, string(b))
}

// pkce is a PKCE code verifier and its S256 challenge (RFC 7636).
func pkce() (verifier, challenge string) {
	verifier = randomString(48)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

func randomString(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
