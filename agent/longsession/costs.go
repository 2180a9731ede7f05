package longsession

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/model"
	"github.com/freeact/desktop/agent/model/local"
	"github.com/freeact/desktop/agent/model/provider"
	"github.com/freeact/desktop/agent/session"
)

// Costs is what a session's model calls have cost. The main agent and its
// subagents share it; the main agent also keeps the context figures here
// so that every SessionUsage shows the main conversation's.
type Costs struct {
	mu       sync.Mutex
	total    float64
	unpriced int
	raised   float64 // budget added by BudgetRequest answers
	// judge and judgeCalls are auto mode's judge's share of total and
	// its calls (a line of their own in the usage).
	judge      float64
	judgeCalls int
	// outTokens and calls estimate the output of the next call.
	outTokens, calls int

	contextTokens, window, compactAt int
}

// Add counts a call's usage u and its cost (nil: its price is unknown).
func (c *Costs) Add(cost *float64, u model.Usage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cost != nil {
		c.total += *cost
	} else {
		c.unpriced++
	}
	c.outTokens += u.OutputTokens + u.ThinkingTokens
	c.calls++
}

// AddJudge counts a call of auto mode's judge: in the session's cost and
// budget like any call, and on a line of its own.
func (c *Costs) AddJudge(cost *float64, u model.Usage) {
	c.Add(cost, u)
	c.mu.Lock()
	defer c.mu.Unlock()
	if cost != nil {
		c.judge += *cost
	}
	c.judgeCalls++
}

// ExpectedOutput is the average output of the session's calls so far
// (1,000 tokens before the first).
func (c *Costs) ExpectedOutput() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == 0 {
		return 1000
	}
	return c.outTokens / c.calls
}

// SetContext records the main conversation's size (about) with the
// model's window and compaction point.
func (c *Costs) SetContext(tokens, window, compactAt int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.contextTokens, c.window, c.compactAt = tokens, window, compactAt
}

// Usage says where the session stands: its cost and the main
// conversation's size against the model's window. budget is
// max_cost_per_session (nil: none).
func (c *Costs) Usage(budget *float64) *event.SessionUsage {
	c.mu.Lock()
	defer c.mu.Unlock()
	su := &event.SessionUsage{
		Meta: event.Meta{AgentID: session.MainAgent}, Cost: c.total, Unpriced: c.unpriced,
		ContextTokens: c.contextTokens, ContextWindow: c.window, CompactAt: c.compactAt,
		JudgeCost: c.judge, JudgeCalls: c.judgeCalls,
	}
	if budget != nil {
		v := *budget + c.raised
		su.Budget = &v
	}
	return su
}

// Load adds up what the stored session st cost so far: every agent's
// model messages (self's are hist) and every compaction, and the calls of
// failed turns. price prices a call of a model.
func (c *Costs) Load(st *session.Store[model.Message], self string, hist []model.Message, price func(string, model.Usage) *float64) error {
	agents, err := st.Agents()
	if err != nil {
		return err
	}
	for _, id := range agents {
		msgs := hist
		if id != self {
			if msgs, err = st.Load(id); err != nil {
				return fmt.Errorf("read the cost of %s: %w", id, err)
			}
		}
		for _, m := range msgs {
			if m.Role == model.RoleModel && m.Usage != nil {
				c.Add(price(m.Model, *m.Usage), *m.Usage)
			}
		}
		cs, err := st.Compactions(id)
		if err != nil {
			return err
		}
		for _, cp := range cs {
			for _, u := range UsagesOf(cp.Usage) {
				c.Add(price(cp.Model, u), u)
			}
		}
	}
	// Calls of failed turns, whose messages were taken out of the files,
	// and auto mode's judge's calls.
	spent, err := st.Spent()
	if err != nil {
		return err
	}
	for _, sp := range spent {
		for _, u := range UsagesOf(sp.Usage) {
			if sp.Judge {
				c.AddJudge(price(sp.Model, u), u)
			} else {
				c.Add(price(sp.Model, u), u)
			}
		}
	}
	return nil
}

// CheckBudget asks, through emit, before a model call of agent whose cost
// is next would take the session over budget (max_cost_per_session; nil:
// none). It reports whether the call may go ahead; stop holds the text
// that ends the turn when not. A yes raises the budget by budget again.
func (c *Costs) CheckBudget(ctx context.Context, emit func(event.Event), agent string, budget *float64, next float64) (ok bool, stop string) {
	if budget == nil {
		return true, ""
	}
	c.mu.Lock()
	spent, limit := c.total, *budget+c.raised
	c.mu.Unlock()
	if spent+next <= limit {
		return true, ""
	}
	req := event.NewBudgetRequest(event.Meta{AgentID: agent}, spent, limit, next)
	emit(req)
	select {
	case yes := <-req.Answered():
		if yes && ctx.Err() == nil {
			c.mu.Lock()
			c.raised += *budget
			c.mu.Unlock()
			return true, ""
		}
	case <-ctx.Done():
		req.Continue(false)
	}
	return false, BudgetStopText(spent, limit)
}

// Window is the context window of a model the catalog gives as window
// and its server as served (0: unknown), and the request size at which
// older turns are compacted at threshold (compaction_threshold; 0 when
// unknown or off).
func Window(window, served int, threshold *float64) (int, int) {
	if served > 0 && (window == 0 || served < window) {
		window = served // what the server runs the model with
	}
	compactAt := 0
	if threshold != nil && window > 0 {
		compactAt = int(*threshold * float64(window))
	}
	return window, compactAt
}

// ServedWindow asks the model's server, when it is the user's own (a base
// URL, Ollama, LM Studio, or any server on this machine), for the context
// window it runs the model spec with: llama.cpp's /props, Ollama's
// /api/show or a /v1/models entry; po are its provider options. It waits
// at most 3 s. 0 when the server is not asked; an error when it does not
// say.
func ServedWindow(ctx context.Context, spec model.Spec, po provider.Options) (int, error) {
	if spec.Gemini() || spec.Provider == "anthropic" {
		return 0, nil
	}
	base := po.BaseURL
	if base == "" {
		base = spec.BaseURL
	}
	loopback := provider.SafeForKey(base) && !strings.HasPrefix(base, "https://")
	if spec.Provider != "url" && spec.Provider != "ollama" && spec.Provider != "lmstudio" && !loopback {
		return 0, nil
	}
	srv := local.Server{BaseURL: base}
	if provider.SafeForKey(base) || po.AllowHTTPKey {
		srv.APIKey = po.APIKey
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	return srv.Window(ctx, spec.Name)
}
