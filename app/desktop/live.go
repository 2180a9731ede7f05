package desktop

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/app/adapter"
)

// Conversations that keep running.
//
// The window shows one conversation (Desktop.ws, "in view"); the others
// the user left keep their agent, kernel and turn (Desktop.others). Each
// conversation records what it sent the window since its last Reset (its
// transcript); a conversation brought back into view sends that again, so
// the window shows it as if it had never left, approvals waiting
// included. Idle ones beyond the kernel limit are shut down (the least
// recently used first) and resume with the replay offer when opened again.

// EventConversations carries the []LiveConversation list each time one
// of them changes state.
const EventConversations = "conversations:state"

// States of a live conversation (LiveConversation.State).
const (
	ConvStarting = "starting"
	ConvRunning  = "running"
	ConvWaiting  = "waiting" // for the user: an approval, an input, a budget
	ConvFinished = "finished"
	ConvFailed   = "failed"
	ConvIdle     = "idle"
)

// DefaultLiveKernels is the limit on live kernels when Settings sets none.
const DefaultLiveKernels = 4

// LiveConversation is the state of a conversation whose agent runs.
type LiveConversation struct {
	SessionID string `json:"sessionId"`
	Workspace string `json:"workspace"` // its folder
	State     string `json:"state"`
	// Waiting counts the requests (approvals, inputs, MCP forms) it
	// waits on.
	Waiting int  `json:"waiting"`
	InView  bool `json:"inView"`
}

// liveState is a conversation's part in the set of live ones.
type liveState struct {
	// mu orders the delivery of its batches with its coming into view.
	mu         sync.Mutex
	transcript [][]json.RawMessage
	used       uint64 // when it last left or entered the view (LRU)
	outcome    string // ConvFinished or ConvFailed: how its last turn ended
	// told is the state the last notification was about.
	told string
}

// deliver records a batch in the transcript and sends it to the window
// when the conversation is in view.
func (ws *workspace) deliver(b []queued) {
	raw, err := encodeBatch(b)
	if err != nil {
		ws.d.log.Warn("encode events", "err", err)
	}
	// viewMu: a batch is recorded and sent, or recorded only, wholly
	// before or after a change of view; it never lands in the window
	// after the replay of the conversation that took the view.
	ws.d.viewMu.Lock()
	defer ws.d.viewMu.Unlock()
	ws.lv.mu.Lock()
	defer ws.lv.mu.Unlock()
	from := 0
	for i, r := range raw {
		if bytes.Equal(r, resetEvent) {
			from = i
			ws.lv.transcript = nil
		}
	}
	ws.lv.transcript = append(ws.lv.transcript, raw[from:])
	if ws.d.inView(ws) {
		ws.d.send(EventAgent, raw)
	}
}

// answeredEvent records in a transcript that the request id was
// answered (with decision, for an approval): the window that shows the
// transcript again does not ask it again. The answer's text (an input,
// maybe a password) is not kept.
func answeredEvent(id, decision string) json.RawMessage {
	return adapter.MustJSON(map[string]string{"type": "Answered", "agent_id": agent.MainAgent, "request_id": id, "decision": decision})
}

// inView reports whether ws is the conversation the window shows.
func (d *Desktop) inView(ws *workspace) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ws == ws
}

// enterView makes target the conversation in view; the one it replaces
// keeps running when worth keeping (a turn, a request, a saved session)
// and is closed otherwise. It reports false when target was in view.
func (d *Desktop) enterView(target *workspace) bool {
	d.viewMu.Lock()
	defer d.viewMu.Unlock()
	return d.enterViewLocked(target)
}

// enterViewLocked is enterView; d.viewMu is held.
func (d *Desktop) enterViewLocked(target *workspace) bool {
	d.mu.Lock()
	old := d.ws
	if old == target {
		d.mu.Unlock()
		return false
	}
	d.ws = target
	d.others = slices.DeleteFunc(d.others, func(w *workspace) bool { return w == target })
	d.tick++
	target.lv.used = d.tick
	keep := old != nil && old.worthKeeping()
	if keep {
		old.lv.used = d.tick
		d.others = append(d.others, old)
	}
	d.mu.Unlock()
	// The window drops the forms of the conversation it leaves; they come
	// back with it (bringIntoView).
	d.mcpUser().left(old)
	if old != nil && !keep {
		go old.close()
	}
	return true
}

