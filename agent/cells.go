package agent

import (
	"context"
	"fmt"
	"iter"
	"path/filepath"

	"github.com/freeact/desktop/agent/cells"
	"github.com/freeact/desktop/agent/history"
	"github.com/freeact/desktop/agent/model"
)

// RunCells runs cells in the kernel as the user's own action: no model
// call, one after another, each announced by a CellStarted event and
// followed by its output like a code action's, the batch ended by
// CellsFinished. Each cell that ran is recorded in the conversation with
// its output, so the next model call sees what the user ran. A "no" (to a
// cell that asks, or to a command inside one) or Cancel stops the batch.
// It takes the place of a turn: only one of them runs at a time.
func (a *Agent) RunCells(ctx context.Context, cs []cells.UserCell) iter.Seq[Event] {
	return a.exclusive(ctx, func(ctx context.Context, emit func(Event)) {
		cells.Run(ctx, cellsAgent{a}, emit, cs)
	})
}

// ReplayOffer returns the offer to restore the kernel's state, when it was
// lost (a resumed session, a kernel that died, a restart the user asked
// for) and there are cells to run again. Answer it with Replay or
// SkipReplay; the next turn answers it "no" by itself. Either way the model
// is told, so it does not count on variables that are gone.
func (a *Agent) ReplayOffer() (cells.ReplayOffer, bool) { return a.kstate.Offer(cellsAgent{a}) }

// Replay accepts the ReplayOffer: it runs the offer's cells again, in
// order, as one batch the caller has approved (the user said yes to the
// offer). Shell commands and tool calls inside them are still asked unless
// permission rules allow them. Each cell is announced by a CellStarted
// event (Index and Total give the progress) and followed by its output;
// CellsFinished ends the batch. Cancel stops it after the running cell,
// and a "no" stops it too. The conversation records what happened for the
// model: how many cells ran, which failed, whether it was stopped.
//
// When the session's record of any of the cells was changed outside the
// app (ReplayOffer.Changed), Replay runs nothing and fails: show the
// user those cells' code, then call ReplayReviewed.
func (a *Agent) Replay(ctx context.Context) iter.Seq[Event] {
	return a.exclusive(ctx, func(ctx context.Context, emit func(Event)) { a.kstate.Replay(ctx, cellsAgent{a}, emit, false) })
}

// ReplayReviewed is Replay for an offer whose cells, changed ones
// included, the user has seen and accepted.
func (a *Agent) ReplayReviewed(ctx context.Context) iter.Seq[Event] {
	return a.exclusive(ctx, func(ctx context.Context, emit func(Event)) { a.kstate.Replay(ctx, cellsAgent{a}, emit, true) })
}

// SkipReplay declines the ReplayOffer: the kernel stays fresh, and the
// conversation tells the model that the earlier cells' variables, imports
// and definitions are gone. It returns what was recorded (nil when no
// offer was open).
func (a *Agent) SkipReplay() (*KernelStateNote, error) {
	var ev *KernelStateNote
	err := a.claim(func() (err error) {
		ev, err = a.kstate.Skip(cellsAgent{a})
		return err
	})
	return ev, err
}

// RestartKernel restarts the kernel because the user asked: its state is
// lost, the conversation records it for the model (the returned note), and
// a ReplayOffer follows when there are cells to run again. It fails while a
// turn runs.
func (a *Agent) RestartKernel(ctx context.Context) (*KernelStateNote, error) {
	var ev *KernelStateNote
	err := a.claim(func() (err error) {
		if err := a.kern.Restart(ctx); err != nil {
			a.kstate.Lose(cells.LostDied) // whatever it held is gone
			return fmt.Errorf("restart kernel: %w", err)
		}
		a.kstate.Lose(cells.LostRestarted)
		ev, err = cells.RecordState(cellsAgent{a}, StateRestarted, "The user restarted the kernel: the variables, imports and definitions of earlier cells are gone.", 0, 0)
		return err
	})
	return ev, err
}

// claim runs f in the place of a turn, without a stream.
func (a *Agent) claim(f func() error) error {
	if err := a.beginTurn(func(error) {}); err != nil {
		return err
	}
	defer func() {
		a.endTurn()
		a.turns.Done()
	}()
	return f()
}

// SealedWhole reports whether r, the record of code that ran in this
// agent's workspace (callID: its code action's call id, "" for a cell
// the user ran), is as the app wrote it, every field: only then may a
// view show what it holds beyond its code (Run, Original, Images,
// ElapsedMS). A record of a session written before records were sealed
// whole, or changed since, is not.
func (a *Agent) SealedWhole(r model.Ran, callID string) bool {
	return a.seal.Whole(r, callID)
}

// OpenNotebook starts from the notebook at path: its cells become context
// the model sees (the conversation records them, with the text of their
// saved outputs), and RunNotebook runs its code. It is meant for the start
// of a session, and fails while a turn runs.
func (a *Agent) OpenNotebook(path string) ([]NotebookCell, error) {
	nb, err := cells.ReadNotebook(path)
	if err != nil {
		return nil, err
	}
	if len(nb) == 0 {
		return nil, fmt.Errorf("%s has no markdown or code cells", path)
	}
	shown := path
	if rel, err := filepath.Rel(a.cfg.Dir, path); err == nil && filepath.IsLocal(rel) {
		shown = rel
	}
	err = a.claim(func() error {
		msg := model.Message{Role: model.RoleUser, Parts: []model.Part{{Text: history.NotebookNote(shown, nb)}}}
		if err := a.record(msg); err != nil {
			return err
		}
		a.sync()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return nb, nil
}

// RunNotebook runs the code cells of the notebook opened last, in order,
// as RunCells does: each is approved as a code action before it runs (its
// shell commands and tool calls are asked one by one), a "no" or Cancel
// stops the rest, and what ran is recorded for the model.
func (a *Agent) RunNotebook(ctx context.Context) iter.Seq[Event] {
	cs, ok := cells.NotebookCells(a.History())
	if !ok {
		return func(yield func(Event) bool) {
			yield(&Failed{Meta: Meta{AgentID: a.id}, Error: "no notebook was opened in this session"})
		}
	}
	return a.RunCells(ctx, cs)
}
