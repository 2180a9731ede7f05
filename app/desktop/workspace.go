package desktop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/freeact/desktop/agent/mcpglue"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/permission"
	"github.com/freeact/desktop/agent/session"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/kernel"
)

// Kernel states the status line shows.
const (
	KernelStarting = "starting"
	KernelReady    = "ready"
	KernelBusy     = "busy"
	KernelError    = "error"
	KernelStopped  = "stopped"
	// KernelDied: the kernel process died during the turn; the next code
	// action starts a fresh one.
	KernelDied = "died"
)

// msgRestartedAfterDeath is the ready status after a turn in which the
// kernel died.
const msgRestartedAfterDeath = "The kernel died and was replaced: variables and imports were lost"

// KernelStatus is the payload of EventKernel.
type KernelStatus struct {
	State string `json:"state"`
	// Message says what happens (a provisioning step) or what failed.
	Message string `json:"message"`
	// Problem names what failed when State is KernelError: a step of the
	// agent's start (failure.StepPython, StepServer, ...) or "config" for
	// agent.json; Summary says it in plain words and Fix what to do.
	Problem string `json:"problem,omitempty"`
	Summary string `json:"summary,omitempty"`
	Fix     string `json:"fix,omitempty"`
	// Progress is in [0,1] while provisioning, -1 when unknown.
	Progress  float64 `json:"progress"`
	SessionID string  `json:"sessionId"`
	Model     string  `json:"model"`
	// starting is set on the statuses of a conversation starting whose id
	// is not known yet (a new one): they carry no session id, never the
	// one of the conversation left.
	starting bool
	// Sandboxed is set while the kernel runs in the sandbox.
	Sandboxed bool `json:"sandboxed"`
	// RemoteHost is the host (and port) of the Jupyter server or Hub
	// jupyter_url names, where code runs; "" when it runs on this machine.
	RemoteHost string `json:"remoteHost,omitempty"`
	// ReplayCells is, when the kernel lost its state (a resumed session,
	// a death, a restart), how many of the session's cells Replay would
	// run again to restore it; 0 when there is nothing to offer.
	ReplayCells int `json:"replayCells"`
	// ReplayCode is the code of those cells, in order, for the offer to
	// list; Changed marks one whose record the session file no longer
	// holds as the app wrote it (edited outside the app).
	ReplayCode []ReplayCell `json:"replayCode"`
	// ReplayReason says why the state was lost: resumed, died or
	// restarted.
	ReplayReason string `json:"replayReason"`
	// MCPFailures are the MCP servers that did not start with the agent.
	MCPFailures []mcpglue.MCPFailure `json:"mcpFailures"`
	// Interrupted is a revert a freeact process that died left cut short,
	// for the window to offer FinishRevert or RollbackRevert; nil when
	// there is none.
	Interrupted *InterruptedRevert `json:"interrupted,omitempty"`
	// BusyPID is, when Problem is "busy", the process that has the
	// conversation open (0 when unknown): ForkBusySession continues it in
	// a copy.
	BusyPID int `json:"busyPid,omitempty"`
}

// InterruptedRevert is a revert cut short (KernelStatus.Interrupted).
type InterruptedRevert struct {
	Label string `json:"label"`
	Files int    `json:"files"`
	Time  string `json:"time"` // RFC 3339
}

// ReplayCell is a cell a replay would run (KernelStatus.ReplayCode).
type ReplayCell struct {
	Code    string `json:"code"`
	Changed bool   `json:"changed"`
}

// WorkspaceInfo is what the header shows about the open workspace.
type WorkspaceInfo struct {
	Path string `json:"path"` // absolute path; empty when none is open
	Name string `json:"name"` // the folder's base name
	// Created is true when opening it created .freeact/.
	Created  bool         `json:"created"`
	Warnings []string     `json:"warnings"`
	Model    string       `json:"model"`
	Kernel   KernelStatus `json:"kernel"`
}

