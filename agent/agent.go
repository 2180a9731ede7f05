package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"github.com/freeact/desktop/agent/approval"
	"github.com/freeact/desktop/agent/cells"
	"github.com/freeact/desktop/agent/ckpt"
	"github.com/freeact/desktop/agent/gate"
	"github.com/freeact/desktop/agent/hooks"
	"github.com/freeact/desktop/agent/kernelhost"
	"github.com/freeact/desktop/agent/kernelserver"
	"github.com/freeact/desktop/agent/longsession"
	"github.com/freeact/desktop/agent/remote"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/files"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/mcpglue"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/permission"
	"github.com/freeact/desktop/agent/protect"
	"github.com/freeact/desktop/agent/seal"
	"github.com/freeact/desktop/agent/session"
	"github.com/freeact/desktop/internal/appdirs"
	"github.com/freeact/desktop/kernel"
)

// MainAgent is the id of the agent a front end talks to; subagents are
// "sub-xxxx".
const MainAgent = session.MainAgent

// DefaultMaxTurns bounds the model calls of one turn unless WithMaxTurns
// says otherwise.
const DefaultMaxTurns = 100

// maxParallelCalls bounds the tool calls of one model reply that run at
// once.
const maxParallelCalls = 4

// ErrCancelled is the cause of a turn stopped by Cancel.
var ErrCancelled = errors.New("cancelled by user")

// Option adjusts New.
type Option func(*options)

type options struct {
	model        model.Model
	executors    Executors
	perm         *permission.Manager
	sessionID    string
	skipPerms    bool
	approvalMode approval.Mode // WithApprovalMode (automode.go)
	fileBackend  func(local files.Backend) files.Backend
	toolCaller   ToolCaller
	log          *slog.Logger
	progress     func(kernel.Progress)
	maxTurns     int
	kernelDir    string
	dirs         appdirs.Dirs
	noProvision  bool
	subagentOnly bool // set on subagents: no subagent_task
	// hidden are paths sandboxed code may not read: the app's folder of
	// settings and stored API keys (set by Workspace.StartAgent).
	hidden []string
	// keyDir is the folder of the key that seals records of code that
	// ran (agent/seal); "" is the app's folder.
	keyDir string
	// checkpointRoot holds the checkpoint stores; "" is the app's data
	// folder.
	checkpointRoot string
	// mcpUser is how MCP servers reach the user (WithMCPUser) and how
	// long Start waits for them (WithMCPStartWait).
	mcpUser mcpglue.User
	hooks   *hooks.Runner // WithHooks (hookwire.go)
}

// WithModel uses m instead of opening the model named in agent.json.
func WithModel(m model.Model) Option { return func(o *options) { o.model = m } }

// WithKernelServer runs kernels on srv (a local server the caller started,
// or a remote one) instead of starting a server; Stop leaves it running.
// On a remote server (kernel.ConnectServer) the workspace is there, under
// jupyter_workdir, as with jupyter_url (docs/remote.md).
func WithKernelServer(srv *kernel.Server) Option {
	return func(o *options) { o.executors = kernelserver.Jupyter{Srv: srv} }
}

// WithExecutors runs code actions in executors that x starts, instead of
// kernels on a Jupyter server: nothing is started or provisioned, and no
// Python is needed (tests use agent/agenttest).
func WithExecutors(x Executors) Option { return func(o *options) { o.executors = x } }

// WithPermissions consults m before asking: calls its rules allow run
// without an ApprovalRequest (an AutoApproved event shows them), Always
// answers save rules to it, and Session answers add grants to this agent's
// conversation (see Grants). Without it every call is asked.
func WithPermissions(m *permission.Manager) Option { return func(o *options) { o.perm = m } }

// WithSessionID resumes the session with this id; Start fails when it does
// not exist.
func WithSessionID(id string) Option { return func(o *options) { o.sessionID = id } }

// WithFileBackend puts the file tools (read, write, edit) of a local
// workspace on the Backend wrap returns around the local disk's: an
// editor's buffers (ACP's fs methods). Paths are still resolved and
// checked by the workspace, and a write's checkpoint records the disk
// after it. A remote Jupyter workspace keeps its own.
func WithFileBackend(wrap func(local files.Backend) files.Backend) Option {
	return func(o *options) { o.fileBackend = wrap }
}

// WithSkipPermissions approves every call without asking.
func WithSkipPermissions() Option { return func(o *options) { o.skipPerms = true } }

// ToolCaller runs MCP tools for programmatic calls from code (code mode).
// agent/mcp implements it; without one, calls fail with a clear error.
type ToolCaller = kernelhost.ToolCaller

// WithToolCaller runs programmatic MCP tool calls from code.
func WithToolCaller(tc ToolCaller) Option { return func(o *options) { o.toolCaller = tc } }

// WithMCPUser sets how MCP servers reach the user: signIn for the sign-in
// to OAuth-protected servers (its Browser shows the link: a card in the
// desktop, a printed link in the terminal; nil opens the system browser)
// and elicit for a server's forms (nil: servers are not offered
// elicitation).
func WithMCPUser(signIn mcp.SignInOptions, elicit func(context.Context, mcp.Form) (mcp.Answer, error)) Option {
	return func(o *options) { o.mcpUser.SignIn, o.mcpUser.Elicit = signIn, elicit }
}

