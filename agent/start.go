package agent

import (
	"context"
	"errors"
	"fmt"
	"github.com/freeact/desktop/agent/cells"
	"github.com/freeact/desktop/agent/failure"
	"github.com/freeact/desktop/agent/hooks"
	"github.com/freeact/desktop/agent/kernelserver"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freeact/desktop/agent/approval"
	"github.com/freeact/desktop/agent/ckpt"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/files"
	"github.com/freeact/desktop/agent/gate"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/kernelhost"
	"github.com/freeact/desktop/agent/longsession"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/provider"
	"github.com/freeact/desktop/agent/modelopen"
	"github.com/freeact/desktop/agent/permission"
	"github.com/freeact/desktop/agent/protect"
	"github.com/freeact/desktop/agent/sandboxcfg"
	"github.com/freeact/desktop/agent/seal"
	"github.com/freeact/desktop/agent/session"
	"github.com/freeact/desktop/internal/appdirs"
	"github.com/freeact/desktop/kernel"
)

// New prepares an agent for the loaded workspace cfg. Nothing is started:
// Start opens the model, the kernel and the session.
func New(cfg *config.Config, opts ...Option) (*Agent, error) {
	if cfg == nil {
		return nil, errors.New("agent: no workspace configuration")
	}
	o := options{maxTurns: DefaultMaxTurns}
	for _, opt := range opts {
		opt(&o)
	}
	if o.log == nil {
		o.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.sessionID != "" && !cfg.Options.EnablePersistence {
		return nil, fmt.Errorf("session %q cannot be resumed: enable_persistence is false in %s", o.sessionID, cfg.SettingsFile())
	}
	ws, err := files.NewWorkspace(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	if o.fileBackend != nil {
		ws = files.NewWorkspaceOn(ws.Root(), o.fileBackend(ws.FS()))
	}
	if o.dirs.Data == "" {
		o.dirs = appdirs.FromXDG()
	}
	root := o.checkpointRoot
	if root == "" {
		root = o.dirs.Checkpoints()
	}
	if o.keyDir == "" {
		o.keyDir = o.dirs.Config
	}
	// Sandboxed code must not read the key and sign records itself.
	o.hidden = append(o.hidden, filepath.Join(o.keyDir, seal.Folder))
	key, err := seal.Load(o.keyDir, cfg.Dir)
	if err != nil {
		// Nothing is trusted then: every replay shows its code first.
		o.log.Warn("records of code that ran cannot be sealed", "err", err)
	}
	a := &Agent{id: MainAgent, cfg: cfg, opts: o, ws: ws, costs: &longsession.Costs{}, ckpt: ckpt.New(root, cfg.Dir), seal: key}
	var conv *permission.Conversation
	if o.perm != nil {
		conv = o.perm.NewConversation()
	}
	a.approvals = approval.Approver{Perm: conv, SkipAll: o.skipPerms, AgentID: a.id, Began: new(sync.Map)}
	a.hooks = gate.Wire(gateAgent{a}, o.hooks, &a.approvals)
	a.approvals.State = gate.AutoState(gateAgent{a}, o.approvalMode)
	sandboxcfg.ProtectConfig(o.perm, cfg)
	if o.perm != nil && !o.skipPerms {
		a.guard = protect.New(o.perm.ProtectedFiles()...)
		a.approvals.ProtectedYes = new(atomic.Int64)
		file := o.perm.File()
		a.approvals.Saved = func() {
			a.guard.Accept(file)
			a.ckpt.WroteOwn(ckptAgent{a}, cfg.Dir, file)
		}
	}
	if t := cfg.Options.ApprovalTimeout; t != nil {
		a.approvalTimeout = time.Duration(*t * float64(time.Second))
	}
	if cfg.Options.MaxSubagents > 0 {
		a.subagents = make(chan struct{}, cfg.Options.MaxSubagents)
	}
	return a, nil
}

// Start opens the model, the session (loading its history when it exists)
// and the kernel. It is safe to call Stop after a failed Start.
func (a *Agent) Start(ctx context.Context) error {
	a.mu.Lock()
	if a.started {
		a.mu.Unlock()
		return errors.New("agent: already started")
	}
	a.started = true
	a.mu.Unlock()

	system, err := a.systemPrompt(a.cfg)
	if err != nil {
		return &StartError{Step: failure.StepPrompt, Err: fmt.Errorf("render system prompt: %w", err)}
	}
	a.system = system
	a.startMCP(ctx, nil)
	a.tools = a.toolDeclarations()
	if a.model == nil {
		a.model = a.opts.model
	}
	if a.model == nil {
		// A missing API key does not stop the start: the kernel is ready,
		// each turn fails with it until the key is set (Reconfigure).
		m, err := modelopen.Open(ctx, a.cfg)
		var missing *MissingKeyError
		switch {
		case errors.As(err, &missing):
			a.modelErr = err
		case err != nil:
			return &StartError{Step: failure.StepModel, Err: err}
		default:
			a.model = m
		}
	}
	a.acceptMedia()
	if a.opts.model == nil && a.model != nil {
		longsession.AskWindow(ctx, longAgent{a}, a.opts.log, func() (model.Spec, provider.Options, error) { return modelopen.Options(a.cfg) })
	}
	if err := a.openSession(); err != nil {
		return &StartError{Step: failure.StepSession, Err: err}
	}
	if a.opts.sessionID == "" {
		longsession.UpdateContext(longAgent{a}, longAgent{a}.RequestSize(nil))
	}
	if err := a.startServer(ctx); err != nil {
		return err
	}
	if err := a.startKernel(ctx); err != nil {
		return &StartError{Step: failure.StepKernel, Err: err}
	}
	if err := a.openRemote(ctx); err != nil {
		return &StartError{Step: failure.StepServer, Err: err}
	}
	a.hooks.Session(ctx, hooks.SessionStart, "")
	return nil
}

// acceptMedia lets filesystem_read_media_file pass the media the model reads
// (PDFs, audio, video) besides images.
func (a *Agent) acceptMedia() {
	m := a.model
	a.ws.AcceptMedia = func(mimeType string) bool { return m != nil && model.AcceptsMedia(m, mimeType) }
}

func (a *Agent) openSession() error {
	if !a.cfg.Options.EnablePersistence {
		return nil
	}
	id := a.opts.sessionID
	if id == "" {
		id = session.NewID()
	}
	st, err := session.Open(a.cfg.SessionsDir(), id, history.SessionFormat)
	if err != nil {
		return fmt.Errorf("open session: %w", err)
	}
	// One writer a session: a second process would interleave its turns
	// with ours in the same file.
	if err := st.Lock(a.opts.dirs.Locks()); err != nil {
		return err
	}
	a.store, a.ownStore = st, true
	a.offloader = &session.Offloader{
		Dir: st.ResultsDir(), Workspace: a.cfg.Dir,
		MaxInlineBytes: a.cfg.Options.ToolResultInlineMaxBytes, PreviewChars: a.cfg.Options.ToolResultPreviewChars,
	}
	if a.opts.sessionID == "" {
		return nil
	}
	if !st.Exists() {
		return fmt.Errorf("no session %q in %s: check the id, or start a new session without one", id, a.cfg.SessionsDir())
	}
	l, err := longsession.Load(st, a.id, a.opts.log)
	a.repairs, a.history = l.Repairs, l.History
	a.long.Cuts, a.long.Failed, a.long.Synthetic = l.Cuts, l.Failed, l.Synthetic
	if err != nil {
		return err
	}
	a.kstate.Lose(cells.LostResumed) // a resumed session has a fresh kernel
	la := longAgent{a}
	if err := longsession.LoadCosts(la, a.History()); err != nil {
		return fmt.Errorf("resume session %s: %w", id, err)
	}
	longsession.UpdateContext(la, la.RequestSize(longsession.ViewOf(la)))
	return nil
}

// startServer settles where code actions run (kernelserver.Settle).
func (a *Agent) startServer(ctx context.Context) error {
	p, err := kernelserver.Settle(ctx, kernelserver.Options{
		Config: a.cfg, Given: a.opts.executors, Dirs: a.opts.dirs, KernelDir: a.opts.kernelDir,
		Hidden:      append(slices.Clone(a.opts.hidden), a.ckpt.Root()),
		NoProvision: a.opts.noProvision, Progress: a.opts.progress, Log: a.opts.log,
	})
	a.server, a.executors, a.remote = p.Server, p.Executors, p.Remote
	return err
}

func (a *Agent) startKernel(ctx context.Context) error {
	o := a.cfg.Options
	var timeout time.Duration
	if o.ExecutionTimeout != nil {
		timeout = time.Duration(*o.ExecutionTimeout * float64(time.Second))
	}
	a.host = kernelhost.New(hostAgent{a})
	kopts := kernel.KernelOptions{
		Workspace: a.cfg.Dir, ImagesDir: a.cfg.ImagesDir(), Host: a.host,
		ExecutionTimeout: timeout, Env: o.KernelEnv, PythonPath: []string{a.cfg.GeneratedDir()},
	}
	a.remote.KernelOptions(a.cfg, &kopts)
	k, err := a.executors.StartExecutor(ctx, kopts)
	if err != nil {
		return fmt.Errorf("start kernel: %w", err)
	}
	a.kern = k
	return nil
}

// Stop cancels a running turn and releases the kernel, a server the agent
// started and the session files. No process started by the agent outlives it.
func (a *Agent) Stop() error {
	a.mu.Lock()
	if a.stopped {
		a.mu.Unlock()
		return nil
	}
	a.stopped = true
	if a.cancel != nil {
		a.cancel(ErrCancelled)
	}
	a.mu.Unlock()
	// Let a cancelled turn wind down (its cell is interrupted, its approvals
	// rejected) before the kernel and the session close under it.
	waited := make(chan struct{})
	go func() { a.turns.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		a.opts.log.Warn("the running turn did not end within 10 s of Stop")
	}
	if a.kern != nil {
		a.hooks.Session(context.Background(), hooks.SessionEnd, "")
	}
	var errs []error
	if a.kern != nil {
		if err := a.kern.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close kernel: %w", err))
		}
	}
	if err := a.mcp.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close MCP servers: %w", err))
	}
	if a.server != nil {
		if err := a.server.Close(); err != nil {
			errs = append(errs, fmt.Errorf("stop Jupyter server: %w", err))
		}
	}
	if a.ownStore && a.store != nil {
		if err := a.store.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close session: %w", err))
		}
	}
	if err := a.ckpt.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close checkpoints: %w", err))
	}
	return errors.Join(errs...)
}
