package kernel

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/gorilla/websocket"
)

// This file keeps a remote kernel through network trouble: a broken
// websocket is dialled again for the same kernel and session (a server
// replays what it buffered for the session meanwhile), a quiet connection
// is probed with pings, and deleting a kernel is retried until the server
// answers.

const (
	// pingEvery is how often a remote websocket is pinged; a connection
	// that brings nothing (not even a pong) for deadAfter is broken.
	pingEvery = 15 * time.Second
	deadAfter = 45 * time.Second
	// maxBackoff bounds the wait between two attempts to reach the server.
	maxBackoff = 2 * time.Second
)

// dialError is a websocket handshake the server answered with an HTTP
// status.
type dialError struct {
	err    error
	status int
}

func (e *dialError) Error() string {
	msg := fmt.Sprintf("open kernel channels: %v (HTTP %d)", e.err, e.status)
	switch e.status {
	case http.StatusNotFound:
		msg += ": the server has no such kernel"
	case http.StatusUnauthorized, http.StatusForbidden:
		msg += ": authentication failed"
	}
	return msg
}

func (e *dialError) Unwrap() error { return e.err }

// socket is the current websocket.
func (c *conn) socket() *websocket.Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ws
}

func (c *conn) isClosing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closing
}

// broken handles a failed read of the websocket: the connection is
// restored (true), or the handler learns that it is lost.
func (c *conn) broken(err error) bool {
	c.mu.Lock()
	ending := make(chan struct{})
	c.lost = ending
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.lost = nil
		c.mu.Unlock()
		close(ending)
	}()
	if err = c.restore(err); err == nil {
		return true
	}
	c.mu.Lock()
	h, closing := c.h, c.closing
	c.mu.Unlock()
	if h != nil && !closing {
		h.onClosed(c, err)
	}
	return false
}

// restore dials the kernel again after its websocket broke with cause,
// with growing pauses, for the server's reconnect window. It returns nil
// when the connection is back; ErrKernelDied when the server answers but
// no longer has the kernel; ErrConnectionLost when the window passed
// without an answer; cause when the connection is not to be restored
// (closing, a local server).
func (c *conn) restore(cause error) error {
	r := c.srv.remote
	if r == nil || r.window <= 0 || c.isClosing() {
		return cause
	}
	deadline := time.Now().Add(r.window)
	delay := 100 * time.Millisecond
	lastErr := cause
	for {
		ctx, cancel := context.WithTimeout(context.Background(), min(time.Until(deadline), 15*time.Second))
		ws, err := c.srv.dialWS(ctx, c.id, c.session)
		cancel()
		if err == nil {
			c.mu.Lock()
			if c.closing {
				c.mu.Unlock()
				_ = ws.Close()
				return cause
			}
			old := c.swapped
			c.ws, c.swapped = ws, make(chan struct{})
			h := c.h
			c.mu.Unlock()
			close(old)
			if rh, ok := h.(interface{ onRestored(*conn) }); ok {
				go rh.onRestored(c)
			}
			return nil
		}
		var de *dialError
		if errors.As(err, &de) {
			switch de.status {
			case http.StatusNotFound:
				return fmt.Errorf("%w: the server no longer has the kernel (it was shut down, or the server was restarted)", ErrKernelDied)
			case http.StatusUnauthorized, http.StatusForbidden:
				return fmt.Errorf("%w: %v", ErrConnectionLost, err)
			}
		}
		lastErr = err
		if !time.Now().Add(delay).Before(deadline) {
			return fmt.Errorf("%w: the server did not answer for %s (%v); the kernel may still run there", ErrConnectionLost, r.window, lastErr)
		}
		if !c.pause(delay) {
			return cause
		}
		delay = min(2*delay, maxBackoff)
	}
}

// settle waits while the kernel's connection is being restored, so that
// what follows sees it back or the kernel dead.
func (k *Kernel) settle(ctx context.Context) {
	k.mu.Lock()
	c := k.c
	k.mu.Unlock()
	if c == nil {
		return
	}
	c.mu.Lock()
	ending := c.lost
	c.mu.Unlock()
	if ending == nil {
		return
	}
	select {
	case <-ending:
	case <-ctx.Done():
	}
}

// pause waits d, or less when the conn is closed meanwhile (false).
func (c *conn) pause(d time.Duration) bool {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if c.isClosing() {
			return false
		}
		time.Sleep(min(100*time.Millisecond, time.Until(end)))
	}
	return !c.isClosing()
}

