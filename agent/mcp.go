package agent

import (
	"context"
	"fmt"
	"github.com/freeact/desktop/agent/longsession"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/mcpglue"
	"github.com/freeact/desktop/agent/tooldefs"
)

// The agent's MCP servers and tool search are an *mcpglue.Hub (a.mcp);
// what follows is the glue that hands it the agent's state. These aliases
// keep the SDK's types reachable as agent.MCPCatalog, ... .
type (
	MCPCatalog     = mcpglue.MCPCatalog
	MCPResource    = mcpglue.MCPResource
	MCPPrompt      = mcpglue.MCPPrompt
	MCPArgument    = mcpglue.MCPArgument
	MCPServerState = mcpglue.MCPServerState
	MCPFailure     = mcpglue.MCPFailure
	MCPWaiting     = mcpglue.MCPWaiting
	LargeMention   = mcpglue.LargeMention
	// ExpandOption changes what ExpandMCP attaches.
	ExpandOption = mcpglue.ExpandOption
)

// Names of the tool-search tools, and the prefix of the approvals of a
// server's sampling request (sampling_<server>).
const (
	ListCategoriesTool = mcpglue.ListCategoriesTool
	ListToolsTool      = mcpglue.ListToolsTool
	SearchToolsTool    = mcpglue.SearchToolsTool
	SamplingToolPrefix = mcpglue.SamplingToolPrefix
)

// BackupDir is where the modules the Python freeact generated are kept
// when they are generated again for this app (mcpglue.BackupDir).
var BackupDir = mcpglue.BackupDir

// DefaultMCPStartWait is how long Start waits for the servers of
// mcp_servers before it leaves those still connecting to connect in the
// background (WithMCPStartWait changes it). The first model call waits
// for them (MCPWaiting).
const DefaultMCPStartWait = 10 * time.Second

// WithMCPStartWait sets how long Start waits for the servers of
// mcp_servers to connect (DefaultMCPStartWait; 0: not at all). A server
// still connecting then is not a failure: it goes on connecting, up to its
// connect_timeout, and the first model call waits for it (MCPWaiting).
func WithMCPStartWait(d time.Duration) Option {
	return func(o *options) { o.mcpStartWait = &d }
}

// AllowLargeMentions attaches mentioned resources whatever their size.
func AllowLargeMentions() ExpandOption { return mcpglue.AllowLargeMentions() }

// WithMentionLimit sets the size in bytes above which a mentioned
// resource is refused (mcp.DefaultMentionLimit when not given; below 0:
// none).
func WithMentionLimit(n int) ExpandOption { return mcpglue.WithMentionLimit(n) }

// startMCP starts the agent's hub (mcpglue.Start): search is the parent's
// tool search for a subagent. Unless the caller set a ToolCaller, the hub
// serves programmatic calls from ptc_servers.
func (a *Agent) startMCP(ctx context.Context, search *mcpglue.ToolSearch) {
	signIn := a.opts.mcpSignIn
	if signIn.Dir == "" {
		signIn.Dir = a.opts.dirs.MCPSignIn()
	}
	wait := DefaultMCPStartWait
	if a.opts.mcpStartWait != nil {
		wait = *a.opts.mcpStartWait
	}
	a.mcp = mcpglue.Start(ctx, mcpglue.StartOptions{
		Config: a.cfg,
		MCP: mcp.Options{Log: a.opts.log, SignIn: signIn, Elicit: a.opts.mcpElicit,
			// The workspace is the servers' root.
			Roots: func() []string { return []string{a.cfg.Dir} }},
		Wait:      wait,
		Builtin:   tooldefs.IsBuiltin,
		Asker:     sampler{a},
		HasCaller: a.opts.toolCaller != nil,
		Search:    search,
		NoSearch:  a.opts.subagentOnly,
		Main:      a.id == MainAgent,
	})
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
func (a *Agent) MCPFailures() []MCPFailure { return a.lockedMCP().Failures() }

// ExpandMCP turns a request into what the model gets: a prompt slash
// command /server:prompt key=value ... into the server's prompt, and
// @server:uri mentions into the resources attached after the text. Text
// with neither comes back as it is. A mentioned resource over the mention
// limit is refused with an *mcp.LargeMentionError (its size, nothing
// sent) unless AllowLargeMentions is given: ask the user first
// (LargeMentions lists them).
func (a *Agent) ExpandMCP(ctx context.Context, text string, opts ...ExpandOption) (string, error) {
	return a.mcp.Expand(ctx, text, opts...)
}

// LargeMentions reads the resources text mentions and lists those over
// the mention limit, for the user to confirm before ExpandMCP attaches
// them with AllowLargeMentions.
func (a *Agent) LargeMentions(ctx context.Context, text string, opts ...ExpandOption) ([]LargeMention, error) {
	return a.mcp.LargeMentions(ctx, text, opts...)
}

// MCPCatalog lists the resources, resource templates and prompts of every
// MCP server (mcpglue.Catalog).
func (a *Agent) MCPCatalog(ctx context.Context) MCPCatalog {
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
func (a *Agent) MCPServers(skip func(server string) bool) []MCPServerState {
	return mcpglue.States(a.lockedMCP().Groups(), &a.cfg.Options, a.MCPFailures(), skip)
}

// MCPLogin signs in to server (the browser step included) and connects
// it, so that its tools are there without a restart.
func (a *Agent) MCPLogin(ctx context.Context, server string) error {
	m, err := a.lockedMCP().ManagerOf(server)
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
	return a.lockedMCP().Connect(ctx, server)
}

// MCPLogout forgets the tokens of server (the registration is kept).
func (a *Agent) MCPLogout(server string) error {
	m, err := a.lockedMCP().ManagerOf(server)
	if err != nil {
		return err
	}
	return m.Logout(server)
}

// GenerateMCPTools (re)generates .freeact/generated/mcptools/<server>/ for
// the named ptc_servers (mcpglue.GenerateTools).
func GenerateMCPTools(ctx context.Context, cfg *config.Config, servers ...string) error {
	return mcpglue.GenerateTools(ctx, cfg, servers...)
}
