// Package kernelhost owns the kernel's host callbacks for one agent: the
// requests that code running in a cell makes (each simple command of a
// shell line, a programmatic MCP tool call, input()) asked for under the
// cell's card, and a rejection of one of them reported to the cell. It
// sees the agent through Agent.
package kernelhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/freeact/desktop/agent/approval"
	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/mcpglue"

	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/permission"
	"github.com/freeact/desktop/agent/shell"
	"github.com/freeact/desktop/kernel"
)

// ToolCaller runs MCP tools for programmatic calls from code (code mode).
// agent/mcp implements it; without one, calls fail with a clear error.
type ToolCaller interface {
	CallTool(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error)
}

// Agent is what the host needs of the agent whose kernel it answers.
type Agent interface {
	ID() string
	// LocalDir is the folder on this machine of a kernel's current folder.
	LocalDir(dir string) string
	// GuardShell checks the protected files before a shell command.
	GuardShell(emit func(event.Event), corr, command string)
	// Approvals asks for the agent's approvals.
	Approvals() *approval.Approver
	ApprovalTimeout() time.Duration
	LogRuleError(err error)
	// PTCHints are the hints an MCP server gives for a tool.
	PTCHints(ctx context.Context, server, tool string) *mcp.Hints
	// ToolCaller runs programmatic tool calls (nil: none configured).
	ToolCaller() ToolCaller
	// CalledFromCode tells the agent's hooks how a call from code ended
	// (PostToolUse, PostToolUseFailure).
	CalledFromCode(ctx context.Context, emit func(event.Event), corr, server, tool string, args, res json.RawMessage, err error)
}

// Cell is the code action a kernel is running: where its host requests
// report to.
type Cell struct {
	Ctx  context.Context // the turn's tool context
	Emit func(event.Event)
	Corr string
	// Rejected is called when the user rejected something the cell asked
	// for: the shell command or the tool call, as its approval showed it.
	Rejected func(r Refusal)
}

// Refusal is what the user rejected inside a running cell.
type Refusal struct {
	kind string // "shell command" or "tool call"
	what string // the command (one line) or the tool's name
}

// What is what was refused: the command (one line) or the tool's name.
func (r Refusal) What() string { return r.what }

// Text is the one line the model gets for the refusal, before
// RejectedText.
func (r Refusal) Text() string {
	what := r.what
	if first, _, more := strings.Cut(what, "\n"); more {
		what = first + " …"
	}
	return fmt.Sprintf("The user rejected the %s: %s", r.kind, what)
}

type cellKey struct{}

// WithCell returns the context to run c's code with: the kernel hands its
// values to the host methods of the requests that code makes.
func WithCell(ctx context.Context, c *Cell) context.Context {
	return context.WithValue(ctx, cellKey{}, c)
}

// Host answers the requests of code running in the agent's kernel.
type Host struct {
	a Agent
}

// New returns the host of a's kernel.
func New(a Agent) *Host { return &Host{a: a} }

// current returns the cell a request comes from.
func (h *Host) current(ctx context.Context) (*Cell, error) {
	c, _ := ctx.Value(cellKey{}).(*Cell)
	if c == nil {
		return nil, errors.New("no code action is running")
	}
	return c, nil
}

// merge returns a context that ends when either ends.
func merge(a, b context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(a)
	stop := context.AfterFunc(b, cancel)
	return ctx, func() { stop(); cancel() }
}