// bringIntoView shows the live conversation target in the window as it
// is: its transcript again, its status, its requests waiting.
func (d *Desktop) bringIntoView(target *workspace) {
	// ws.mu is never taken while lv.mu is held: info first.
	info := target.info(false)
	d.viewMu.Lock()
	if !d.enterViewLocked(target) {
		d.viewMu.Unlock()
		return
	}
	target.lv.mu.Lock()
	d.send(EventWorkspace, info)
	batch := []json.RawMessage{resetEvent}
	for _, b := range target.lv.transcript {
		batch = append(batch, b...)
	}
	d.send(EventAgent, batch)
	target.lv.told = ""
	target.lv.mu.Unlock()
	// Its last status (a newer one, recorded meanwhile, follows).
	target.mu.Lock()
	st := target.status
	target.mu.Unlock()
	d.send(EventKernel, st)
	// Its forms waiting for the user.
	d.mcpUser().sendOpen(func(p *mcpPending) bool { return p.ws == target })
	d.viewMu.Unlock()
	d.setTitle(filepath.Base(target.dir))
	d.enforceLimit()
	d.publishLive()
}

// worthKeeping: a conversation left is kept running when it runs a turn,
// waits on the user or has a saved session to come back to.
func (ws *workspace) worthKeeping() bool {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.closed {
		return false
	}
	if ws.turn != nil || len(ws.pending) > 0 {
		return true
	}
	return ws.agent != nil && adapter.SessionExists(ws.cfg, ws.agent.SessionID())
}

// busy: a turn runs or a request waits; such a conversation is never
// shut down to make room.
func (ws *workspace) busy() bool {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.turn != nil || len(ws.pending) > 0 || ws.agent == nil && !ws.closed && ws.status.State == KernelStarting
}

// liveFind returns the live conversation on session id, in view or not.
func (d *Desktop) liveFind(id string) *workspace {
	if id == "" {
		return nil
	}
	d.mu.Lock()
	all := append([]*workspace{d.ws}, d.others...)
	d.mu.Unlock()
	for _, w := range all {
		if w != nil && w.sessionID() == id {
			return w
		}
	}
	return nil
}

// sessionID is the conversation's session ("" while a new one starts).
func (ws *workspace) sessionID() string {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.agent != nil {
		return ws.agent.SessionID()
	}
	return ws.session
}

// newConversation is a conversation over the workspace of from, not yet
// started: its configuration is read again (the settings saved since
// apply).
func (d *Desktop) newConversation(from *workspace) *workspace {
	cfg := from.cfg
	if c, err := from.open.Load(); err == nil {
		cfg = c
	}
	ws := &workspace{dir: from.dir, open: from.open, cfg: cfg, d: d, pending: map[string]any{}, events: make(chan queued, 256)}
	go pump(ws.events, flushInterval, ws.deliver)
	return ws
}

// kernelLimit is the limit on live kernels from the app's settings.
func (d *Desktop) kernelLimit() int {
	s, err := d.store.Settings()
	if err != nil || s.MaxLiveKernels <= 0 {
		return DefaultLiveKernels
	}
	return s.MaxLiveKernels
}

// LiveKernelLimit is the limit on live kernels Settings shows.
func (d *Desktop) LiveKernelLimit() int { return d.kernelLimit() }

// SetLiveKernelLimit sets the limit on live kernels (1 to 32); idle ones
// beyond it are shut down at once.
func (d *Desktop) SetLiveKernelLimit(n int) error {
	if n < 1 || n > 32 {
		return errors.New("the limit on live kernels must be between 1 and 32")
	}
	if err := d.store.Update(func(s *config.AppSettings) { s.MaxLiveKernels = n }); err != nil {
		return err
	}
	d.enforceLimit()
	d.publishLive()
	return nil
}

// liveIn lists the live conversations out of view in folder dir, but
// not except.
func (d *Desktop) liveIn(dir string, except *workspace) []*workspace {
	d.mu.Lock()
	defer d.mu.Unlock()
	var in []*workspace
	for _, w := range d.others {
		if w != except && w.dir == dir {
			in = append(in, w)
		}
	}
	return in
}

// shutDown shuts down the conversations out of view in drop.
func (d *Desktop) shutDown(drop []*workspace) {
	if len(drop) == 0 {
		return
	}
	d.mu.Lock()
	d.others = slices.DeleteFunc(d.others, func(w *workspace) bool { return slices.Contains(drop, w) })
	d.mu.Unlock()
	for _, w := range drop {
		w.close()
	}
	d.publishLive()
}

