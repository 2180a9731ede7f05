package app

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/freeact/desktop/agent"
)

// flushInterval is how often coalesced chunk events go to the window. About
// 30 ms keeps streaming text fluid while a flood of output becomes a few
// dozen messages a second instead of thousands.
const flushInterval = 30 * time.Millisecond

// queued is one event on its way to the window. RequestID is set for
// approval and input requests: the frontend answers with it.
type queued struct {
	ev        agent.Event
	requestID string
	// raw is a synthetic event of the app's own (UserMessage, TurnStarted,
	// TurnEnded, history entries) already encoded; ev is nil then.
	raw json.RawMessage
}

// chunkKey identifies the stream a chunk event continues; "" means the event
// is not a chunk. Adjacent chunks with the same key are merged.
func chunkKey(ev agent.Event) string {
	switch e := ev.(type) {
	case *agent.ThoughtsChunk:
		return "T\x00" + e.AgentID
	case *agent.ResponseChunk:
		return "R\x00" + e.AgentID
	case *agent.CodeExecutionOutputChunk:
		return "O\x00" + e.AgentID + "\x00" + e.CorrelationID + "\x00" + e.Kind
	}
	return ""
}

// appendCoalesced appends q to batch, merging it into the last event when
// both are chunks of the same stream. Events in the batch are never mutated:
// a merge replaces the last one with a new value.
func appendCoalesced(batch []queued, q queued) []queued {
	key := ""
	if q.ev != nil {
		key = chunkKey(q.ev)
	}
	if key == "" || len(batch) == 0 {
		return append(batch, q)
	}
	last := batch[len(batch)-1]
	if last.ev == nil || chunkKey(last.ev) != key {
		return append(batch, q)
	}
	switch a := last.ev.(type) {
	case *agent.ThoughtsChunk:
		m := *a
		m.Text += q.ev.(*agent.ThoughtsChunk).Text
		batch[len(batch)-1] = queued{ev: &m}
	case *agent.ResponseChunk:
		m := *a
		m.Text += q.ev.(*agent.ResponseChunk).Text
		batch[len(batch)-1] = queued{ev: &m}
	case *agent.CodeExecutionOutputChunk:
		m := *a
		m.Text += q.ev.(*agent.CodeExecutionOutputChunk).Text
		batch[len(batch)-1] = queued{ev: &m}
	}
	return batch
}

// encodeBatch turns a batch into the JSON objects the frontend reduces:
// agent.MarshalEvent's form plus "request_id" for requests.
func encodeBatch(batch []queued) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, len(batch))
	for _, q := range batch {
		if q.ev == nil {
			out = append(out, q.raw)
			continue
		}
		b, err := agent.MarshalEvent(q.ev)
		if err != nil {
			return out, fmt.Errorf("encode %s event: %w", agent.EventType(q.ev), err)
		}
		if q.requestID != "" && len(b) > 1 && b[0] == '{' {
			id, _ := json.Marshal(q.requestID)
			b = append(append(append([]byte(`{"request_id":`), id...), ','), b[1:]...)
		}
		out = append(out, b)
	}
	return out, nil
}

// pump forwards events from in to flush in batches: chunks wait up to
// interval so that adjacent ones merge; any other event flushes at once
// with what waits before it, so requests and results are never delayed.
// It returns when in is closed, after flushing what is left.
func pump(in <-chan queued, interval time.Duration, flush func([]queued)) {
	var batch []queued
	var timer *time.Timer
	var tick <-chan time.Time
	send := func() {
		if len(batch) > 0 {
			flush(batch)
			batch = nil
		}
		if timer != nil {
			timer.Stop()
			timer, tick = nil, nil
		}
	}
	for {
		select {
		case q, ok := <-in:
			if !ok {
				send()
				return
			}
			batch = appendCoalesced(batch, q)
			if q.ev == nil || chunkKey(q.ev) == "" {
				send()
				continue
			}
			if timer == nil {
				timer = time.NewTimer(interval)
				tick = timer.C
			}
		case <-tick:
			timer, tick = nil, nil
			send()
		}
	}
}
