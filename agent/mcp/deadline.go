package mcp

import (
	"context"
	"sync"
	"time"

	"github.com/freeact/desktop/internal/opener"
)

// deadline is a connect timeout that stops counting while the user signs
// in: a browser step takes minutes, a connection seconds.
type deadline struct {
	d      time.Duration
	cancel context.CancelCauseFunc

	mu     sync.Mutex
	timer  *time.Timer
	paused int
}

// connectDeadline returns ctx bounded by the server's connect timeout
// (ending with errConnectTimeout) and keeps it as the start under way.
func (s *server) connectDeadline(ctx context.Context) (context.Context, *deadline) {
	ctx, cancel := context.WithCancelCause(ctx)
	dl := &deadline{d: s.connectTimeout(), cancel: cancel}
	dl.timer = time.AfterFunc(dl.d, func() { cancel(errConnectTimeout) })
	s.mu.Lock()
	s.deadline = dl
	s.mu.Unlock()
	return ctx, dl
}

func (d *deadline) stop() {
	d.mu.Lock()
	d.timer.Stop()
	d.mu.Unlock()
	d.cancel(context.Canceled)
}

func (d *deadline) pause() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.paused == 0 {
		d.timer.Stop()
	}
	d.paused++
}

// resume starts the timeout afresh once no sign-in pauses it.
func (d *deadline) resume() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.paused--
	if d.paused == 0 {
		d.timer.Reset(d.d)
	}
}

// browser shows the authorization URL (Options.SignIn.Browser, else the
// system browser) and pauses the connect timeout of the start under way
// until the browser step ends; the sign-in has its own timeout.
func (s *server) browser(ctx context.Context, server, authURL string) error {
	s.mu.Lock()
	dl := s.deadline
	s.mu.Unlock()
	if dl != nil {
		dl.pause()
		context.AfterFunc(ctx, dl.resume)
	}
	if f := s.m.opts.SignIn.Browser; f != nil {
		return f(ctx, server, authURL)
	}
	_, err := opener.Opener{}.OpenURL(ctx, authURL)
	return err
}
