package event

import "sync"

// Queue carries events from a turn's goroutines to the stream's consumer.
// Push never blocks, so a kernel's reader goroutine that reports output is
// never held up by a consumer that is busy asking the user something.
type Queue struct {
	mu     sync.Mutex
	items  []Event
	closed bool
	ready  chan struct{} // signalled when items or closed change
}

// NewQueue returns an empty, open queue.
func NewQueue() *Queue { return &Queue{ready: make(chan struct{}, 1)} }

// Push adds ev.
func (q *Queue) Push(ev Event) {
	q.mu.Lock()
	q.items = append(q.items, ev)
	q.mu.Unlock()
	q.signal()
}

// Close ends the queue: Next returns what is left, then false.
func (q *Queue) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

func (q *Queue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// Next returns the next events, waiting for some; ok is false once the
// queue is closed and empty.
func (q *Queue) Next() (batch []Event, ok bool) {
	for {
		q.mu.Lock()
		batch, q.items = q.items, nil
		closed := q.closed
		q.mu.Unlock()
		if len(batch) > 0 {
			return batch, true
		}
		if closed {
			return nil, false
		}
		<-q.ready
	}
}
