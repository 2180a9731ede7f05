package desktop

import (
	"errors"
	"fmt"
	"github.com/freeact/desktop/agent/cells"
	"github.com/freeact/desktop/agent/history"
	"iter"
	"path/filepath"
	"strings"

	"github.com/freeact/desktop/agent"
)

// The window's side of the kernel workflow: answering a code action with an
// edited cell, running a past cell again, replaying a lost kernel state,
// and running an opened notebook. Each runs in the place of a turn and
// streams its events the same way.

// ApproveEdited answers the code action request id with the cell as the
// user edited it: the edited code runs instead of the model's.
func (d *Desktop) ApproveEdited(id, code string) error {
	if strings.TrimSpace(code) == "" {
		return errors.New("the edited cell is empty: write the code to run, or answer No")
	}
	ws, err := d.current()
	if err != nil {
		return err
	}
	req, err := ws.takeApproval(id, func(r *agent.ApprovalRequest) error {
		if _, ok := r.ToolCall.(agent.CodeAction); !ok {
			return fmt.Errorf("request %s is not a code action: only code can be edited", id)
		}
		return nil
	})
	if err != nil {
		return err
	}
	req.Edit(code)
	return nil
}

// RunCell runs code in the kernel as the user's own action (no model
// turn): a past cell again, as it was or edited (source "rerun", of the id
// of the cell it runs again; its output appears as a new run of it), or a
// notebook cell that has not run (source "notebook", of the cell's id in
// the notebook; it runs in place).
func (d *Desktop) RunCell(code, of, source string) error {
	if strings.TrimSpace(code) == "" {
		return errors.New("the cell is empty: write the code to run")
	}
	switch source {
	case "", history.CellRerun:
		source = history.CellRerun
	case history.CellNotebook:
	default:
		return fmt.Errorf("unknown cell source %q: want rerun or notebook", source)
	}
	ws, err := d.current()
	if err != nil {
		return err
	}
	return ws.startTurn(func(a *agent.Agent) iter.Seq[agent.Event] {
		return a.RunCells(ws.d.host.context(), []cells.UserCell{{Code: code, Source: source, Of: of}})
	})
}

// Replay accepts the offer to restore the kernel's state (KernelStatus
// ReplayCells): the session's successful cells run again, with their
// progress as events; Cancel stops it. The offer listed their code
// (KernelStatus.ReplayCode), the changed ones open, so the user has seen
// what runs.
func (d *Desktop) Replay() error {
	ws, err := d.current()
	if err != nil {
		return err
	}
	return ws.startTurn(func(a *agent.Agent) iter.Seq[agent.Event] {
		return a.ReplayReviewed(ws.d.host.context())
	})
}

// SkipReplay declines the offer to restore the kernel's state.
func (d *Desktop) SkipReplay() error {
	ws, err := d.current()
	if err != nil {
		return err
	}
	ws.mu.Lock()
	a := ws.agent
	ws.mu.Unlock()
	if a == nil {
		return errors.New("the kernel is not ready")
	}
	note, err := a.SkipReplay()
	if err != nil {
		return err
	}
	if note != nil {
		ws.push(queued{ev: note})
	}
	ws.setStatus(KernelStatus{State: KernelReady, Message: "Kernel ready", Progress: 1})
	return nil
}

// RunNotebook runs the code cells of the notebook opened in this session,
// each approved as a code action ("Run all").
func (d *Desktop) RunNotebook() error {
	ws, err := d.current()
	if err != nil {
		return err
	}
	return ws.startTurn(func(a *agent.Agent) iter.Seq[agent.Event] {
		return a.RunNotebook(ws.d.host.context())
	})
}

// PickNotebook opens the native file dialog for a notebook, in the
// workspace; "" means it was cancelled.
func (d *Desktop) PickNotebook() (string, error) {
	ws, err := d.current()
	if err != nil {
		return "", err
	}
	p, err := d.host.openFile("Open a Jupyter notebook", ws.dir, "Jupyter notebooks (*.ipynb)", "*.ipynb")
	if err != nil {
		return "", fmt.Errorf("file dialog: %w", err)
	}
	return p, nil
}

// OpenNotebook starts a session from the notebook at path: its cells
// become context the model sees and show in the conversation, ready for
// RunNotebook. The current session goes on if nothing was said in it yet;
// otherwise a new session starts.
func (d *Desktop) OpenNotebook(path string) error {
	ws, err := d.current()
	if err != nil {
		return err
	}
	if path == "" {
		return errors.New("no notebook given: choose an .ipynb file")
	}
	path = ws.abs(path)
	if _, err := cells.ReadNotebook(path); err != nil {
		return err
	}
	ws.mu.Lock()
	a, busy := ws.agent, ws.turn != nil
	ws.mu.Unlock()
	if busy {
		return errors.New("a turn is running: stop it before opening a notebook")
	}
	if a != nil && len(a.History()) == 0 {
		return ws.openNotebook(a, path)
	}
	ws.mu.Lock()
	ws.notebook = path
	ws.mu.Unlock()
	ws.push(queued{raw: resetEvent})
	ws.restart("")
	return nil
}

// openNotebook opens path in the agent's session and shows its cells.
func (ws *workspace) openNotebook(a *agent.Agent, path string) error {
	cells, err := a.OpenNotebook(path)
	if err != nil {
		return err
	}
	shown := path
	if rel, err := filepath.Rel(ws.dir, path); err == nil && filepath.IsLocal(rel) {
		shown = rel
	}
	ws.push(queued{raw: notebookEvent(shown, cells)})
	return nil
}

// takeNotebook returns, once, the notebook a new session is to open.
func (ws *workspace) takeNotebook() string {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	p := ws.notebook
	ws.notebook = ""
	return p
}
