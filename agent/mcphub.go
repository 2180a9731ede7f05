package agent

import (
	"context"
	"time"

	"github.com/freeact/desktop/agent/longsession"
	"github.com/freeact/desktop/agent/mcpglue"
	"github.com/freeact/desktop/agent/tooldefs"
)

// The agent's MCP servers and tool search are an *mcpglue.Hub (a.mcp);
// what follows is the glue that hands it the agent's state, and the SDK's
// methods over it.

// WithMCPStartWait sets how long Start waits for the servers of
// mcp_servers to connect (mcpglue.DefaultStartWait; 0: not at all). A
// server still connecting then is not a failure: it goes on connecting,
// up to its connect_timeout, and the first model call waits for it
// (MCPWaiting).
func WithMCPStartWait(d time.Duration) Option {
	return func(o *options) { o.mcpUser.Wait = &d }
}

// startMCP starts the agent's hub (mcpglue.Start): search is the parent's
// tool search for a subagent. Unless the caller set a ToolCaller, the hub
// serves programmatic calls from ptc_servers.
func (a *Agent) startMCP(ctx context.Context, search *mcpglue.ToolSearch) {
	o := a.opts.mcpUser.Options(a.cfg, a.opts.log, a.opts.dirs.MCPSignIn())
	o.Builtin, o.Asker, o.HasCaller, o.Search = tooldefs.IsBuiltin, sampler{a}, a.opts.toolCaller != nil, search
	o.NoSearch, o.Main = a.opts.subagentOnly, a.id == MainAgent
	a.mcp = mcpglue.Start(ctx, o)
	if c, ok := a.mcp.Caller(); ok {
		a.opts.toolCaller = c
	}
}

// sampler answers servers' sampling requests with the agent's approvals
// and model.
type sampler struct{ a *Agent }

func (s sampler) Approve(ctx context.Context, emit func(Event), corr string, tc ToolCall) (bool, error) {
	ok, err := s.a.approvals.Ask(ctx, emit, corr, tc, 0)
	if ok {
		s.a.logRuleError(err)
	}
	return ok, err
}

func (s sampler) Ask(ctx context.Context, system, prompt string) (string, string, error) {
	text, _, err := longsession.Ask(ctx, s.a.currentModel(), system, prompt)
	return text, s.a.cfg.Options.Model, err
}

// lockedMCP is the agent's hub, read under a.mu.
func (a *Agent) lockedMCP() *mcpglue.Hub {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.mcp
}

// MCPFailures lists the MCP servers that did not start with the agent and
// are not connected since (MCPConnect, a sign-in, or a call from code that
// connected them): their tools are not offered.
func (a *Agent) MCPFailures() []mcpglue.MCPFailure { return a.lockedMCP().Failures() }

// ExpandMCP turns a request into what the model gets: a prompt slash
// command /server:prompt key=value ... into the server's prompt, and
// @server:uri mentions into the resources attached after the text. Text
// with neither comes back as it is. A mentioned resource over the mention
// limit is refused with an *mcp.LargeMentionError (its size, nothing
// sent) unless mcpglue.AllowLargeMentions is given: ask the user first
// (LargeMentions lists them).
func (a *Agent) ExpandMCP(ctx context.Context, text string, opts ...mcpglue.ExpandOption) (string, error) {
	return a.mcp.Expand(ctx, text, opts...)
}

// LargeMentions reads the resources text mentions and lists those over
// the mention limit, for the user to confirm before ExpandMCP attaches
// them with mcpglue.AllowLargeMentions.
func (a *Agent) LargeMentions(ctx context.Context, text string, opts ...mcpglue.ExpandOption) ([]mcpglue.LargeMention, error) {
	return a.mcp.LargeMentions(ctx, text, opts...)
}

// MCPCatalog lists the resources, resource templates and prompts of every
// MCP server (mcpglue.Catalog).
func (a *Agent) MCPCatalog(ctx context.Context) mcpglue.MCPCatalog {
	return mcpglue.Catalog(ctx, a.mcp.Managers()...)
}

// CompleteMCP asks a server for values of an argument that begin like
// value: kind "prompt" (name a prompt) or "resource" (name a resource
// template). resolved holds the arguments already filled in, which the
// server may narrow the values by.
func (a *Agent) CompleteMCP(ctx context.Context, kind, server, name, arg, value string, resolved map[string]string) ([]string, error) {
	m, err := mcpglue.ManagerFor(server, a.mcp.Managers()...)
	if err != nil {
		return nil, err
	}
	return mcpglue.Complete(ctx, m, kind, server, name, arg, value, resolved)
}

// MCPServers lists the agent's MCP servers with their state; skip names
// servers whose sign-in is not read (one under way holds it).
func (a *Agent) MCPServers(skip func(server string) bool) []mcpglue.MCPServerState {
	return mcpglue.States(a.lockedMCP().Groups(), &a.cfg.Options, a.MCPFailures(), skip)
}

// MCPLogin signs in to server (the browser step included) and connects
// it, so that its tools are there without a restart.
func (a *Agent) MCPLogin(ctx context.Context, server string) error {
	return a.lockedMCP().Login(ctx, server)
}

// MCPConnect connects server now, as the window's Try again does for a
// server that did not start: a JSON server's tools are offered from the
// next model call, and it leaves MCPFailures. When it fails again, its
// failure says the new reason.
func (a *Agent) MCPConnect(ctx context.Context, server string) error {
	return a.lockedMCP().Connect(ctx, server)
}

// MCPLogout forgets the tokens of server (the registration is kept).
func (a *Agent) MCPLogout(server string) error { return a.lockedMCP().Logout(server) }
