package mcpglue

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/mcp"
)

// MCPWaiting tells that a model call waits for MCP servers of mcp_servers
// that are still connecting, so that their tools are offered: Servers are
// the ones waited for, LimitSecs about the longest the wait lasts (their
// connect_timeout). Skip lets the call go on without them; their tools
// join at the next model call once they connect, and no later call waits
// for them. A second MCPWaiting with Done set ends the wait (Skipped when
// Skip ended it).
type MCPWaiting struct {
	event.Meta
	Servers   []string `json:"servers"`
	LimitSecs float64  `json:"limit_secs,omitempty"`
	Done      bool     `json:"done,omitempty"`
	Skipped   bool     `json:"skipped,omitempty"`

	skip chan struct{}
	once *sync.Once
}

// Skip lets the waiting model call go on without the servers; it reports
// whether it ended the wait (false once the wait is over or for a Done
// event).
func (w *MCPWaiting) Skip() bool {
	if w.skip == nil || w.Done {
		return false
	}
	skipped := false
	w.once.Do(func() { skipped = true; close(w.skip) })
	return skipped
}

// starts are the first connections of the JSON servers that Start left
// under way.
type starts struct {
	mu sync.Mutex
	// pending: server -> closed when its first connection ended.
	pending map[string]chan struct{}
	// until: server -> when its connect timeout ends (about).
	until map[string]time.Time
	// skipped servers are not waited for again.
	skipped map[string]bool
	// stop cancels the connections still under way (Close).
	stop context.CancelFunc
}

// connectInBackground starts the first connection of every server of
// h.json: Start waits for them up to wait (or until ctx ends, which
// cancels them); those still connecting then go on in the background and
// the model calls wait for them (Await). A server that fails is recorded
// in the failures.
func (h *Hub) connectInBackground(ctx context.Context, wait time.Duration) {
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	s := &starts{pending: map[string]chan struct{}{}, until: map[string]time.Time{}, skipped: map[string]bool{}, stop: stop}
	h.starts = s
	now := time.Now()
	// Every server is pending before any connection can end.
	var all []chan struct{}
	for _, name := range h.json.Servers() {
		done := make(chan struct{})
		s.pending[name] = done
		s.until[name] = now.Add(h.connectTimeout(name))
		all = append(all, done)
	}
	for i, name := range h.json.Servers() {
		done := all[i]
		go func() {
			_, err := h.json.ServerTools(bg, name)
			if err != nil {
				h.log.Warn("MCP server not connected; its tools are not offered", "err", err)
				h.noteFailure(h.json, name, reason(err))
			}
			s.mu.Lock()
			delete(s.pending, name)
			s.mu.Unlock()
			close(done)
		}()
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for _, done := range all {
		select {
		case <-done:
		case <-timer.C:
			return
		case <-ctx.Done():
			// The start was cancelled: so are the connections.
			stop()
			return
		}
	}
}

// connectTimeout is the connect timeout of the JSON server name.
func (h *Hub) connectTimeout(name string) time.Duration {
	if t := h.cfg.Options.MCPServers[name].ConnectTimeout; t != nil && *t > 0 {
		return time.Duration(*t * float64(time.Second))
	}
	return mcp.DefaultConnectTimeout
}

// Await waits, before a model call, for the JSON servers still
// connecting since Start (and not skipped), telling it with MCPWaiting
// (meta names the agent), until they connected or failed, the user skips
// them, or ctx ends.
func (h *Hub) Await(ctx context.Context, emit func(event.Event), meta event.Meta) {
	if h == nil || h.starts == nil {
		return
	}
	s := h.starts
	s.mu.Lock()
	waiting := map[string]chan struct{}{}
	var until time.Time
	for name, done := range s.pending {
		if !s.skipped[name] {
			waiting[name] = done
			if s.until[name].After(until) {
				until = s.until[name]
			}
		}
	}
	s.mu.Unlock()
	if len(waiting) == 0 {
		return
	}
	servers := slices.Sorted(maps.Keys(waiting))
	w := &MCPWaiting{Meta: meta, Servers: servers, LimitSecs: max(0, time.Until(until).Round(time.Second).Seconds()),
		skip: make(chan struct{}), once: &sync.Once{}}
	emit(w)
	skipped := false
wait:
	for _, name := range servers {
		select {
		case <-waiting[name]:
		case <-w.skip:
			skipped = true
			break wait
		case <-ctx.Done():
			break wait
		}
	}
	if skipped {
		s.mu.Lock()
		for _, name := range servers {
			s.skipped[name] = true
		}
		s.mu.Unlock()
	}
	// Later answers do nothing.
	w.once.Do(func() {})
	emit(&MCPWaiting{Meta: meta, Servers: servers, Done: true, Skipped: skipped})
}