// ApproveShell asks for each simple command of a `!` line, for a whole
// script cell, or for a process IPython starts directly (as a whole, never
// allowed by a rule), in order; the first "no" rejects the line and ends the
// turn.
func (h *Host) ApproveShell(ctx context.Context, req kernel.ShellRequest) (bool, error) {
	c, err := h.current(ctx)
	if err != nil {
		return false, err
	}
	ctx, cancel := merge(ctx, c.Ctx)
	defer cancel()
	var calls []event.ShellAction
	dir := h.a.LocalDir(req.Dir)
	switch {
	case len(req.Argv) > 0:
		calls = []event.ShellAction{event.ShellAction{ToolName: permission.ShellTool, Command: req.Command, Opaque: true}.InDir(dir)}
	case req.Interpreter != "":
		calls = []event.ShellAction{event.ShellAction{ToolName: permission.ShellMagicTool, Command: req.Command, Interpreter: req.Interpreter}.InDir(dir)}
	default:
		split := shell.Split(req.Command)
		for _, cmd := range split.Commands {
			calls = append(calls, event.ShellAction{ToolName: permission.ShellTool, Command: cmd, Opaque: split.Opaque}.InDir(dir))
		}
	}
	if len(calls) > 0 {
		h.a.GuardShell(c.Emit, c.Corr, permission.SuggestDisplay(calls[0].Permission()))
	}
	for _, call := range calls {
		ok, err := h.a.Approvals().Ask(ctx, c.Emit, c.Corr, call, 0)
		if !ok {
			if err == nil {
				r := Refusal{kind: "shell command", what: permission.SuggestDisplay(call.Permission())}
				if call.Interpreter != "" {
					r.kind = call.Interpreter + " script"
				}
				c.Rejected(r)
			}
			return false, err
		}
		h.a.LogRuleError(err)
	}
	return true, nil
}

// CallTool approves and runs a programmatic tool call; approval_timeout
// applies to the approval.
func (h *Host) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
	c, err := h.current(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := merge(ctx, c.Ctx)
	defer cancel()
	call := event.GenericCall{ToolName: server + "_" + tool, Args: model.ArgsJSON(args), PTC: true, Hints: h.a.PTCHints(ctx, server, tool), Server: server}
	ok, ran, err := h.a.Approvals().AskCall(ctx, c.Emit, c.Corr, call, h.a.ApprovalTimeout())
	if g, changed := ran.(event.GenericCall); changed {
		// A hook's updatedInput: the arguments the approval showed.
		call = g
		args = json.RawMessage(g.Args)
	}
	switch {
	case errors.Is(err, approval.ErrTimeout):
		return nil, fmt.Errorf("%w: no answer within approval_timeout (%s)", context.DeadlineExceeded, h.a.ApprovalTimeout())
	case !ok && err == nil:
		c.Rejected(Refusal{kind: "tool call", what: call.ToolName})
		return nil, fmt.Errorf("%s: %w", call.ToolName, kernel.ErrRejected)
	case !ok:
		return nil, err
	}
	h.a.LogRuleError(err)
	if h.a.ToolCaller() == nil {
		return nil, fmt.Errorf("no MCP server %q is configured: add it to ptc_servers in .freeact/agent.json", server)
	}
	// The server's progress and log lines show on the cell's card.
	progress := mcpglue.NewProgressThrottle(c.Emit, event.Meta{AgentID: h.a.ID(), CorrelationID: c.Corr})
	defer progress.Stop()
	res, err := h.a.ToolCaller().CallTool(mcp.WithNotify(ctx, progress.Note), server, tool, args)
	h.a.CalledFromCode(ctx, c.Emit, c.Corr, server, tool, call.Args, res, err)
	return res, err
}

// Input passes the cell's input() to the front end and waits for the reply.
func (h *Host) Input(ctx context.Context, prompt string, password bool) (string, error) {
	c, err := h.current(ctx)
	if err != nil {
		return "", err
	}
	req := event.NewInputRequest(event.Meta{AgentID: h.a.ID(), CorrelationID: c.Corr}, prompt, password)
	c.Emit(req)
	select {
	case s := <-req.Answered():
		return s, nil
	case <-ctx.Done():
		req.Reply("")
		return "", ctx.Err()
	case <-c.Ctx.Done():
		req.Reply("")
		return "", c.Ctx.Err()
	}
}
