package kernel

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/freeact/desktop/kernel/wswire"
)

// This file keeps a remote kernel through network trouble on the server's
// side: a cell whose end was lost while the websocket was restored
// (kernel/wswire restores it) is ended, and deleting a kernel is retried
// until the server answers.

// maxBackoff bounds the wait between two attempts to reach the server.
const maxBackoff = 2 * time.Second

// settle waits while the kernel's connection is being restored, so that
// what follows sees it back or the kernel dead.
func (k *Kernel) settle(ctx context.Context) {
	k.mu.Lock()
	c := k.c
	k.mu.Unlock()
	if c == nil || c.ws == nil {
		return
	}
	ending := c.ws.Restoring()
	if ending == nil {
		return
	}
	select {
	case <-ending:
	case <-ctx.Done():
	}
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
// with TCP_QUICKACK kept on (see kernel/wswire/quickack_linux.go), nil (the default)
// otherwise.
func (s *Server) netDial() func(ctx context.Context, network, addr string) (net.Conn, error) {
	if s.remote == nil || s.remote.plainTCP {
		return nil
	}
	return wswire.QuickAckDial()
}