// workspace is an open workspace: its configuration, permissions, and the
// agent over it (started in the background).
type workspace struct {
	dir  string
	open *agent.Workspace
	cfg  *config.Config // the configuration the agent runs with
	d    *Desktop

	// settingsChanged is set when agent.json was saved from the settings
	// panel; the next Send hands the new settings to the agent.
	settingsChanged atomic.Bool

	mu    sync.Mutex
	agent *agent.Agent // nil until started
	// session is the conversation the window shows: the agent's session
	// once it runs, the one asked for while it starts or after a failed
	// start, so that a retry or applied settings carry on with it.
	session string
	status  KernelStatus
	gen     int // start generation: a stale start is stopped
	cancel  context.CancelFunc
	// starting counts agent starts in flight; close waits for them, so no
	// kernel a start was bringing up outlives the workspace.
	starting sync.WaitGroup
	turn     *turn // the running turn, if any
	nextReq  int
	pending  map[string]any // *agent.ApprovalRequest, *agent.InputRequest or *agent.BudgetRequest
	// queuedPrompt is sent when the next agent is ready (an edited prompt
	// a fork was made for).
	queuedPrompt string
	// notebook is opened by the next session that starts (OpenNotebook).
	notebook string
	// shown is the session whose history show sent from its file; once
	// its agent has started, the history is sent again with what only
	// the agent knows (compactions, file changes, costs).
	shown string
	// modes are the conversations' approval modes (automode.go).
	modes approvalModes
	// interrupted is the revert cut short that the window offers to
	// finish or roll back (recovery.go); nil when there is none.
	interrupted *InterruptedRevert
	events      chan queued
	closed      bool
	// sendMu orders pushes before the close of events.
	sendMu   sync.RWMutex
	statusMu sync.Mutex
	// lv is its part among the live conversations (live.go).
	lv liveState
}

// Workspace returns the open workspace, or an empty one.
func (d *Desktop) Workspace() WorkspaceInfo {
	ws, err := d.current()
	if err != nil {
		return WorkspaceInfo{Kernel: KernelStatus{State: KernelStopped, MCPFailures: []mcpglue.MCPFailure{}}}
	}
	return ws.info(false)
}

func (ws *workspace) info(created bool) WorkspaceInfo {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	w := WorkspaceInfo{Path: ws.dir, Name: filepath.Base(ws.dir), Created: created, Model: ws.cfg.Options.Model, Kernel: ws.status}
	for _, warn := range ws.cfg.Warnings {
		w.Warnings = append(w.Warnings, warn.String())
	}
	return w
}

// RecentWorkspaces lists the workspaces opened before, most recent first,
// leaving out folders that no longer exist.
func (d *Desktop) RecentWorkspaces() ([]string, error) {
	s, err := d.store.Settings()
	if err != nil {
		return nil, fmt.Errorf("read recent workspaces: %w", err)
	}
	out := []string{}
	for _, p := range s.RecentWorkspaces {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			out = append(out, p)
		}
	}
	return out, nil
}

// PickWorkspace opens the native folder dialog, in the user's documents
// folder when there is one; "" means it was cancelled.
func (d *Desktop) PickWorkspace() (string, error) {
	start := d.build.Dirs.Documents
	if st, err := os.Stat(start); start != "" && (err != nil || !st.IsDir()) {
		start = ""
	}
	p, err := d.host.pickDirectory("Open a workspace folder", start)
	if err != nil {
		return "", fmt.Errorf("folder dialog: %w", err)
	}
	return p, nil
}

// OpenWorkspace opens the folder at path as the workspace: it creates
// .freeact/ when missing, loads the configuration and starts the agent and
// its kernel in the background (EventKernel reports the progress). A
// sessionID resumes that session; "" starts a new one.
func (d *Desktop) OpenWorkspace(path, sessionID string) (WorkspaceInfo, error) {
	if path == "" {
		return WorkspaceInfo{}, errors.New("no folder given: choose a workspace folder")
	}
	open, err := adapter.OpenWorkspace(path, d.store, d.build.Dirs, d.log)
	if err != nil {
		return WorkspaceInfo{}, err
	}
	dir := open.Dir
	if err := d.store.Update(func(s *config.AppSettings) { s.AddRecent(dir) }); err != nil {
		d.log.Warn("save recent workspaces", "err", err)
	}
	if w := d.liveFind(sessionID); w != nil && w.dir == dir {
		// It runs already: show it as it is.
		d.bringIntoView(w)
		return w.info(false), nil
	}
	ws := &workspace{dir: dir, open: open, cfg: open.Config, d: d, pending: map[string]any{}, events: make(chan queued, 256)}
	go pump(ws.events, flushInterval, ws.deliver)

	d.enterView(ws)
	// Before the agent's events, so a page that did not open it (another
	// window, a reload) knows what they belong to.
	d.send(EventWorkspace, ws.info(open.Created))
	ws.show(sessionID)
	ws.start(sessionID)
	d.setTitle(filepath.Base(dir))
	d.enforceLimit()
	d.publishLive()
	return ws.info(open.Created), nil
}

