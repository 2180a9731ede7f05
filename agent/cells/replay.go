package cells

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/history"
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
	Cells []history.Cell
	// Changed counts the Cells whose record in the session is not one
	// this app wrote (Cell.Changed): Replay does not run them, only
	// ReplayReviewed, once the user has looked at their code.
	Changed int
}

// State is whether an agent's kernel lost its state and why; the zero
// State holds it.
type State struct {
	mu     sync.Mutex
	lost   string // why the state was lost; "" while it holds
	losses int    // counts losses, so a replay knows whether it lost the state again
}

// Lose records that the kernel's state is gone, for reason.
func (s *State) Lose(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lost = reason
	s.losses++
}

func (s *State) reason() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lost
}

// Offer returns the offer to restore a's kernel state, when it was lost
// and there are cells to run again (see agent.Agent.ReplayOffer).
func (s *State) Offer(a Agent) (ReplayOffer, bool) {
	reason := s.reason()
	if reason == "" {
		return ReplayOffer{}, false
	}
	plan := history.ReplayPlan(a.History(), a.Seal())
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

// Replay accepts the offer: it runs its cells again in a's kernel (see
// agent.Agent.Replay); reviewed: the user has seen the changed ones.
func (s *State) Replay(ctx context.Context, a Agent, emit func(event.Event), reviewed bool) {
	offer, ok := s.Offer(a)
	if !ok {
		emit(&event.Failed{Meta: event.Meta{AgentID: a.ID()}, Error: "there is no kernel state to restore"})
		return
	}
	if offer.Changed > 0 && !reviewed {
		emit(&event.Failed{Meta: event.Meta{AgentID: a.ID()}, Error: fmt.Sprintf("nothing was replayed: the session file's record of %s was changed outside the app; look at their code before replaying them", Plural(offer.Changed, "cell"))})
		return
	}
	s.mu.Lock()
	losses := s.losses
	s.mu.Unlock()
	done := &event.CellsFinished{Meta: event.Meta{AgentID: a.ID()}, Source: history.CellReplay, Total: len(offer.Cells)}
	var failed []string
	a.BeginCheckpoints(what(history.CellReplay, len(offer.Cells)))
	defer a.FlushCheckpoints()
	for i, c := range offer.Cells {
		if ctx.Err() != nil {
			done.Stopped = true
			break
		}
		corr := newRunID()
		emit(&event.CellStarted{Meta: event.Meta{AgentID: a.ID(), CorrelationID: corr}, Code: c.Code, Source: history.CellReplay, Of: c.ID, Index: i + 1, Total: len(offer.Cells)})
		out, refused := a.ExecCell(ctx, emit, corr, c.Code)
		done.Ran++
		if out.Error || refused != "" {
			done.Failed++
			failed = append(failed, fmt.Sprintf("cell %d: %s", i+1, lastLine(withRefusal(out.Text, refused))))
		}
		if refused != "" || (ctx.Err() != nil && i < len(offer.Cells)-1) {
			done.Stopped = true
			break
		}
	}
	if ev, err := RecordState(a, history.StateReplayed, summary(offer.Reason, done, failed), done.Ran, done.Total); err != nil {
		emit(&event.Failed{Meta: event.Meta{AgentID: a.ID()}, Error: redact.Text(err.Error())})
	} else {
		emit(ev)
	}
	s.mu.Lock()
	if s.losses == losses { // not lost again during the replay
		s.lost = ""
	}
	s.mu.Unlock()
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

// summary is what the model is told about a replay.
func summary(reason string, done *event.CellsFinished, failed []string) string {
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

// Skip declines the offer: the model is told that the earlier cells'
// state is gone. It returns what was recorded (nil when no offer was
// open).
func (s *State) Skip(a Agent) (*event.KernelStateNote, error) {
	ev, text := s.decline(a, history.StateSkipped, "the user chose not to restore it")
	if text == "" {
		return nil, nil
	}
	return RecordState(a, ev, text, 0, 0)
}

// Drop declines an open offer when a turn starts without an answer: it
// returns the note for the turn's user message ("" when no offer was
// open) and emits what the model is told.
func (s *State) Drop(a Agent, emit func(event.Event)) string {
	ev, text := s.decline(a, history.StateNotRestored, "the user went on without restoring it")
	if text == "" {
		return ""
	}
	emit(&event.KernelStateNote{Meta: event.Meta{AgentID: a.ID()}, Event: ev, Text: text})
	return history.StateNote(ev, text, 0, 0)
}

// decline closes the offer; text says what the model is told, "" when
// there was no offer.
func (s *State) decline(a Agent, ev, what string) (string, string) {
	offer, ok := s.Offer(a)
	s.mu.Lock()
	s.lost = ""
	s.mu.Unlock()
	if !ok {
		return "", ""
	}
	return ev, fmt.Sprintf("The kernel lost its state (%s) and %s: the variables, imports and definitions of %s are gone.", lostPhrase(offer.Reason), what, Plural(len(offer.Cells), "earlier cell"))
}

// RecordState records a kernel state note in a's conversation and
// returns it as an event.
func RecordState(a Agent, ev, text string, ran, planned int) (*event.KernelStateNote, error) {
	note := history.StateNote(ev, text, ran, planned)
	if err := a.Record(model.Message{Role: model.RoleUser, Parts: []model.Part{{Text: note}}}); err != nil {
		return nil, err
	}
	a.Sync()
	return &event.KernelStateNote{Meta: event.Meta{AgentID: a.ID()}, Event: ev, Text: text}, nil
}
