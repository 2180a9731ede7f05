package agent

import "github.com/freeact/desktop/agent/cells"

// The kernel workflow the user drives (their own cells, the kernel state
// lost and its replay, notebooks opened) lives in agent/cells; these
// aliases keep its SDK names reachable as agent.UserCell, ... .

type (
	UserCell    = cells.UserCell
	ReplayOffer = cells.ReplayOffer
)

// Why a kernel lost its state (ReplayOffer.Reason).
const (
	LostResumed   = cells.LostResumed
	LostDied      = cells.LostDied
	LostRestarted = cells.LostRestarted
)

// Plural writes n and the noun, with an s unless n is 1: "1 cell", "3
// cells".
func Plural(n int, noun string) string { return cells.Plural(n, noun) }

// ReadNotebook reads the notebook at path as the cells OpenNotebook gives
// the model: markdown and code cells (raw cells are left out) with the
// text of their saved outputs.
func ReadNotebook(path string) ([]NotebookCell, error) { return cells.ReadNotebook(path) }

// stateLost records that the kernel's state is gone.
func (a *Agent) stateLost(reason string) { a.kstate.Lose(reason) }