// setStatus records and emits the kernel status.
func (ws *workspace) setStatus(s KernelStatus) {
	ws.updateStatus(func(KernelStatus) (KernelStatus, bool) { return s, true })
}

// updateStatus records and emits the status next makes of the last one,
// unless next declines.
func (ws *workspace) updateStatus(next func(last KernelStatus) (KernelStatus, bool)) {
	// statusMu keeps the statuses sent in the order they were recorded,
	// without holding mu while the window is notified.
	ws.statusMu.Lock()
	ws.mu.Lock()
	was := ws.status.State
	s, ok := next(ws.status)
	if ws.closed || !ok {
		ws.mu.Unlock()
		ws.statusMu.Unlock()
		return
	}
	s.Model = ws.cfg.Options.Model
	s.Interrupted = ws.interrupted
	s.Sandboxed = ws.agent != nil && ws.agent.Sandboxed()
	s.RemoteHost = remoteHost(ws.cfg.Options.JupyterURL)
	s.MCPFailures = []mcpglue.MCPFailure{}
	if ws.agent != nil {
		s.MCPFailures = append(s.MCPFailures, ws.agent.MCPFailures()...)
	}
	if ws.agent != nil && s.SessionID == "" && !s.starting {
		s.SessionID = ws.agent.SessionID()
	}
	// The offer is the agent's now, not the last status's: a status sent
	// again (after a recovery) would otherwise list its cells twice.
	s.ReplayCells, s.ReplayReason, s.ReplayCode = 0, "", nil
	if ws.agent != nil && s.State == KernelReady {
		if offer, ok := ws.agent.ReplayOffer(); ok {
			s.ReplayCells, s.ReplayReason = len(offer.Cells), offer.Reason
			for _, c := range offer.Cells {
				s.ReplayCode = append(s.ReplayCode, ReplayCell{Code: c.Code, Changed: c.Changed})
			}
		}
	}
	ws.status = s
	ws.mu.Unlock()
	// A conversation not in view keeps its status for when it comes back.
	ws.d.viewMu.Lock()
	if ws.d.inView(ws) {
		ws.d.send(EventKernel, s)
	}
	ws.d.viewMu.Unlock()
	ws.statusMu.Unlock()
	if s.State != was {
		ws.changed()
	}
}

// recover tells the window what a freeact process that died left of the
// workspace's checkpoints: actions recorded late, a revert cut short.
func (ws *workspace) recover(ctx context.Context, a *agent.Agent) {
	evs, in, err := a.Recover(ctx)
	for _, ev := range evs {
		ws.push(queued{ev: ev})
	}
	if err != nil {
		ws.push(queued{ev: &agent.Notice{Meta: agent.Meta{AgentID: agent.MainAgent}, Text: "Checkpoints: " + err.Error()}})
	}
	ws.setInterrupted(in)
}

// show empties the conversation in the window and, for a saved session,
// sends its history, read from the session file: the conversation shows
// at once, before the agent has started.
func (ws *workspace) show(sessionID string) {
	ws.push(queued{raw: resetEvent})
	if sessionID == "" || !adapter.SessionExists(ws.cfg, sessionID) {
		return
	}
	st, err := session.Open[model.Message](ws.cfg.SessionsDir(), sessionID)
	if err == nil {
		var hist []model.Message
		if hist, err = st.Load(agent.MainAgent); err == nil {
			for _, ev := range historyEvents(hist, extrasOf(ws.cfg)) {
				ws.push(queued{raw: ev})
			}
			ws.mu.Lock()
			ws.shown = sessionID
			ws.mu.Unlock()
		}
		_ = st.Close()
	}
	if err != nil {
		ws.d.log.Warn("show session history", "session", sessionID, "err", err)
	}
}

