package mcpglue

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
)

// DefaultStartWait is how long an agent's start waits for the servers of
// mcp_servers before it leaves those still connecting to connect in the
// background. The first model call waits for them (MCPWaiting).
const DefaultStartWait = 10 * time.Second

// User is how an agent's MCP servers reach the user, and how long its
// start waits for them.
type User struct {
	// SignIn is the sign-in to OAuth-protected servers (its Dir "": the
	// app's folder of sign-ins).
	SignIn mcp.SignInOptions
	// Elicit answers a server's forms (nil: servers are not offered
	// elicitation).
	Elicit func(context.Context, mcp.Form) (mcp.Answer, error)
	// Wait is how long the start waits (nil: DefaultStartWait).
	Wait *time.Duration
}

// Options are the options of Start for an agent over cfg that reaches
// the user as u: signInDir is the app's folder of sign-ins, and the
// workspace is the servers' root.
func (u User) Options(cfg *config.Config, log *slog.Logger, signInDir string) StartOptions {
	signIn := u.SignIn
	if signIn.Dir == "" {
		signIn.Dir = signInDir
	}
	wait := DefaultStartWait
	if u.Wait != nil {
		wait = *u.Wait
	}
	return StartOptions{
		Config: cfg,
		MCP: mcp.Options{Log: log, SignIn: signIn, Elicit: u.Elicit,
			Roots: func() []string { return []string{cfg.Dir} }},
		Wait: wait,
	}
}

// Login signs in to server (the browser step included) and connects it,
// so that its tools are there without a restart.
func (h *Hub) Login(ctx context.Context, server string) error {
	m, err := h.ManagerOf(server)
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

// Logout forgets the tokens of server (the registration is kept).
func (h *Hub) Logout(server string) error {
	m, err := h.ManagerOf(server)
	if err != nil {
		return err
	}
	return m.Logout(server)
}
