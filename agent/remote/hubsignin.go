package remote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp/oauth"
	"github.com/freeact/desktop/internal/redact"
	"github.com/freeact/desktop/kernel/hub"
)

// Hub is the JupyterHub a workspace's jupyter_url names, as the sign-in
// of every front end (freeact remote login, the window's Settings, the
// SDK) sees it: its address, the key-store name of its token and the
// OAuth client its administrator registered, if any. It does not hold the
// token.
type Hub struct {
	// URL is the Hub's base URL (no query, no user info).
	URL *url.URL
	// TokenName is the key-store name of the token (hub.TokenName).
	TokenName string
	// OAuthClientID is jupyter_oauth_client_id: "" when the Hub offers no
	// browser sign-in to freeact.
	OAuthClientID string
	// RedirectURI is the OAuth client's loopback redirect URI.
	RedirectURI string

	secret string
	raw    string
	client *http.Client
}

// ErrNoHubURL: the workspace sets no jupyter_url.
var ErrNoHubURL = errors.New("the workspace sets no jupyter_url")

// OpenHub is the Hub of cfg's jupyter_url. It asks nothing of the Hub
// yet: a jupyter_url that is a Jupyter server is told apart when signing
// in.
func OpenHub(cfg *config.Config) (*Hub, error) {
	o := cfg.Options
	file := filepath.Join(cfg.FreeactDir, config.AgentFile)
	if o.JupyterURL == nil || *o.JupyterURL == "" {
		return nil, fmt.Errorf("%w\nfix: set jupyter_url in %s to the JupyterHub's address (https://hub.example.org/) first", ErrNoHubURL, file)
	}
	base, err := hub.Base(*o.JupyterURL)
	if err != nil {
		return nil, fmt.Errorf("jupyter_url: %w", err)
	}
	caFile := ""
	if o.JupyterCAFile != nil && *o.JupyterCAFile != "" {
		caFile = *o.JupyterCAFile
		if !filepath.IsAbs(caFile) {
			caFile = filepath.Join(cfg.Dir, caFile)
		}
	}
	client, err := hub.HTTPClient(caFile)
	if err != nil {
		return nil, err
	}
	h := &Hub{URL: base, TokenName: hub.TokenName(base), RedirectURI: config.DefaultHubRedirectURI, raw: *o.JupyterURL, client: client}
	if o.JupyterOAuthClientID != nil {
		h.OAuthClientID = strings.TrimSpace(*o.JupyterOAuthClientID)
	}
	if o.JupyterOAuthClientSecret != nil {
		h.secret = *o.JupyterOAuthClientSecret
	}
	if o.JupyterOAuthRedirectURI != nil && *o.JupyterOAuthRedirectURI != "" {
		h.RedirectURI = *o.JupyterOAuthRedirectURI
	}
	return h, nil
}

// Detect asks the Hub's API (GET hub/api) whether jupyter_url is a
// JupyterHub; a *hub.NotHubError says what it answered instead.
func (h *Hub) Detect(ctx context.Context) error {
	_, _, err := hub.Detect(ctx, h.client, h.raw)
	return err
}

// TokenPage is where the user creates a token.
func (h *Hub) TokenPage() string { return h.URL.JoinPath("hub", "token").String() }

// CheckToken checks token with the Hub (recognised, the owner a user,
// the scopes there) and returns the user's name. The caller keeps the
// token under TokenName.
func (h *Hub) CheckToken(ctx context.Context, token string) (string, error) {
	_, user, err := hub.SignIn(ctx, h.client, h.raw, token)
	return user, err
}

// SignInBrowser signs in with OAuth through the Hub's own authorize and
// token endpoints (hub/api/oauth2/…): PKCE with S256, a state check, the
// answer taken on the loopback RedirectURI, the browser shown through
// browser (nil: the system browser through internal/opener), as an MCP
// server's sign-in. The token is checked like a pasted one; it returns
// the user's name and the token for the caller to keep under TokenName.
// Errors never hold the token, the code or the client secret.
func (h *Hub) SignInBrowser(ctx context.Context, browser func(ctx context.Context, name, authURL string) error) (user, token string, err error) {
	if h.OAuthClientID == "" {
		return "", "", fmt.Errorf("the JupyterHub %s offers freeact no browser sign-in: jupyter_oauth_client_id is not set\nfix: ask the Hub's administrator to register freeact (docs/remote.md) and set jupyter_oauth_client_id (and jupyter_oauth_client_secret), or sign in with a token from %s", h.URL.Redacted(), h.TokenPage())
	}
	if _, _, err := hub.Detect(ctx, h.client, h.raw); err != nil {
		if errors.Is(err, hub.ErrNotHub) {
			return "", "", fmt.Errorf("jupyter_url %s does not answer as a JupyterHub (%v): only a Hub signs in here", h.URL.Redacted(), err)
		}
		return "", "", err
	}
	flow := oauth.CodeFlow{
		Name:                  "JupyterHub " + h.URL.Host,
		AuthorizationEndpoint: h.URL.JoinPath("hub", "api", "oauth2", "authorize").String(),
		TokenEndpoint:         h.URL.JoinPath("hub", "api", "oauth2", "token").String(),
		ClientID:              h.OAuthClientID,
		ClientSecret:          h.secret,
		RedirectURI:           h.RedirectURI,
		Scopes:                hub.Scopes,
		Browser:               browser,
		HTTP:                  h.client,
	}
	tok, err := flow.SignIn(ctx)
	if err != nil {
		return "", "", h.scrub(err)
	}
	user, err = h.CheckToken(ctx, tok.AccessToken)
	if err != nil {
		return "", "", fmt.Errorf("the Hub's OAuth token: %w\nfix: the administrator allows these scopes in the service entry's oauth_client_allowed_scopes (docs/remote.md)", err)
	}
	return user, tok.AccessToken, nil
}

// scrub takes the client secret out of err's text (a Hub's error page
// might echo the request).
func (h *Hub) scrub(err error) error {
	err = redact.Err(err)
	if len(h.secret) < 4 || !strings.Contains(err.Error(), h.secret) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), h.secret, "***"))
}

// Whoami asks the Hub whose token is kept (token, from the key store or
// the environment): the user's name, or the Hub's refusal.
func (h *Hub) Whoami(ctx context.Context, token string) (string, error) {
	c := hub.New(h.URL, token, h.client)
	u, err := c.Me(ctx)
	if err != nil {
		return "", err
	}
	return u.Name, nil
}
