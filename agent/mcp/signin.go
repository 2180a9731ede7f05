package mcp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp/oauth"
	"github.com/freeact/desktop/internal/appdirs"
)

// signInDir is where token files and refresh locks go: SignInOptions.Dir,
// else the state folder adrg/xdg read at start.
func signInDir(o SignInOptions) string {
	if o.Dir != "" {
		return o.Dir
	}
	return appdirs.FromXDG().MCPSignIn()
}

// lazyStore asks for the store on first use, so that a manager without
// OAuth servers never probes the keyring.
type lazyStore struct {
	get func() config.Keyring
}

func (l lazyStore) Get(name string) (string, error) { return l.get().Get(name) }
func (l lazyStore) Set(name, secret string) error   { return l.get().Set(name, secret) }
func (l lazyStore) Delete(name string) error        { return l.get().Delete(name) }
func (l lazyStore) Name() string                    { return l.get().Name() }

// WithoutBrowser marks ctx so that connections and calls made with it
// never open the browser for a sign-in: a server that needs one fails
// with an error that says "sign-in needed" (oauth.ErrSignInRequired)
// until the user signs in (Login). A refresh still happens. Connect and
// an agent's start use it.
func WithoutBrowser(ctx context.Context) context.Context { return oauth.WithoutBrowser(ctx) }

// ErrNoSignIn is returned (wrapped) for a server that does not sign in:
// a command, or an HTTP server whose headers carry the credentials.
var ErrNoSignIn = errors.New("the server does not sign in")

// SignInStatus is the sign-in state of an HTTP server.
type SignInStatus struct {
	// SignedIn is set when an access token is kept.
	SignedIn bool
	// Expiry of the access token (zero: not given).
	Expiry time.Time
	// Refreshable: a refresh token is kept, so expiry needs no new sign-in.
	Refreshable bool
	// Dropped says why the kept tokens were dropped (the server named
	// another authorization server): the user must sign in again.
	Dropped string
}

// SignInStatus reads the kept sign-in of server (an HTTP server).
func (m *Manager) SignInStatus(server string) (SignInStatus, error) {
	a, err := m.auth(server)
	if err != nil {
		return SignInStatus{}, err
	}
	st, err := a.Status()
	if err != nil {
		return SignInStatus{}, &Error{Server: server, Err: err}
	}
	return SignInStatus{SignedIn: st.SignedIn, Expiry: st.Expiry, Refreshable: st.Refreshable, Dropped: st.Dropped}, nil
}

// Login signs in to server now (the browser step included) and drops its
// connection, so that the next use connects with the new token.
func (m *Manager) Login(ctx context.Context, server string) error {
	a, err := m.auth(server)
	if err != nil {
		return err
	}
	if err := a.Login(ctx); err != nil {
		return &Error{Server: server, Err: err}
	}
	m.reconnect(server, "signed in")
	return nil
}

// Logout forgets the tokens of server (its client registration is kept)
// and drops its connection.
func (m *Manager) Logout(server string) error {
	a, err := m.auth(server)
	if err != nil {
		return err
	}
	if err := a.Logout(); err != nil {
		return &Error{Server: server, Err: err}
	}
	m.reconnect(server, "signed out")
	return nil
}

func (m *Manager) auth(server string) (*oauth.Client, error) {
	s, err := m.server(server)
	if err != nil {
		return nil, err
	}
	if s.auth == nil {
		return nil, &Error{Server: server, Err: fmt.Errorf(`%w: sign-in applies to servers with a "url" whose "headers" do not carry Authorization (or that have an "oauth" object)`, ErrNoSignIn)}
	}
	return s.auth, nil
}

func (m *Manager) reconnect(server, why string) {
	s := m.servers[server]
	s.mu.Lock()
	c := s.cur
	s.mu.Unlock()
	if c != nil {
		s.drop(c, why)
	}
}
