package desktop

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/freeact/desktop/agent/remote"
	"github.com/freeact/desktop/internal/redact"
)

// HubState is what the Kernel tab's JupyterHub card shows about the Hub
// the saved jupyter_url names: whether it is one, who is signed in, and
// whether the Hub offers the browser sign-in. It never holds the token.
type HubState struct {
	// URL is the Hub's address (no query, no user info); "" when the
	// workspace sets no jupyter_url.
	URL string `json:"url"`
	// IsHub: the URL answers as a JupyterHub (GET hub/api).
	IsHub bool `json:"is_hub"`
	// TokenName is the key-store name the token is kept under.
	TokenName string `json:"token_name"`
	// TokenPage is where the user creates a token.
	TokenPage string `json:"token_page"`
	// User is the token's owner when a token is kept and the Hub takes
	// it; "" otherwise.
	User string `json:"user"`
	// HasToken: a token is kept (in the key store, the environment or
	// .env), whether or not the Hub takes it.
	HasToken bool `json:"has_token"`
	// OAuth: the Hub's administrator registered freeact
	// (jupyter_oauth_client_id), so Sign in in the browser is offered.
	OAuth bool `json:"oauth"`
	// Problem says what is wrong (not a Hub, the token refused...); "".
	Problem string `json:"problem"`
}

// hubTimeout bounds a question to the Hub from the card.
const hubTimeout = 30 * time.Second

// openHub is the Hub of the open workspace's saved settings, and the
// token kept for it.
func (d *Desktop) openHub() (*remote.Hub, string, error) {
	ws, err := d.current()
	if err != nil {
		return nil, "", err
	}
	cfg, err := ws.open.Load()
	if err != nil {
		return nil, "", err
	}
	h, err := remote.OpenHub(cfg)
	if err != nil {
		return nil, "", err
	}
	return h, cfg.Env.Getenv(h.TokenName), nil
}

// HubStatus says what the card shows: nothing to sign in to (no
// jupyter_url, or not a Hub), signed in as NAME, or how to sign in.
func (d *Desktop) HubStatus() (HubState, error) {
	h, token, err := d.openHub()
	if errors.Is(err, remote.ErrNoHubURL) {
		return HubState{}, nil
	}
	if err != nil {
		return HubState{}, err
	}
	ctx, cancel := context.WithTimeout(d.host.context(), hubTimeout)
	defer cancel()
	return hubState(ctx, h, token), nil
}

func hubState(ctx context.Context, h *remote.Hub, token string) HubState {
	st := HubState{URL: redact.URL(h.URL.String()), TokenName: h.TokenName, TokenPage: h.TokenPage(), OAuth: h.OAuthClientID != "", HasToken: token != ""}
	if err := h.Detect(ctx); err != nil {
		st.Problem = err.Error()
		return st
	}
	st.IsHub = true
	if token == "" {
		return st
	}
	user, err := h.Whoami(ctx, token)
	if err != nil {
		st.Problem = err.Error()
		return st
	}
	st.User = user
	return st
}

// HubSetToken checks a pasted token with the Hub (its owner, its scopes)
// and keeps it in the key store (never agent.json); the agent uses it
// from its next start.
func (d *Desktop) HubSetToken(token string) (HubState, error) {
	h, _, err := d.openHub()
	if err != nil {
		return HubState{}, err
	}
	ctx, cancel := context.WithTimeout(d.host.context(), hubTimeout)
	defer cancel()
	token = strings.TrimSpace(token)
	if _, err := h.CheckToken(ctx, token); err != nil {
		return HubState{}, err
	}
	if _, err := d.SetAPIKey(h.TokenName, token); err != nil {
		return HubState{}, err
	}
	return hubState(ctx, h, token), nil
}

// HubSignIn signs in through the Hub in the browser (OAuth with PKCE,
// when jupyter_oauth_client_id is set): the sign-in card shows the browser
// step, as an MCP server's does, and the token goes to the key store. It
// returns when the sign-in ended.
func (d *Desktop) HubSignIn() (HubState, error) {
	h, _, err := d.openHub()
	if err != nil {
		return HubState{}, err
	}
	ctx := d.host.context()
	_, token, err := h.SignInBrowser(ctx, d.mcpUser().browser)
	if err != nil {
		return HubState{}, err
	}
	if _, err := d.SetAPIKey(h.TokenName, token); err != nil {
		return HubState{}, err
	}
	qctx, cancel := context.WithTimeout(ctx, hubTimeout)
	defer cancel()
	return hubState(qctx, h, token), nil
}

// HubSignOut removes the Hub's token from the key store (one from the
// environment or .env stays: Problem then says so).
func (d *Desktop) HubSignOut() (HubState, error) {
	h, _, err := d.openHub()
	if err != nil {
		return HubState{}, err
	}
	if _, err := d.SetAPIKey(h.TokenName, ""); err != nil {
		return HubState{}, err
	}
	_, token, err := d.openHub()
	if err != nil {
		return HubState{}, err
	}
	ctx, cancel := context.WithTimeout(d.host.context(), hubTimeout)
	defer cancel()
	st := hubState(ctx, h, token)
	if token != "" && st.Problem == "" {
		st.Problem = h.TokenName + " is still set in the environment or the workspace's .env, which the key store does not hold: remove it there to sign out"
	}
	return st, nil
}
