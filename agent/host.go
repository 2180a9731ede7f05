package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/freeact/desktop/agent/approval"
	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/mcpglue"
	"strings"

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

// cell is the code action a kernel is running: where its host requests
// report to.
type cell struct {
	ctx  context.Context // the turn's tool context
	emit func(Event)
	corr string
	// rejected is called when the user rejected something the cell asked
	// for: the shell command or the tool call, as its approval showed it.
	rejected func(r refusal)
}

// refusal is what the user rejected inside a running cell.
type refusal struct {
	kind string // "shell command" or "tool call"
	what string // the command (one line) or the tool's name
}

// text is the one line the model gets for the refusal, before
// RejectedText.
func (r refusal) text() string {
	what := r.what
	if first, _, more := strings.Cut(what, "\n"); more {
		what = first + " …"
	}
	return fmt.Sprintf("The user rejected the %s: %s", r.kind, what)
}

type cellKey struct{}

// withCell returns the context to run c's code with: the kernel hands its
// values to the host methods of the requests that code makes.
func withCell(ctx context.Context, c *cell) context.Context {
	return context.WithValue(ctx, cellKey{}, c)
}

// host answers the requests of code running in the agent's kernel.
type host struct {
	a *Agent
}

// current returns the cell a request comes from.
func (h *host) current(ctx context.Context) (*cell, error) {
	c, _ := ctx.Value(cellKey{}).(*cell)
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
func (h *host) ApproveShell(ctx context.Context, req kernel.ShellRequest) (bool, error) {
	c, err := h.current(ctx)
	if err != nil {
		return false, err
	}
	ctx, cancel := merge(ctx, c.ctx)
	defer cancel()
	var calls []ShellAction
	dir := h.a.remote.LocalDir(req.Dir, h.a.cfg.Dir)
	switch {
	case len(req.Argv) > 0:
		calls = []ShellAction{ShellAction{ToolName: permission.ShellTool, Command: req.Command, Opaque: true}.InDir(dir)}
	case req.Interpreter != "":
		calls = []ShellAction{ShellAction{ToolName: permission.ShellMagicTool, Command: req.Command, Interpreter: req.Interpreter}.InDir(dir)}
	default:
		split := shell.Split(req.Command)
		for _, cmd := range split.Commands {
			calls = append(calls, ShellAction{ToolName: permission.ShellTool, Command: cmd, Opaque: split.Opaque}.InDir(dir))
		}
	}
	if len(calls) > 0 {
		h.a.guardShell(c.emit, c.corr, permission.SuggestDisplay(calls[0].Permission()))
	}
	for _, call := range calls {
		ok, err := h.a.approvals.Ask(ctx, c.emit, c.corr, call, 0)
		if !ok {
			if err == nil {
				r := refusal{kind: "shell command", what: permission.SuggestDisplay(call.Permission())}
				if call.Interpreter != "" {
					r.kind = call.Interpreter + " script"
				}
				c.rejected(r)
			}
			return false, err
		}
		h.a.logRuleError(err)
	}
	return true, nil
}

// CallTool approves and runs a programmatic tool call; approval_timeout
// applies to the approval.
func (h *host) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
	c, err := h.current(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := merge(ctx, c.ctx)
	defer cancel()
	call := GenericCall{ToolName: server + "_" + tool, Args: model.ArgsJSON(args), PTC: true, Hints: h.a.mcp.PTCHints(ctx, server, tool), Server: server}
	ok, err := h.a.approvals.Ask(ctx, c.emit, c.corr, call, h.a.approvalTimeout)
	switch {
	case errors.Is(err, approval.ErrTimeout):
		return nil, fmt.Errorf("%w: no answer within approval_timeout (%s)", context.DeadlineExceeded, h.a.approvalTimeout)
	case !ok && err == nil:
		c.rejected(refusal{kind: "tool call", what: call.ToolName})
		return nil, fmt.Errorf("%s: %w", call.ToolName, kernel.ErrRejected)
	case !ok:
		return nil, err
	}
	h.a.logRuleError(err)
	if h.a.opts.toolCaller == nil {
		return nil, fmt.Errorf("no MCP server %q is configured: add it to ptc_servers in .freeact/agent.json", server)
	}
	// The server's progress and log lines show on the cell's card.
	progress := mcpglue.NewProgressThrottle(c.emit, Meta{AgentID: h.a.id, CorrelationID: c.corr})
	defer progress.Stop()
	res, err := h.a.opts.toolCaller.CallTool(mcp.WithNotify(ctx, progress.Note), server, tool, args)
	h.a.afterCallFromCode(ctx, c.emit, c.corr, server, tool, call.Args, res, err)
	return res, err
}

// Input passes the cell's input() to the front end and waits for the reply.
func (h *host) Input(ctx context.Context, prompt string, password bool) (string, error) {
	c, err := h.current(ctx)
	if err != nil {
		return "", err
	}
	req := event.NewInputRequest(Meta{AgentID: h.a.id, CorrelationID: c.corr}, prompt, password)
	c.emit(req)
	select {
	case s := <-req.Answered():
		return s, nil
	case <-ctx.Done():
		req.Reply("")
		return "", ctx.Err()
	case <-c.ctx.Done():
		req.Reply("")
		return "", c.ctx.Err()
	}
}
