package desktop

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

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
	// more holds the texts of chunks merged into this one (appendCoalesced).
	more []string
	// dropped counts characters cut from the front of an output (see
	// clipOutput and resolve), droppedLines the lines among them; the
	// frontend shows that they were left out.
	dropped, droppedLines int
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
// both are chunks of the same stream. The merged texts are collected in the
// last entry's more and joined once, when the batch is sent (merging by
// string concatenation copied a flood of output quadratically). Events are
// never mutated.
func appendCoalesced(batch []queued, q queued) []queued {
	key := ""
	if q.ev != nil {
		key = chunkKey(q.ev)
	}
	if key == "" || len(batch) == 0 {
		return append(batch, q)
	}
	last := &batch[len(batch)-1]
	if last.ev == nil || chunkKey(last.ev) != key {
		return append(batch, q)
	}
	last.more = append(last.more, chunkText(q.ev))
	return batch
}

func chunkText(ev agent.Event) string {
	switch e := ev.(type) {
	case *agent.ThoughtsChunk:
		return e.Text
	case *agent.ResponseChunk:
		return e.Text
	case *agent.CodeExecutionOutputChunk:
		return e.Text
	}
	return ""
}

// resolve returns q with its merged texts joined into one event. Output
// beyond maxWindowOutput in one batch keeps its tail; the characters and
// lines left out are counted in dropped and droppedLines.
func resolve(q queued) queued {
	if len(q.more) == 0 {
		return q
	}
	var b strings.Builder
	b.WriteString(chunkText(q.ev))
	for _, t := range q.more {
		b.WriteString(t)
	}
	text := b.String()
	out := queued{requestID: q.requestID}
	switch e := q.ev.(type) {
	case *agent.ThoughtsChunk:
		m := *e
		m.Text = text
		out.ev = &m
	case *agent.ResponseChunk:
		m := *e
		m.Text = text
		out.ev = &m
	case *agent.CodeExecutionOutputChunk:
		m := *e
		if len(text) > maxWindowOutput {
			cut := len(text) - maxWindowOutput
			for cut < len(text) && !utf8.RuneStart(text[cut]) {
				cut++
			}
			out.dropped = cut
			out.droppedLines = strings.Count(text[:cut], "\n")
			text = text[cut:]
		}
		m.Text = text
		out.ev = &m
	default:
		return q
	}
	return out
}

// encodeBatch turns a batch into the JSON objects the frontend reduces:
// agent.MarshalEvent's form plus "request_id" for requests.
func encodeBatch(batch []queued) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, len(batch))
	for _, q := range batch {
		q = resolve(q)
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
		if q.dropped > 0 && len(b) > 1 && b[0] == '{' {
			b = append([]byte(fmt.Sprintf(`{"dropped_chars":%d,"dropped_lines":%d,`, q.dropped, q.droppedLines)), b[1:]...)
		}
		out = append(out, b)
	}
	return out, nil
}

// maxWindowOutput is how much of a complete code output goes to the
// window: it shows the tail of long output anyway, and a message of many
// megabytes would stall it while it is parsed. The model and the session
// get the whole output.
const maxWindowOutput = 256 << 10

// clipOutput keeps the last maxWindowOutput bytes of a complete code
// output (cut at a character boundary) and reports how many were dropped.
func clipOutput(q queued) queued {
	out, ok := q.ev.(*agent.CodeExecutionOutput)
	if !ok || len(out.Text) <= maxWindowOutput {
		return q
	}
	cut := len(out.Text) - maxWindowOutput
	for cut < len(out.Text) && !utf8.RuneStart(out.Text[cut]) {
		cut++
	}
	c := *out
	c.Text = out.Text[cut:]
	q.ev = &c
	q.dropped = cut
	q.droppedLines = strings.Count(out.Text[:cut], "\n")
	return q
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