// WithLogger logs what the agent does (server output, rules it could not
// save). Default: discard.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithProvisionProgress receives the steps of creating the app's Python
// environment the first time.
func WithProvisionProgress(f func(kernel.Progress)) Option {
	return func(o *options) { o.progress = f }
}

// WithMaxTurns bounds the model calls of each turn.
func WithMaxTurns(n int) Option { return func(o *options) { o.maxTurns = n } }

// WithKernelDir puts the local Jupyter server's state (config, runtime files,
// IPython profile) under dir instead of the XDG state directory, in a
// directory of the agent's own that Stop removes.
func WithKernelDir(dir string) Option { return func(o *options) { o.kernelDir = dir } }

// WithDirs puts the agent's files (the provisioned Python, checkpoints,
// the Jupyter server's runtime files) in the folders d; without it they go
// in the user's (appdirs.FromXDG). WithCheckpointRoot and WithKernelDir
// override a part.
func WithDirs(d appdirs.Dirs) Option { return func(o *options) { o.dirs = d } }

// WithoutProvisioning makes a missing Python environment an error instead of
// creating one with pip.
func WithoutProvisioning() Option { return func(o *options) { o.noProvision = true } }

// Agent is a code-action agent over one workspace. Create it with New, call
// Start, then Stream one turn at a time; Cancel stops the running turn and
// Stop releases the kernel, the server and the session files.
type Agent struct {
	id        string
	cfg       *config.Config
	opts      options
	approvals approval.Approver

	model     model.Model
	modelErr  error // why model is nil: a *MissingKeyError
	ws        *files.Workspace
	store     *session.Store[model.Message] // nil without persistence
	ownStore  bool
	offloader *session.Offloader // nil without persistence
	executors Executors          // start the agent's and its subagents' executors
	server    *kernel.Server     // a Jupyter server the agent started or connected to
	kern      Executor
	host      *kernelhost.Host
	system    string
	tools     []model.Tool
	subagents chan struct{}     // max_subagents slots
	mcp       *mcpglue.Hub      // MCP connections and tool search (mcp.go)
	seal      *seal.Key         // signs the records of code that ran (nil: none can be checked)
	guard     *protect.Guard    // the protected files as last written or approved (nil: none)
	guardYes  atomic.Int64      // approvals.protectedYes when the running cell started
	remote    *remote.Workspace // the workspace on a remote server (remote.go); nil locally
	kstate    cells.State       // whether the kernel lost its state (agent/cells)
	hooks     *gate.Hooks       // the agent's hooks (agent/gate); nil: none

	approvalTimeout time.Duration
	// jsonToolsVersion is the version of the JSON MCP tools in tools
	// (mcpglue.Hub.ToolsVersion); the turn loop declares them again when it moved.
	jsonToolsVersion int

	costs *longsession.Costs // what the session cost; shared with subagents
	ckpt  *ckpt.Shared       // the workspace's checkpoints; shared with subagents
	// repairs are what a crash left torn in the resumed session's files,
	// cut off at start and not yet reported (Recover).
	repairs []session.Repair

	mu      sync.Mutex
	history []model.Message
	// long is what the long session keeps with the history (compactions,
	// the last measure, the results history.AnswerDangling added on resume).
	long    longsession.State
	turn    ckpt.Turn               // the running turn
	cancel  context.CancelCauseFunc // of the running turn
	turns   sync.WaitGroup          // the running turn's goroutine
	started bool
	stopped bool
}

// ID returns the agent's id: "main", or "sub-xxxx" for a subagent.
func (a *Agent) ID() string { return a.id }

// SessionID returns the id of the session the agent writes to, or "" when
// persistence is off.
func (a *Agent) SessionID() string {
	if a.store == nil {
		return ""
	}
	return a.store.ID()
}

// History returns a copy of the conversation so far.
func (a *Agent) History() []model.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]model.Message(nil), a.history...)
}

// Cancel stops the running turn at its next boundary: the stream ends with
// a Cancelled event. It is safe to call from any goroutine, and does nothing
// when no turn runs.
func (a *Agent) Cancel() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancel != nil {
		a.cancel(ErrCancelled)
	}
}

// Kernel returns the agent's executor, its kernel (nil before Start).
func (a *Agent) Kernel() Executor { return a.kern }

// Grants returns the rules Session answers added in this agent's
// conversation (its subagents' included): they allow calls in this
// conversation only, and end with the agent. Nil without permissions.
func (a *Agent) Grants() []permission.Rule {
	if a.approvals.Perm == nil {
		return nil
	}
	return a.approvals.Perm.Grants().Allow
}

// RevokeGrant removes a grant of this conversation: calls it allowed are
// asked again. It reports whether the conversation had it.
func (a *Agent) RevokeGrant(r permission.Rule) bool {
	return a.approvals.Perm != nil && a.approvals.Perm.Revoke(r)
}

func (a *Agent) logRuleError(err error) {
	if err != nil {
		a.opts.log.Warn("permission rule not saved", "err", err)
	}
}

// newSubagentID returns "sub-" and four hex digits.
func newSubagentID() string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return "sub-" + hex.EncodeToString(b[:])
}
