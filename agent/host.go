package agent

import (
	"context"
	"encoding/json"
	"time"

	"github.com/freeact/desktop/agent/approval"
	"github.com/freeact/desktop/agent/kernelhost"
	"github.com/freeact/desktop/agent/mcp"
)

// hostAgent is the agent as its kernel's host (agent/kernelhost) sees it.
type hostAgent struct{ *Agent }

func (a hostAgent) LocalDir(dir string) string { return a.remote.LocalDir(dir, a.cfg.Dir) }
func (a hostAgent) CalledFromCode(ctx context.Context, emit func(Event), corr, server, tool string, args, res json.RawMessage, err error) {
	a.hooks.AfterCallFromCode(ctx, emit, corr, server, tool, args, res, err)
}
func (a hostAgent) GuardShell(emit func(Event), corr, command string) {
	a.guardShell(emit, corr, command)
}
func (a hostAgent) Approvals() *approval.Approver     { return &a.approvals }
func (a hostAgent) ApprovalTimeout() time.Duration    { return a.approvalTimeout }
func (a hostAgent) LogRuleError(err error)            { a.logRuleError(err) }
func (a hostAgent) ToolCaller() kernelhost.ToolCaller { return a.opts.toolCaller }
func (a hostAgent) PTCHints(ctx context.Context, server, tool string) *mcp.Hints {
	return a.mcp.PTCHints(ctx, server, tool)
}
