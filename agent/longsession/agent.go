package longsession

import (
	"context"
	"errors"
	"log/slog"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/provider"
	"github.com/freeact/desktop/agent/session"
)

// Agent is the agent as its long session sees it: its lock, which guards
// its history and State, and what compaction, usage and the budget read of
// it.
type Agent interface {
	ID() string
	// Lock and Unlock guard the history and the State.
	Lock()
	Unlock()
	// Held returns, under the lock, the history itself and the State.
	Held() ([]model.Message, *State)
	// Model is the agent's model, nil while it has none.
	Model() model.Model
	// Config is the workspace's configuration the agent runs with.
	Config() *config.Config
	// Costs is what the session cost, shared with subagents.
	Costs() *Costs
	// Store is the session file, nil without persistence.
	Store() *session.Store[model.Message]
	// RequestSize estimates a request with view from its characters: the
	// system prompt, the tool declarations and the messages.
	RequestSize(view []model.Message) int
	// Failure describes err as the Failed event of a turn.
	Failure(err error) *event.Failed
	// PreCompact runs the hooks that hear of a compaction before it.
	PreCompact(ctx context.Context, emit func(event.Event), reason string)
	// Compacted runs the hooks that hear of a compaction once it is in
	// force (SessionStart, source "compact").
	Compacted(ctx context.Context)
}

// State is what a long session keeps of one agent, under the agent's lock
// with the history it cuts.
type State struct {
	Cuts   []Cut    // compactions, the last one in force
	Est    Estimate // the conversation's size as last measured
	Served int      // the context window the model's server reported; 0 when unknown
	// Synthetic are the indexes of history messages that are not in the
	// session file: results added on resume to calls left unanswered.
	Synthetic []int
	// Failed are the "Compact now"s that failed after their calls were
	// paid.
	Failed []FailedCompaction
}

// MainAgent is the agent whose conversation size the session shows.
const MainAgent = session.MainAgent

// ModelName names a's model; without one, the model agent.json names,
// which the agent will use once it can.
func ModelName(a Agent) string {
	if m := a.Model(); m != nil {
		return m.Name()
	}
	return a.Config().Options.Model
}

// ModelInfo is what the catalog (and agent.json's models) know of a's
// model.
func ModelInfo(a Agent) (model.Info, bool) {
	return model.Lookup(ModelName(a), a.Config().Options.Models)
}

// ViewOf returns the messages the model sees: the history, or the latest
// summary and what came after it.
func ViewOf(a Agent) []model.Message {
	a.Lock()
	defer a.Unlock()
	hist, st := a.Held()
	return View(hist, Last(st.Cuts))
}

// TokensOf estimates the request view makes: what the last call measured,
// plus the messages since, or an estimate of it all.
func TokensOf(a Agent, view []model.Message) int {
	a.Lock()
	_, st := a.Held()
	est := st.Est
	a.Unlock()
	return est.Tokens(view, a.RequestSize)
}

// RecordCall records a call's usage: the view it was sent with, plus its
// reply, is input+output tokens; its tokens and cost are counted and
// reported.
func RecordCall(a Agent, emit func(event.Event), viewLen int, name string, u model.Usage) {
	a.Lock()
	_, st := a.Held()
	st.Est = Measured(viewLen, u)
	a.Unlock()
	RecordUsage(a, emit, name, u, false)
}

// RecordUsage counts a call's tokens and cost and reports them; a judge's
// call leaves the conversation's size as it is.
func RecordUsage(a Agent, emit func(event.Event), name string, u model.Usage, judge bool) {
	cost := a.Config().PriceOf(name, u)
	if judge {
		a.Costs().AddJudge(cost, u)
		if st := a.Store(); st != nil {
			// No message records a judge's call: the session keeps what
			// it cost, so a resumed session counts it.
			if err := st.AppendSpent(session.Spent{Agent: a.ID(), Model: name, Usage: UsageJSON([]model.Usage{u}), Judge: true}); err != nil {
				emit(&event.Notice{Meta: event.Meta{AgentID: a.ID()}, Text: "Recording what auto mode's judge cost failed, so a resumed session will not count it: " + err.Error()})
			}
		}
	} else {
		a.Costs().Add(cost, u)
	}
	emit(&event.Usage{Meta: event.Meta{AgentID: a.ID()}, Model: name, Usage: u, Cost: cost, Judge: judge})
	if !judge && a.ID() == MainAgent {
		UpdateContext(a, u.InputTokens+u.OutputTokens)
	}
	emit(UsageOf(a))
}

