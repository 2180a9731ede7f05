package mcpglue

import (
	"fmt"
	"github.com/freeact/desktop/agent/event"
	"github.com/freeact/desktop/agent/session"
	"sync"
	"testing"

	"github.com/freeact/desktop/agent/mcp"
)

// A flood of notifications becomes a few events: the last one carries the
// final progress, each at most maxProgressLogs lines, and every log line
// is either shown or counted as dropped.
func TestProgressThrottleFlood(t *testing.T) {
	const n = 20000
	var mu sync.Mutex
	var events []*event.ToolProgress
	p := NewProgressThrottle(func(ev event.Event) {
		mu.Lock()
		events = append(events, ev.(*event.ToolProgress))
		mu.Unlock()
	}, event.Meta{AgentID: session.MainAgent, CorrelationID: "c1"})
	for i := 1; i <= n; i++ {
		p.Note(mcp.Notification{Server: "s", Kind: "progress", Progress: float64(i), Total: n, Message: fmt.Sprint("step ", i)})
		p.Note(mcp.Notification{Server: "s", Kind: "log", Level: "info", Message: fmt.Sprint("line ", i)})
	}
	p.Stop()
	p.Note(mcp.Notification{Server: "s", Kind: "log", Message: "after the call"})
	mu.Lock()
	defer mu.Unlock()
	// The first goes out at once, then one each progressEvery at most: a
	// loop of 40000 notes takes far less than the 100 s that n/2 events
	// would need.
	if len(events) == 0 || len(events) > n/2 {
		t.Fatalf("%d events for %d notifications", len(events), 2*n)
	}
	last := events[len(events)-1]
	if last.Progress != n || last.Total != n || last.Message != fmt.Sprint("step ", n) || last.CorrelationID != "c1" || last.Server != "s" {
		t.Errorf("last event %+v, want the final progress", last)
	}
	if got := last.Logs[len(last.Logs)-1].Message; got != fmt.Sprint("line ", n) {
		t.Errorf("last log line %q", got)
	}
	lines := 0
	for _, ev := range events {
		if len(ev.Logs) > maxProgressLogs {
			t.Errorf("an event carries %d log lines", len(ev.Logs))
		}
		lines += len(ev.Logs) + ev.Dropped
	}
	if lines != n {
		t.Errorf("%d log lines shown or counted, want %d", lines, n)
	}
}

// Progress without log lines keeps the last progress in each event, and a
// log line alone carries the progress reported before it.
func TestProgressThrottleCarriesProgress(t *testing.T) {
	var events []*event.ToolProgress
	p := NewProgressThrottle(func(ev event.Event) { events = append(events, ev.(*event.ToolProgress)) }, event.Meta{AgentID: session.MainAgent})
	p.Note(mcp.Notification{Server: "s", Kind: "progress", Progress: 1, Total: 4, Message: "one"})
	p.Stop()
	if len(events) != 1 || events[0].Progress != 1 || len(events[0].Logs) != 0 {
		t.Fatalf("events %+v", events)
	}
	events = nil
	p = NewProgressThrottle(func(ev event.Event) { events = append(events, ev.(*event.ToolProgress)) }, event.Meta{AgentID: session.MainAgent})
	p.Note(mcp.Notification{Server: "s", Kind: "progress", Progress: 2, Total: 4, Message: "two"})
	p.Note(mcp.Notification{Server: "s", Kind: "log", Level: "warning", Message: "careful"})
	p.Note(mcp.Notification{Server: "s", Kind: "tools_changed"})
	p.Stop()
	last := events[len(events)-1]
	if last.Progress != 2 || last.Message != "two" || len(last.Logs) != 1 || last.Logs[0] != (event.LogLine{Level: "warning", Message: "careful"}) {
		t.Errorf("events %+v", events)
	}
}