// startFailed reports a failed start with what failed and how to fix it.
func (ws *workspace) startFailed(err error) {
	st := KernelStatus{State: KernelError, Message: err.Error(), Progress: -1}
	var se *agent.StartError
	if pid, busy := adapter.BusySession(err); busy {
		st.Problem, st.BusyPID = "busy", pid
		st.Summary = "This conversation is open in another freeact window" + adapter.PIDText(pid) + "."
		st.Fix = "Fork it to continue in a copy here, or close it there and retry."
	} else if errors.As(err, &se) {
		st.Problem, st.Summary, st.Fix = se.Step, se.Summary(), se.Fix()
	} else {
		st.Problem = "config"
		st.Summary = "The workspace's settings could not be read."
		st.Fix = "Fix .freeact/agent.json (or .env) as the message says, then retry."
	}
	ws.setStatus(st)
}

// start creates and starts the agent over the conversation sessionID ("":
// a new one) in the background.
func (ws *workspace) start(sessionID string) {
	ws.mu.Lock()
	ws.gen++
	gen := ws.gen
	ws.session = sessionID
	ctx, cancel := context.WithCancel(ws.d.host.context())
	ws.cancel = cancel
	ws.mu.Unlock()
	ws.announceStart(sessionID)
	ws.starting.Add(1)
	go func() {
		defer ws.starting.Done()
		u := ws.d.mcpUser()
		// A session with nothing written yet (restarted before its first
		// turn) cannot be resumed: the restart starts a new one. The
		// window asks for a missing key itself: no CheckModel.
		a, err := adapter.StartAgent(ctx, adapter.AgentSpec{
			Workspace: ws.open, Config: ws.cfg, SessionID: sessionID, NewIfUnsaved: true,
			Progress: func(p kernel.Progress) {
				ws.setStatus(KernelStatus{State: KernelStarting, Message: adapter.ProgressText(p), Progress: p.Fraction,
					SessionID: sessionID, starting: sessionID == ""})
			},
			SignIn: mcp.SignInOptions{Browser: u.browser}, Forms: u.formsFor(ws),
			Options: []agent.Option{ws.d.hookOption()},
		})
		ws.mu.Lock()
		stale := ws.gen != gen || ws.closed
		if !stale && err == nil {
			ws.modes.apply(a)
			ws.agent = a
			ws.session = a.SessionID()
		}
		ws.mu.Unlock()
		if stale {
			if err == nil {
				_ = a.Stop()
			}
			return
		}
		if err != nil {
			ws.startFailed(err)
			return
		}
		ws.mu.Lock()
		full := ws.shown != "" && ws.shown == a.SessionID()
		ws.shown = ""
		ws.mu.Unlock()
		switch {
		case full:
			// The history show sent, now with what only the agent knows.
			// Applied settings and retries carry on without this: the
			// window already shows the conversation.
			ws.push(queued{raw: resetEvent})
			for _, ev := range agentHistory(a, ws.cfg) {
				ws.push(queued{raw: ev})
			}
		case sessionID == "":
			ws.push(queued{ev: a.SessionUsage()})
		}
		if nb := ws.takeNotebook(); nb != "" {
			if err := ws.openNotebook(a, nb); err != nil {
				ws.push(queued{raw: adapter.MustJSON(map[string]string{"type": "Failed", "agent_id": agent.MainAgent, "error": err.Error()})})
			}
		}
		ws.recover(ctx, a)
		ws.d.sharedFolderNotice(ws)
		ws.d.rememberSession(ws.dir, a.SessionID())
		ws.setStatus(KernelStatus{State: KernelReady, Message: "Kernel ready", Progress: 1, SessionID: a.SessionID()})
		ws.sendQueued()
	}()
}

// announceStart tells the window that the agent of sessionID is starting.
func (ws *workspace) announceStart(sessionID string) {
	ws.setStatus(KernelStatus{State: KernelStarting, Message: "Starting the kernel…", Progress: -1, SessionID: sessionID, starting: sessionID == ""})
}

// restart stops the agent and starts a new one on sessionID. The window
// hears "starting" at once: the old agent takes a moment to stop and takes
// no turns meanwhile.
func (ws *workspace) restart(sessionID string) {
	ws.announceStart(sessionID)
	ws.mu.Lock()
	a := ws.agent
	ws.agent = nil
	if ws.cancel != nil {
		ws.cancel()
	}
	ws.mu.Unlock()
	if a != nil {
		if err := a.Stop(); err != nil {
			ws.d.log.Warn("stop agent", "err", err)
		}
	}
	ws.start(sessionID)
}

