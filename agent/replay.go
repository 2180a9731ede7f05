package agent

import (
	"context"
	"fmt"
	"github.com/freeact/desktop/agent/history"
	"iter"
	"strings"

	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/internal/redact"
)

// Why a kernel lost its state (ReplayOffer.Reason).
const (
	LostResumed   = "resumed"   // the session was resumed: a fresh kernel
	LostDied      = "died"      // the kernel died (or hung and was replaced)
	LostRestarted = "restarted" // the user restarted it (RestartKernel)
)

// ReplayOffer is the offer to restore a kernel's lost state by running the
// session's earlier successful cells again.
type ReplayOffer struct {
	// Reason is LostResumed, LostDied or LostRestarted.
	Reason string
	// Cells would run, in order: the code actions and the user's own cells
	// that succeeded since the state was last cleared on purpose (the
	// model's ipybox_reset, or a choice not to restore it). Show their
	// code before the user answers.
	Cells []Cell
	// Changed counts the Cells whose record in the session is not one
	// this app wrote (Cell.Changed): Replay does not run them, only
	// ReplayReviewed, once the user has looked at their code.
	Changed int
}

// stateLost records that the kernel's state is gone.
func (a *Agent) stateLost(reason string) {
	a.mu.Lock()
	a.lost = reason
	a.losses++
	a.mu.Unlock()
}

// ReplayOffer returns the offer to restore the kernel's state, when it was
// lost (a resumed session, a kernel that died, a restart the user asked
// for) and there are cells to run again. Answer it with Replay or
// SkipReplay; the next turn answers it "no" by itself. Either way the model
// is told, so it does not count on variables that are gone.
func (a *Agent) ReplayOffer() (ReplayOffer, bool) {
	a.mu.Lock()
	reason := a.lost
	a.mu.Unlock()
	if reason == "" {
		return ReplayOffer{}, false
	}
	plan := history.ReplayPlan(a.History(), a.seal)
	if len(plan) == 0 {
		return ReplayOffer{}, false
	}
	offer := ReplayOffer{Reason: reason, Cells: plan}
	for _, c := range plan {
		if c.Changed {
			offer.Changed++
		}
	}
	return offer, true
}

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
	return a.exclusive(ctx, func(ctx context.Context, emit func(Event)) { a.replay(ctx, emit, false) })
}

// ReplayReviewed is Replay for an offer whose cells, changed ones
// included, the user has seen and accepted.
func (a *Agent) ReplayReviewed(ctx context.Context) iter.Seq[Event] {
	return a.exclusive(ctx, func(ctx context.Context, emit func(Event)) { a.replay(ctx, emit, true) })
}

func (a *Agent) replay(ctx context.Context, emit func(Event), reviewed bool) {
	offer, ok := a.ReplayOffer()
	if !ok {
		emit(&Failed{Meta: Meta{AgentID: a.id}, Error: "there is no kernel state to restore"})
		return
	}
	if offer.Changed > 0 && !reviewed {
		emit(&Failed{Meta: Meta{AgentID: a.id}, Error: fmt.Sprintf("nothing was replayed: the session file's record of %s was changed outside the app; look at their code before replaying them", Plural(offer.Changed, "cell"))})
		return
	}
	a.mu.Lock()
	losses := a.losses
	a.mu.Unlock()
	done := &CellsFinished{Meta: Meta{AgentID: a.id}, Source: CellReplay, Total: len(offer.Cells)}
	var failed []string
	a.beginUserCheckpoints(userCellsWhat(CellReplay, len(offer.Cells)))
	defer a.ckpt.Flush()
	for i, c := range offer.Cells {
		if ctx.Err() != nil {
			done.Stopped = true
			break
		}
		corr := newRunID()
		emit(&CellStarted{Meta: Meta{AgentID: a.id, CorrelationID: corr}, Code: c.Code, Source: CellReplay, Of: c.ID, Index: i + 1, Total: len(offer.Cells)})
		out, refused := a.execUserCell(ctx, emit, corr, c.Code)
		done.Ran++
		if out.Error || refused != nil {
			done.Failed++
			failed = append(failed, fmt.Sprintf("cell %d: %s", i+1, lastLine(refusedOutput(out.Text, refused))))
		}
		if refused != nil || (ctx.Err() != nil && i < len(offer.Cells)-1) {
			done.Stopped = true
			break
		}
	}
	if ev, err := a.recordState(StateReplayed, replaySummary(offer.Reason, done, failed), done.Ran, done.Total); err != nil {
		emit(&Failed{Meta: Meta{AgentID: a.id}, Error: redact.Text(err.Error())})
	} else {
		emit(ev)
	}
	a.mu.Lock()
	if a.losses == losses { // not lost again during the replay
		a.lost = ""
	}
	a.mu.Unlock()
	emit(done)
}

