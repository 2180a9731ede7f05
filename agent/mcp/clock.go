package mcp

import (
	"context"
	"sync"
	"time"
)

// callClock is the timeout of one call (CallTimeout, read_timeout). It
// stops while the server waits for the user (a form, a sign-in), so the
// time a user takes to answer is not counted against the call.
type callClock struct {
	cancel context.CancelCauseFunc
	cause  error

	mu        sync.Mutex
	remaining time.Duration
	started   time.Time
	timer     *time.Timer // nil while paused or ended
	paused    int
	ended     bool
}

// newCallClock returns a context that ends d after it starts, not counting
// the time between pause and resume; stop releases it.
func newCallClock(ctx context.Context, d time.Duration, cause error) (context.Context, *callClock) {
	cctx, cancel := context.WithCancelCause(ctx)
	c := &callClock{cancel: cancel, cause: cause, remaining: d}
	c.mu.Lock()
	c.run()
	c.mu.Unlock()
	return cctx, c
}

func (c *callClock) run() {
	c.started = time.Now()
	c.timer = time.AfterFunc(c.remaining, func() { c.cancel(c.cause) })
}

// pause stops the clock until the matching resume.
func (c *callClock) pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused++
	if c.paused == 1 && c.timer != nil && c.timer.Stop() {
		c.remaining -= time.Since(c.started)
		c.timer = nil
	}
}

func (c *callClock) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused--
	if c.paused == 0 && c.timer == nil && !c.ended {
		c.run()
	}
}

func (c *callClock) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	if c.timer != nil {
		c.timer.Stop()
	}
	c.cancel(context.Canceled)
}

// clocks are the clocks of a server's calls in flight.
type clocks struct {
	mu  sync.Mutex
	set map[*callClock]struct{}
}

func (cs *clocks) add(c *callClock) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.set == nil {
		cs.set = map[*callClock]struct{}{}
	}
	cs.set[c] = struct{}{}
}

func (cs *clocks) remove(c *callClock) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	delete(cs.set, c)
}

// asking pauses the clocks of the calls in flight while the user is
// asked, and returns what resumes them.
func (cs *clocks) asking() (done func()) {
	cs.mu.Lock()
	paused := make([]*callClock, 0, len(cs.set))
	for c := range cs.set {
		paused = append(paused, c)
	}
	cs.mu.Unlock()
	for _, c := range paused {
		c.pause()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			for _, c := range paused {
				c.resume()
			}
		})
	}
}
