package webview

import (
	"sync"
	"time"
)

// Restart is what to do when the web process died.
type Restart int

const (
	// Reload loads the app's page again in a new web process.
	Reload Restart = iota
	// GiveUp stops: it died again soon after the last reload.
	GiveUp
)

// Again is how soon a second death after a reload means giving up.
const Again = time.Minute

// Watcher decides what a death of the web process calls for: a reload,
// unless it died within Again of the previous death.
type Watcher struct {
	now  func() time.Time
	mu   sync.Mutex
	last time.Time // of the previous death; zero: none
}

// NewWatcher returns a watcher reading the time from now (time.Now when
// nil).
func NewWatcher(now func() time.Time) *Watcher {
	if now == nil {
		now = time.Now
	}
	return &Watcher{now: now}
}

// Died records a death of the web process and says what to do.
func (w *Watcher) Died() Restart {
	w.mu.Lock()
	defer w.mu.Unlock()
	t := w.now()
	prev := w.last
	w.last = t
	if !prev.IsZero() && t.Sub(prev) < Again {
		return GiveUp
	}
	return Reload
}
