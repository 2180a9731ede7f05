package desktop

import (
	"errors"
	"sync"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/approval"
)

// The window's approval mode switch (Rules / Ask / Auto in the header),
// per conversation; see docs/permissions.md.

// ApprovalModeState is the open conversation's approval mode as the
// header shows it.
type ApprovalModeState struct {
	// Mode is "rules", "ask" or "auto".
	Mode string `json:"mode"`
	// Paused is set when auto mode's breaker paused it: its judge asked
	// too often. Setting "auto" again resumes it.
	Paused bool `json:"paused"`
	// Sandbox and Checkpoints are the structural layer's conditions now:
	// without both, auto mode allows nothing by itself and every action
	// goes to the judge or the user.
	Sandbox     bool `json:"sandbox"`
	Checkpoints bool `json:"checkpoints"`
}

// approvalModes keeps each conversation's mode while the window is open,
// so that a kernel restart or applied settings keep it.
type approvalModes struct {
	mu sync.Mutex
	m  map[string]approval.Mode // by session id
}

func (am *approvalModes) set(session string, m approval.Mode) {
	am.mu.Lock()
	defer am.mu.Unlock()
	if am.m == nil {
		am.m = map[string]approval.Mode{}
	}
	am.m[session] = m
}

// apply gives a started agent the mode its conversation had.
func (am *approvalModes) apply(a *agent.Agent) {
	am.mu.Lock()
	m, ok := am.m[a.SessionID()]
	am.mu.Unlock()
	if ok {
		a.SetApprovalMode(m)
	}
}

// running returns the open conversation's agent.
func (ws *workspace) running() (*agent.Agent, error) {
	ws.mu.Lock()
	a := ws.agent
	ws.mu.Unlock()
	if a == nil {
		return nil, errors.New("the kernel is still starting: wait for \"Kernel ready\"")
	}
	return a, nil
}

func modeState(a *agent.Agent) ApprovalModeState {
	return ApprovalModeState{
		Mode: a.ApprovalMode().String(), Paused: a.AutoPaused(),
		Sandbox: a.Sandboxed(), Checkpoints: a.Checkpoints() != nil,
	}
}

// ApprovalMode returns the open conversation's approval mode.
func (d *Desktop) ApprovalMode() (ApprovalModeState, error) {
	ws, err := d.current()
	if err != nil {
		return ApprovalModeState{}, err
	}
	a, err := ws.running()
	if err != nil {
		return ApprovalModeState{}, err
	}
	return modeState(a), nil
}

// SetApprovalMode sets the open conversation's approval mode: "rules",
// "ask" or "auto". Setting "auto" again resumes auto mode after its
// breaker paused it. It applies from the next call asked, a running turn
// included.
func (d *Desktop) SetApprovalMode(mode string) (ApprovalModeState, error) {
	m, err := approval.ParseMode(mode)
	if err != nil {
		return ApprovalModeState{}, err
	}
	ws, err := d.current()
	if err != nil {
		return ApprovalModeState{}, err
	}
	a, err := ws.running()
	if err != nil {
		return ApprovalModeState{}, err
	}
	a.SetApprovalMode(m)
	ws.modes.set(a.SessionID(), m)
	return modeState(a), nil
}