// push queues an event for the window unless the workspace closed.
func (ws *workspace) push(q queued) {
	ws.sendMu.RLock()
	defer ws.sendMu.RUnlock()
	ws.mu.Lock()
	closed := ws.closed
	ws.mu.Unlock()
	if !closed {
		ws.events <- q
	}
}

// close stops the agent; the workspace is not used again.
func (ws *workspace) close() {
	ws.mu.Lock()
	if ws.closed {
		ws.mu.Unlock()
		return
	}
	ws.closed = true
	a := ws.agent
	ws.agent = nil
	if ws.cancel != nil {
		ws.cancel()
	}
	t := ws.turn
	ws.mu.Unlock()
	if a != nil {
		a.Cancel()
	}
	// A call waiting on a form of this conversation ends only once the
	// form is answered (the server's request outlives the call's
	// context): cancel them, or the turn never ends.
	ws.d.mcpUser().cancelForms(ws)
	if t != nil {
		<-t.done
	}
	// A start in flight sees the workspace closed and stops its agent.
	ws.starting.Wait()
	if a != nil {
		if err := a.Stop(); err != nil {
			ws.d.log.Warn("stop agent", "err", err)
		}
	}
	ws.sendMu.Lock()
	close(ws.events)
	ws.sendMu.Unlock()
}

// RetryKernel starts the agent again after a failed start, on the same
// conversation.
func (d *Desktop) RetryKernel() error {
	return d.restartAgent("a turn is running: stop it first")
}

// ApplySettings restarts the agent with the workspace's current settings
// (agent.json, .env, skills, AGENTS.md) on the same conversation: the
// window keeps showing it and the agent takes it up again, the kernel's
// state is lost. When the new settings fail, the conversation stays, and
// Retry (after a fix) carries on with it.
func (d *Desktop) ApplySettings() error {
	return d.restartAgent("a turn is running: stop it before applying settings")
}

// idle returns the open workspace when no turn runs there; busy is the
// error while one does.
func (d *Desktop) idle(busy string) (*workspace, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	ws.mu.Lock()
	running := ws.turn != nil
	ws.mu.Unlock()
	if running {
		return nil, errors.New(busy)
	}
	return ws, nil
}

// restartAgent reloads the settings and restarts the agent on the open
// conversation; busy is the error while a turn runs.
func (d *Desktop) restartAgent(busy string) error {
	ws, err := d.idle(busy)
	if err != nil {
		return err
	}
	cfg, err := ws.open.Load()
	if err != nil {
		ws.startFailed(err)
		return err
	}
	ws.mu.Lock()
	ws.cfg = cfg
	sid := ws.session
	ws.mu.Unlock()
	ws.settingsChanged.Store(false)
	ws.restart(sid)
	return nil
}

// RestartKernel restarts the running kernel: variables are lost, the
// conversation is kept.
func (d *Desktop) RestartKernel() error {
	ws, err := d.current()
	if err != nil {
		return err
	}
	ws.mu.Lock()
	a, busy := ws.agent, ws.turn != nil
	ws.mu.Unlock()
	if busy {
		return errors.New("a turn is running: stop it before restarting the kernel")
	}
	if a == nil || a.Kernel() == nil {
		return d.RetryKernel()
	}
	ws.setStatus(KernelStatus{State: KernelStarting, Message: "Restarting the kernel…", Progress: -1})
	note, err := a.RestartKernel(ws.d.host.context())
	if err != nil {
		ws.setStatus(KernelStatus{State: KernelError, Message: err.Error(), Progress: -1})
		return err
	}
	ws.push(queued{ev: note})
	ws.setStatus(KernelStatus{State: KernelReady, Message: "Kernel restarted", Progress: 1})
	return nil
}

// NewSession starts a new conversation in the open workspace.
func (d *Desktop) NewSession() error {
	return d.switchSession("")
}

// ResumeSession loads a saved session; its history is sent as events.
func (d *Desktop) ResumeSession(id string) error {
	if id == "" {
		return errors.New("no session given")
	}
	return d.switchSession(id)
}