// enforceLimit shuts down the least recently used idle conversations not
// in view while more live than the limit: never one that runs a turn or
// waits on the user.
func (d *Desktop) enforceLimit() {
	limit := d.kernelLimit()
	d.mu.Lock()
	n := len(d.others)
	if d.ws != nil {
		n++
	}
	idle := make([]*workspace, 0, len(d.others))
	for _, w := range d.others {
		if !w.busy() {
			idle = append(idle, w)
		}
	}
	sort.Slice(idle, func(i, j int) bool { return idle[i].lv.used < idle[j].lv.used })
	var drop []*workspace
	for ; n > limit && len(idle) > 0; n-- {
		drop = append(drop, idle[0])
		idle = idle[1:]
	}
	d.mu.Unlock()
	d.shutDown(drop)
}

// Conversations lists the live conversations with their states.
func (d *Desktop) Conversations() []LiveConversation {
	d.mu.Lock()
	view := d.ws
	all := append([]*workspace{}, d.others...)
	d.mu.Unlock()
	if view != nil {
		all = append([]*workspace{view}, all...)
	}
	out := make([]LiveConversation, 0, len(all))
	for _, w := range all {
		c := w.liveState()
		c.InView = w == view
		if c.SessionID != "" {
			out = append(out, c)
		}
	}
	return out
}

// liveState is the state the session list shows.
func (ws *workspace) liveState() LiveConversation {
	// The MCP forms it asked wait for the user as its approvals do.
	forms := ws.d.mcpUser().forms(ws)
	ws.mu.Lock()
	defer ws.mu.Unlock()
	c := LiveConversation{Workspace: ws.dir, SessionID: ws.session, Waiting: forms}
	for _, r := range ws.pending {
		switch r.(type) {
		case *agent.ApprovalRequest, *agent.InputRequest, *agent.BudgetRequest:
			c.Waiting++
		}
	}
	if ws.agent != nil {
		c.SessionID = ws.agent.SessionID()
	}
	switch {
	case c.Waiting > 0:
		c.State = ConvWaiting
	case ws.turn != nil:
		c.State = ConvRunning
	case ws.agent == nil && ws.status.State == KernelError:
		c.State = ConvFailed
	case ws.agent == nil:
		c.State = ConvStarting
	case ws.lv.outcome != "":
		c.State = ws.lv.outcome
	default:
		c.State = ConvIdle
	}
	return c
}

// publishLive sends the live conversations to the window.
func (d *Desktop) publishLive() {
	d.send(EventConversations, d.Conversations())
}

// changed tells the window that ws changed state and, when it is not in
// view and now waits or has finished, notifies the desktop.
func (ws *workspace) changed() {
	d := ws.d
	d.publishLive()
	c := ws.liveState()
	ws.mu.Lock()
	closed := ws.closed
	ws.mu.Unlock()
	if closed || d.inView(ws) || c.SessionID == "" {
		ws.lv.mu.Lock()
		ws.lv.told = ""
		ws.lv.mu.Unlock()
		return
	}
	switch c.State {
	case ConvWaiting, ConvFinished, ConvFailed:
	default:
		return
	}
	ws.lv.mu.Lock()
	again := ws.lv.told == c.State
	ws.lv.told = c.State
	ws.lv.mu.Unlock()
	if !again {
		d.notifier().notify(ws, c)
	}
}

// sharedFolderNotice tells a conversation starting in a folder where
// another one runs that they share it.
func (d *Desktop) sharedFolderNotice(ws *workspace) {
	d.mu.Lock()
	shared := 0
	for _, w := range d.others {
		if w.dir == ws.dir {
			shared++
		}
	}
	d.mu.Unlock()
	if shared == 0 {
		return
	}
	ws.push(queued{ev: &agent.Notice{Meta: agent.Meta{AgentID: agent.MainAgent}, Text: sharedFolderText}})
}

// sharedFolderText is the notice of a conversation that shares its folder.
const sharedFolderText = "Another conversation runs in this folder: their actions take turns, " +
	"and reverting one never undoes the other's changes (a file both changed shows as a conflict)."

// closeAll stops every live conversation (the window closes).
func (d *Desktop) closeAll() {
	d.mu.Lock()
	all := append([]*workspace{}, d.others...)
	if d.ws != nil {
		all = append(all, d.ws)
	}
	d.ws, d.others = nil, nil
	d.mu.Unlock()
	var wg sync.WaitGroup
	for _, w := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.close()
		}()
	}
	wg.Wait()
}

// dropLive closes the live conversation on session id that is not in
// view (it is being deleted); it refuses while it runs or waits.
func (d *Desktop) dropLive(id string) error {
	w := d.liveFind(id)
	if w == nil || d.inView(w) {
		return nil
	}
	if w.busy() {
		return errors.New("a turn is running in this conversation: open it and stop the turn before deleting it")
	}
	d.shutDown([]*workspace{w})
	return nil
}