func lostPhrase(reason string) string {
	switch reason {
	case LostResumed:
		return "the session was resumed in a fresh kernel"
	case LostDied:
		return "it died"
	case LostRestarted:
		return "the user restarted it"
	}
	return "it was replaced"
}

// replaySummary is what the model is told about a replay.
func replaySummary(reason string, done *CellsFinished, failed []string) string {
	s := fmt.Sprintf("The kernel lost its state (%s); the user restored it by running this session's %s again, in order.", lostPhrase(reason), Plural(done.Total, "earlier successful code cell"))
	switch {
	case done.Stopped:
		s += fmt.Sprintf(" The user stopped the replay after %d of them: only what those made exists.", done.Ran)
	case len(failed) == 0:
		s += " All succeeded: what they made exists again."
	}
	if len(failed) > 0 {
		s += fmt.Sprintf(" %d failed (%s): what those would have made may be missing.", len(failed), strings.Join(failed, "; "))
	}
	return s
}

// lastLine is the last non-empty line of a cell's output: its error.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// SkipReplay declines the ReplayOffer: the kernel stays fresh, and the
// conversation tells the model that the earlier cells' variables, imports
// and definitions are gone. It returns what was recorded (nil when no
// offer was open).
func (a *Agent) SkipReplay() (*KernelStateNote, error) {
	var ev *KernelStateNote
	err := a.claim(func() error {
		event, text := a.declineOffer(StateSkipped, "the user chose not to restore it")
		if text == "" {
			return nil
		}
		var err error
		ev, err = a.recordState(event, text, 0, 0)
		return err
	})
	return ev, err
}

// dropOffer declines an open offer when a turn starts without an answer:
// it returns the note for the turn's user message ("" when no offer was
// open) and emits what the model is told.
func (a *Agent) dropOffer(emit func(Event)) string {
	event, text := a.declineOffer(StateNotRestored, "the user went on without restoring it")
	if text == "" {
		return ""
	}
	emit(&KernelStateNote{Meta: Meta{AgentID: a.id}, Event: event, Text: text})
	return history.StateNote(event, text, 0, 0)
}

// declineOffer closes the offer; text says what the model is told, "" when
// there was no offer.
func (a *Agent) declineOffer(event, what string) (string, string) {
	offer, ok := a.ReplayOffer()
	a.mu.Lock()
	a.lost = ""
	a.mu.Unlock()
	if !ok {
		return "", ""
	}
	return event, fmt.Sprintf("The kernel lost its state (%s) and %s: the variables, imports and definitions of %s are gone.", lostPhrase(offer.Reason), what, Plural(len(offer.Cells), "earlier cell"))
}

// recordState records a kernel state note and returns it as an event.
func (a *Agent) recordState(event, text string, ran, planned int) (*KernelStateNote, error) {
	note := history.StateNote(event, text, ran, planned)
	if err := a.record(model.Message{Role: model.RoleUser, Parts: []model.Part{{Text: note}}}); err != nil {
		return nil, err
	}
	a.sync()
	return &KernelStateNote{Meta: Meta{AgentID: a.id}, Event: event, Text: text}, nil
}

// RestartKernel restarts the kernel because the user asked: its state is
// lost, the conversation records it for the model (the returned note), and
// a ReplayOffer follows when there are cells to run again. It fails while a
// turn runs.
func (a *Agent) RestartKernel(ctx context.Context) (*KernelStateNote, error) {
	var ev *KernelStateNote
	err := a.claim(func() (err error) {
		if err := a.kern.Restart(ctx); err != nil {
			a.stateLost(LostDied) // whatever it held is gone
			return fmt.Errorf("restart kernel: %w", err)
		}
		a.stateLost(LostRestarted)
		ev, err = a.recordState(StateRestarted, "The user restarted the kernel: the variables, imports and definitions of earlier cells are gone.", 0, 0)
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

// Plural writes n and the noun, with an s unless n is 1: "1 cell", "3
// cells".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
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
