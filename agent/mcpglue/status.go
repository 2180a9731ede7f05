package mcpglue

import (
	"errors"
	"github.com/freeact/desktop/agent/config"
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

// Group is one of an agent's managers and the group it serves
// ("mcp_servers" or "ptc_servers").
type Group struct {
	Group string
	M     *mcp.Manager
}

// States lists the servers of groups with their state, the servers'
// settings in opts and the failures at start; skip names servers whose
// sign-in is not read (one under way holds it).
func States(groups []Group, opts *config.Options, failures []MCPFailure, skip func(server string) bool) []MCPServerState {
	var out []MCPServerState
	for _, g := range groups {
		servers := opts.MCPServers
		if g.Group == "ptc_servers" {
			servers = opts.PTCServers
		}
		for _, name := range g.M.Servers() {
			st := MCPServerState{Name: name, Group: g.Group, URL: servers[name].URL, Connected: g.M.ProtocolVersion(name) != ""}
			for _, f := range failures {
				if f.Group == g.Group && f.Server == name && !st.Connected {
					st.Failure = f.Error
				}
			}
			if st.URL != "" && (skip == nil || !skip(name)) {
				si, err := g.M.SignInStatus(name)
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

// MCPFailure is an MCP server that did not start with the agent: Group is
// "mcp_servers" or "ptc_servers", Error says why.
type MCPFailure struct {
	Group  string `json:"group"`
	Server string `json:"server"`
	Error  string `json:"error"`
}
