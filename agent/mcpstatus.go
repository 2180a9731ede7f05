package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/freeact/desktop/agent/mcp"
)

// MCPServerState is what the agent knows of one MCP server (for a
// settings panel): whether it is connected, why it failed, and its
// sign-in, as `freeact mcp status` shows it.
type MCPServerState struct {
	Name string `json:"name"`
	// Group is "mcp_servers" (JSON tools) or "ptc_servers" (code mode).
	Group string `json:"group"`
	// URL of an HTTP server ("" for a command).
	URL       string `json:"url,omitempty"`
	Connected bool   `json:"connected"`
	// Failure says why it did not start with the agent ("" when it did
	// or was not tried).
	Failure string `json:"failure,omitempty"`
	// SignIn is set for a server that signs in (OAuth); SignedIn,
	// Expiry (zero: none given) and Refreshable describe the kept token.
	SignIn      bool      `json:"signIn"`
	SignedIn    bool      `json:"signedIn"`
	Expiry      time.Time `json:"expiry,omitzero"`
	Refreshable bool      `json:"refreshable"`
	// SignInError says why the kept sign-in cannot be read.
	SignInError string `json:"signInError,omitempty"`
}

// mcpGroup is one of the agent's managers and the group it serves.
type mcpGroup struct {
	group string
	m     *mcp.Manager
}

// mcpGroups are the agent's managers.
func (a *Agent) mcpGroups() []mcpGroup {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []mcpGroup
	if a.mcp == nil {
		return out
	}
	if a.mcp.json != nil {
		out = append(out, mcpGroup{"mcp_servers", a.mcp.json})
	}
	if a.mcp.ptc != nil {
		out = append(out, mcpGroup{"ptc_servers", a.mcp.ptc})
	}
	return out
}

// MCPServers lists the agent's MCP servers with their state; skip names
// servers whose sign-in is not read (one under way holds it).
func (a *Agent) MCPServers(skip func(server string) bool) []MCPServerState {
	failures := a.MCPFailures()
	var out []MCPServerState
	for _, g := range a.mcpGroups() {
		servers := a.cfg.Options.MCPServers
		if g.group == "ptc_servers" {
			servers = a.cfg.Options.PTCServers
		}
		for _, name := range g.m.Servers() {
			st := MCPServerState{Name: name, Group: g.group, URL: servers[name].URL, Connected: g.m.ProtocolVersion(name) != ""}
			for _, f := range failures {
				if f.Group == g.group && f.Server == name && !st.Connected {
					st.Failure = f.Error
				}
			}
			if st.URL != "" && (skip == nil || !skip(name)) {
				si, err := g.m.SignInStatus(name)
				switch {
				case err == nil:
					st.SignIn, st.SignedIn, st.Expiry, st.Refreshable = true, si.SignedIn, si.Expiry, si.Refreshable
					if si.Dropped != "" {
						// Tokens dropped because the authorization server
						// changed: that is why it needs a sign-in.
						st.Failure = si.Dropped
					}
				case errors.Is(err, mcp.ErrNoSignIn):
				default:
					st.SignIn, st.SignInError = true, err.Error()
				}
			} else if st.URL != "" {
				st.SignIn = true
			}
			out = append(out, st)
		}
	}
	return out
}

// MCPLogin signs in to server (the browser step included) and connects
// it, so that its tools are there without a restart.
func (a *Agent) MCPLogin(ctx context.Context, server string) error {
	m, err := a.mcpManagerOf(server)
	if err != nil {
		return err
	}
	if err := m.Login(ctx, server); err != nil {
		return err
	}
	if _, err := m.ServerTools(ctx, server); err != nil {
		return fmt.Errorf("signed in, but: %w", err)
	}
	return nil
}

// MCPConnect connects server now, as the window's Try again does for a
// server that did not start: a JSON server's tools are offered from the
// next model call, and it leaves MCPFailures. When it fails again, its
// failure says the new reason.
func (a *Agent) MCPConnect(ctx context.Context, server string) error {
	m, err := a.mcpManagerOf(server)
	if err != nil {
		return err
	}
	_, err = m.ServerTools(ctx, server)
	if err != nil {
		why := err.Error()
		if me := (*mcp.Error)(nil); errors.As(err, &me) {
			why = me.Err.Error()
		}
		a.mu.Lock()
		a.mcp.noteFailure(m, server, why)
		a.mu.Unlock()
	}
	return err
}

// MCPLogout forgets the tokens of server (the registration is kept).
func (a *Agent) MCPLogout(server string) error {
	m, err := a.mcpManagerOf(server)
	if err != nil {
		return err
	}
	return m.Logout(server)
}

func (a *Agent) mcpManagerOf(server string) (*mcp.Manager, error) {
	for _, g := range a.mcpGroups() {
		for _, n := range g.m.Servers() {
			if n == server {
				return g.m, nil
			}
		}
	}
	return nil, &mcp.Error{Server: server, Err: mcp.ErrUnknownServer}
}