// awaitRestore waits until the websocket ws, on which a write failed, is
// replaced by a restored one (true), or the conn is done.
func (c *conn) awaitRestore(ws *websocket.Conn) bool {
	if c.srv.remote == nil || c.srv.remote.window <= 0 {
		return false
	}
	c.mu.Lock()
	cur, swapped := c.ws, c.swapped
	c.mu.Unlock()
	if cur != ws {
		return true
	}
	select {
	case <-swapped:
		return true
	case <-c.done:
		return false
	}
}

// keepAlive pings a remote websocket and makes a silent one count as
// broken, so a connection that died without a word (a cable, a sleeping
// laptop) is noticed and restored.
func (c *conn) keepAlive() {
	if c.srv.remote == nil {
		return
	}
	t := time.NewTicker(pingEvery)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
			_ = c.socket().WriteControl(websocket.PingMessage, nil, time.Now().Add(10*time.Second))
		}
	}
}

// armDeadline makes ws fail a read when nothing arrives for deadAfter;
// pongs push the deadline on.
func (c *conn) armDeadline(ws *websocket.Conn) {
	if c.srv.remote == nil {
		return
	}
	_ = ws.SetReadDeadline(time.Now().Add(deadAfter))
	ws.SetPongHandler(func(string) error {
		return ws.SetReadDeadline(time.Now().Add(deadAfter))
	})
}

// onRestored runs when the connection of c came back. The server replays
// the messages it kept for the session; one that kept none (or dropped
// some) may have lost the end of the running cell, which would then wait
// forever: when the kernel stays idle while a cell still waits, the cell
// ends with an error saying so.
func (k *Kernel) onRestored(c *conn) {
	for idleChecks := 0; ; {
		time.Sleep(time.Second)
		k.mu.Lock()
		e, cur, dead := k.cur, k.c, k.dead
		k.mu.Unlock()
		if e == nil || cur != c || dead != nil {
			return
		}
		select {
		case <-e.done:
			return
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var model struct {
			State string `json:"execution_state"`
		}
		err := k.srv.rest(ctx, http.MethodGet, "api/kernels/"+c.id, nil, &model)
		cancel()
		var he *HTTPError
		switch {
		case errors.As(err, &he) && he.Status == http.StatusNotFound, err == nil && model.State == "dead":
			k.markDead(c, fmt.Errorf("%w: it was gone when the connection came back", ErrKernelDied))
			return
		case err == nil && model.State == "idle":
			if idleChecks++; idleChecks >= 2 {
				e.finish(fmt.Errorf("%w: the end of the cell was lost while the connection was broken (the server did not keep the kernel's messages); its output may be incomplete", ErrConnectionLost))
				return
			}
		default:
			idleChecks = 0
		}
	}
}

// deleteKernel shuts kernel id down on the server. On a remote server
// that cannot be reached the request is repeated, with growing pauses,
// for the reconnect window, so a network outage does not leave kernels
// running there. A kernel the server does not know (404) is gone already.
func (s *Server) deleteKernel(ctx context.Context, id string) {
	_ = s.retried(ctx, http.MethodDelete, "api/kernels/"+id, s.window(), true)
}

// window is the reconnect window of a remote server; 0 for a local one.
func (s *Server) window() time.Duration {
	if s.remote == nil || s.remote.window < 0 {
		return 0
	}
	return s.remote.window
}

// retried does a REST call, and repeats it, with growing pauses, while
// the server cannot be reached (or, with retry5xx, answers with a server
// error), for at most window (once when window is 0).
func (s *Server) retried(ctx context.Context, method, path string, window time.Duration, retry5xx bool) error {
	deadline := time.Now().Add(window)
	delay := 100 * time.Millisecond
	for {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := s.rest(rctx, method, path, nil, nil)
		cancel()
		var he *HTTPError
		if err == nil || ctx.Err() != nil || errors.As(err, &he) && (he.Status < 500 || !retry5xx) {
			return err
		}
		if !time.Now().Add(delay).Before(deadline) {
			return err
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return err
		}
		delay = min(2*delay, maxBackoff)
	}
}

// shutdownLater shuts c down in the background; Close waits for it.
func (s *Server) shutdownLater(c *conn) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		c.shutdown(context.Background())
	}()
}

// netDial is how websockets to the server connect: for a remote server
// with TCP_QUICKACK kept on (see quickack_linux.go), nil (the default)
// otherwise.
func (s *Server) netDial() func(ctx context.Context, network, addr string) (net.Conn, error) {
	if s.remote == nil || s.remote.plainTCP {
		return nil
	}
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 15 * time.Second}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return quickAck(c), nil
	}
}
