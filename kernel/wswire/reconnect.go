package wswire

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/gorilla/websocket"

	"github.com/freeact/desktop/kernel/wire"
)

// This file keeps a remote kernel's websocket through network trouble: a
// broken websocket is dialled again for the same kernel and session (a
// server replays what it buffered for the session meanwhile), and a quiet
// connection is probed with pings.

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

// broken handles a failed read of the websocket: the connection is
// restored (true), or the sink learns that it is lost.
func (c *Conn) broken(err error) bool {
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
	c.sink.Lost(err)
	return false
}

// restore dials the kernel again after its websocket broke with cause,
// with growing pauses, for the reconnect window. It returns nil when the
// connection is back; wire.ErrKernelDied when the server answers but no
// longer has the kernel; wire.ErrConnectionLost when the window passed
// without an answer; cause when the connection is not to be restored
// (closing, no window).
func (c *Conn) restore(cause error) error {
	window := c.opts.Window
	if window <= 0 || c.sink.Closing() {
		return cause
	}
	deadline := time.Now().Add(window)
	delay := 100 * time.Millisecond
	lastErr := cause
	for {
		ctx, cancel := context.WithTimeout(context.Background(), min(time.Until(deadline), 15*time.Second))
		ws, err := Dial(ctx, c.opts, c.id, c.session)
		cancel()
		if err == nil {
			c.mu.Lock()
			if c.sink.Closing() {
				c.mu.Unlock()
				_ = ws.Close()
				return cause
			}
			old := c.swapped
			c.ws, c.swapped = ws, make(chan struct{})
			c.mu.Unlock()
			close(old)
			c.sink.Restored()
			return nil
		}
		var de *dialError
		if errors.As(err, &de) {
			switch de.status {
			case http.StatusNotFound:
				return fmt.Errorf("%w: the server no longer has the kernel (it was shut down, or the server was restarted)", wire.ErrKernelDied)
			case http.StatusUnauthorized, http.StatusForbidden:
				return fmt.Errorf("%w: %v", wire.ErrConnectionLost, err)
			}
		}
		lastErr = err
		if !time.Now().Add(delay).Before(deadline) {
			return fmt.Errorf("%w: the server did not answer for %s (%v); the kernel may still run there", wire.ErrConnectionLost, window, lastErr)
		}
		if !c.pause(delay) {
			return cause
		}
		delay = min(2*delay, maxBackoff)
	}
}

// pause waits d, or less when the session closes meanwhile (false).
func (c *Conn) pause(d time.Duration) bool {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if c.sink.Closing() {
			return false
		}
		time.Sleep(min(100*time.Millisecond, time.Until(end)))
	}
	return !c.sink.Closing()
}

// awaitRestore waits until the websocket ws, on which a write failed, is
// replaced by a restored one (true), or the conn is done.
func (c *Conn) awaitRestore(ws *websocket.Conn) bool {
	if c.opts.Window <= 0 {
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
func (c *Conn) keepAlive() {
	if !c.opts.KeepAlive {
		return
	}
	t := time.NewTicker(pingEvery)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
			_ = c.Socket().WriteControl(websocket.PingMessage, nil, time.Now().Add(10*time.Second))
		}
	}
}

// armDeadline makes ws fail a read when nothing arrives for deadAfter;
// pongs push the deadline on.
func (c *Conn) armDeadline(ws *websocket.Conn) {
	if !c.opts.KeepAlive {
		return
	}
	_ = ws.SetReadDeadline(time.Now().Add(deadAfter))
	ws.SetPongHandler(func(string) error {
		return ws.SetReadDeadline(time.Now().Add(deadAfter))
	})
}

// QuickAckDial is a NetDial that keeps TCP_QUICKACK on (see
// quickack_linux.go).
func QuickAckDial() func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 15 * time.Second}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return quickAck(c), nil
	}
}
