package mcpglue

import (
	"github.com/freeact/desktop/agent/event"
	"sync"
	"time"

	"github.com/freeact/desktop/agent/mcp"
)

// progressEvery is how often a call's ToolProgress goes out at most: a
// server that sends thousands of notifications a second gives the window
// ten events a second, each with the latest progress and the newest log
// lines.
const progressEvery = 100 * time.Millisecond

// maxProgressLogs is how many log lines one ToolProgress carries at most
// (the newest); the others are counted in Dropped.
const maxProgressLogs = 20

// ProgressThrottle turns the notifications of one MCP call into
// ToolProgress events, at most one each progressEvery.
type ProgressThrottle struct {
	emit func(event.Event)
	meta event.Meta

	mu      sync.Mutex
	last    time.Time
	pending *event.ToolProgress // nil: nothing waits
	latest  event.ToolProgress  // the progress so far, carried into each event
	timer   *time.Timer
	done    bool
}

func NewProgressThrottle(emit func(event.Event), meta event.Meta) *ProgressThrottle {
	return &ProgressThrottle{emit: emit, meta: meta}
}

// Note takes one notification of the call.
func (p *ProgressThrottle) Note(n mcp.Notification) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	if p.pending == nil {
		ev := p.latest
		ev.Meta, ev.Server, ev.Logs, ev.Dropped = p.meta, n.Server, nil, 0
		p.pending = &ev
	}
	ev := p.pending
	switch n.Kind {
	case "progress":
		ev.Progress, ev.Total, ev.Message, ev.Clipped = n.Progress, n.Total, n.Message, n.Clipped
		p.latest.Progress, p.latest.Total, p.latest.Message, p.latest.Clipped = n.Progress, n.Total, n.Message, n.Clipped
	case "log":
		ev.Logs = append(ev.Logs, event.LogLine{Level: n.Level, Message: n.Message, Clipped: n.Clipped})
		if len(ev.Logs) > maxProgressLogs {
			ev.Dropped += len(ev.Logs) - maxProgressLogs
			ev.Logs = ev.Logs[len(ev.Logs)-maxProgressLogs:]
		}
	default:
		return
	}
	if p.timer != nil {
		return
	}
	if wait := progressEvery - time.Since(p.last); wait > 0 {
		p.timer = time.AfterFunc(wait, p.flush)
		return
	}
	p.flushLocked()
}

func (p *ProgressThrottle) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.timer = nil
	p.flushLocked()
}

// flushLocked emits what waits. It emits under mu, so events go out in
// order; a slow reader of events slows the server's reader, never the
// other way round.
func (p *ProgressThrottle) flushLocked() {
	if p.pending == nil || p.done {
		return
	}
	ev := p.pending
	p.pending, p.last = nil, time.Now()
	p.emit(ev)
}

// Stop emits what waits and ends the throttle: the call is over, and
// notifications that come later are dropped.
func (p *ProgressThrottle) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	p.flushLocked()
	p.done = true
}