// switchSession shows the conversation id ("": a new one). One that
// runs already comes into view as it is; the one left keeps running
// (live.go).
func (d *Desktop) switchSession(id string) error {
	cur, err := d.current()
	if err != nil {
		return err
	}
	if w := d.liveFind(id); w == cur {
		// The one in view: read again from its file, on a new agent.
		if _, err := d.idle("a turn is running: stop it before reloading this conversation"); err != nil {
			return err
		}
		cur.announceStart(id)
		cur.show(id)
		cur.restart(id)
		return nil
	} else if w != nil {
		d.bringIntoView(w)
		return nil
	}
	ws := d.newConversation(cur)
	// The status first: the window must not take the emptied conversation
	// for a ready one.
	d.enterView(ws)
	ws.announceStart(id)
	ws.show(id)
	ws.start(id)
	d.enforceLimit()
	d.publishLive()
	return nil
}

// grants returns the grants of the running agent's conversation.
func (ws *workspace) grants() []permission.Rule {
	ws.mu.Lock()
	a := ws.agent
	ws.mu.Unlock()
	out := []permission.Rule{}
	if a != nil {
		out = append(out, a.Grants()...)
	}
	return out
}

// requestID registers a request the frontend answers later.
func (ws *workspace) requestID(req any) string {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.nextReq++
	id := "r" + strconv.Itoa(ws.nextReq)
	ws.pending[id] = req
	return id
}

// dropPending forgets the pending requests over says yes to: nothing
// waits for their answer any more.
func (ws *workspace) dropPending(over func(req any) bool) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for id, r := range ws.pending {
		if over(r) {
			delete(ws.pending, id)
		}
	}
}

// take removes and returns a pending request.
func (ws *workspace) take(id string) (any, bool) {
	ws.mu.Lock()
	r, ok := ws.pending[id]
	delete(ws.pending, id)
	ws.mu.Unlock()
	if ok {
		ws.lv.mu.Lock()
		ws.lv.transcript = append(ws.lv.transcript, []json.RawMessage{answeredEvent(id, "")})
		ws.lv.mu.Unlock()
		go ws.changed()
	}
	return r, ok
}

// takeRequest removes the pending request id of the open workspace and
// returns it as a T; kind names a T in the errors ("input request").
func takeRequest[T any](d *Desktop, id, kind string) (T, error) {
	var none T
	ws, err := d.current()
	if err != nil {
		return none, err
	}
	r, ok := ws.take(id)
	if !ok {
		return none, fmt.Errorf("%s %s is no longer pending (the turn ended or it was answered)", kind, id)
	}
	req, ok := r.(T)
	if !ok {
		return none, fmt.Errorf("request %s is no %s", id, kind)
	}
	return req, nil
}

// reconfigure hands agent.json as saved to the running agent (between
// turns). What needs a kernel restart keeps its running value until Apply.
func (ws *workspace) reconfigure(ctx context.Context, a *agent.Agent) error {
	cfg, err := ws.open.Load()
	if err != nil {
		return err
	}
	if _, err := a.Reconfigure(ctx, cfg); err != nil {
		return err
	}
	ws.mu.Lock()
	ws.cfg = cfg
	ws.mu.Unlock()
	return nil
}

// PendingRestart lists the saved agent.json keys that the running agent
// cannot take over: they apply when the kernel restarts (Apply now).
func (d *Desktop) PendingRestart() ([]string, error) {
	ws, err := d.current()
	if err != nil {
		return nil, err
	}
	cfg, err := ws.open.Load()
	if err != nil {
		return nil, err
	}
	ws.mu.Lock()
	a, started := ws.agent, ws.cfg
	ws.mu.Unlock()
	var keys []string
	switch {
	case a != nil:
		keys = a.RestartNeeded(cfg.Options)
	case started != nil:
		// No agent runs: its start failed (the sandbox could not be set
		// up) or is under way, with the settings it was given; a key
		// saved since needs Apply (or Retry) as much as a running one.
		keys = config.RestartDiff(started.Options, cfg.Options)
	}
	if keys == nil {
		keys = []string{}
	}
	return keys, nil
}

// remoteHost is the host (and port) of jupyter_url, never its path,
// query or user information (where a token could be); "" when unset.
func remoteHost(jupyterURL *string) string {
	if jupyterURL == nil || *jupyterURL == "" {
		return ""
	}
	u, err := url.Parse(*jupyterURL)
	if err != nil || u.Host == "" {
		return "a Jupyter server"
	}
	return u.Host
}
