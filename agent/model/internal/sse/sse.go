// Package sse reads server-sent events, as the streaming endpoints of the
// OpenAI-compatible and Anthropic APIs send them, and posts the requests
// those endpoints answer (Post), turning error responses into
// *model.APIError.
package sse

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"iter"
)

// Event is one dispatched event.
type Event struct {
	Name string // the event: field; empty when the server sent none
	Data []byte // the data: lines joined by newlines; valid until the next event
}

// maxLine bounds one line, as a guard against a runaway server.
const maxLine = 64 << 20

// Read yields the events of r until it ends. Comments, id: and retry: lines
// are skipped; an event without data is not dispatched.
func Read(r io.Reader) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 64<<10), maxLine)
		var ev Event
		hasData := false
		dispatch := func() bool {
			defer func() { ev, hasData = Event{Data: ev.Data[:0]}, false }()
			return !hasData || yield(ev, nil)
		}
		for sc.Scan() {
			line := sc.Bytes()
			if len(line) == 0 {
				if !dispatch() {
					return
				}
				continue
			}
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "data":
				if hasData {
					ev.Data = append(ev.Data, '\n')
				}
				ev.Data = append(ev.Data, value...)
				hasData = true
			case "event":
				ev.Name = string(value)
			}
		}
		if err := sc.Err(); err != nil {
			yield(Event{}, fmt.Errorf("read event stream: %w", err))
			return
		}
		dispatch()
	}
}