// UsageOf is where the session stands: its cost and the main
// conversation's size against the model's window.
func UsageOf(a Agent) *event.SessionUsage {
	return a.Costs().Usage(a.Config().Options.MaxCostPerSession)
}

// UpdateContext records the main conversation's size (about) with the
// model's window and compaction point.
func UpdateContext(a Agent, tokens int) {
	window, at := WindowOf(a)
	a.Costs().SetContext(tokens, window, at)
}

// WindowOf returns the model's context window and the request size at
// which older turns are compacted (0 when unknown or off).
func WindowOf(a Agent) (window, compactAt int) {
	info, _ := ModelInfo(a)
	a.Lock()
	_, st := a.Held()
	served := st.Served
	a.Unlock()
	return Window(info.ContextWindow, served, a.Config().Options.CompactionThreshold)
}

// AskWindow asks the model's server, when it is the user's own, for the
// context window it runs the model with (ServedWindow); a server that
// does not say leaves the window as the table (or agent.json's models)
// has it. open gives the model's spec and provider options.
func AskWindow(ctx context.Context, a Agent, log *slog.Logger, open func() (model.Spec, provider.Options, error)) {
	spec, po, err := open()
	if err != nil {
		return
	}
	n, err := ServedWindow(ctx, spec, po)
	if err != nil {
		log.Info("the model server did not say its context window", "err", err)
		return
	}
	if n > 0 {
		LearnWindow(a, n)
	}
}

// LearnWindow takes n as the model's context window, as its server
// reported it (in an overflow error or when asked at start).
func LearnWindow(a Agent, n int) {
	a.Lock()
	_, st := a.Held()
	st.Served = n
	a.Unlock()
}

// LoadCosts adds up what the stored session cost so far: every agent's
// model messages and every compaction.
func LoadCosts(a Agent, hist []model.Message) error {
	return a.Costs().Load(a.Store(), a.ID(), hist, a.Config().PriceOf)
}

// CheckBudget asks before a model call that would take the session over
// max_cost_per_session: estimate is the call's input, about. It reports
// whether the call may go ahead; stop holds the text that ends the turn
// when not.
func CheckBudget(ctx context.Context, a Agent, emit func(event.Event), estimate int) (ok bool, stop string) {
	budget := a.Config().Options.MaxCostPerSession
	if budget == nil {
		return true, ""
	}
	next := 0.0
	if info, known := ModelInfo(a); known {
		next, _ = info.Cost(model.Usage{InputTokens: estimate, OutputTokens: a.Costs().ExpectedOutput()})
	}
	return a.Costs().CheckBudget(ctx, emit, a.ID(), budget, next)
}

// BeforeCall prepares a model call: older turns are compacted when the
// request would pass compaction_threshold of the window, and the budget
// is checked (stop is then the text that ends the turn). It returns the
// view to send.
func BeforeCall(ctx context.Context, a Agent, emit func(event.Event)) (view []model.Message, stop string, err error) {
	view = ViewOf(a)
	tokens := TokensOf(a, view)
	if _, at := WindowOf(a); at > 0 && tokens > at {
		switch err := Compact(ctx, a, emit, CompactThreshold); {
		case err == nil:
			view = ViewOf(a)
			tokens = TokensOf(a, view)
		case errors.Is(err, ErrNothingToCompact):
		case ctx.Err() != nil:
			return nil, "", err
		default:
			// The request may still fit; the provider says when not.
			emit(&event.Notice{Meta: event.Meta{AgentID: a.ID()}, Text: err.Error()})
		}
	}
	if ok, text := CheckBudget(ctx, a, emit, tokens); !ok {
		return nil, text, nil
	}
	return view, "", nil
}
