package kernel

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/freeact/desktop/kernel/wire"
	"github.com/freeact/desktop/kernel/wswire"
)

//go:embed hooks/freeact_kernel.py
var hookSource string

// The Jupyter messages as the host sends and reads them (kernel/wire).
type (
	message  = wire.Message
	header   = wire.Header
	received = wire.Received
	content  = wire.Content
)

// handler receives what a conn reads. All methods run on the conn's reader
// goroutine.
type handler interface {
	onMessage(c *conn, m *received)
	onClosed(c *conn, err error)
}

// conn is one kernel (by id) and the session over its channels: the
// ZeroMQ channels of a kernel we launched (z, kernel/zmqwire), or the
// channels websocket of a kernel behind a server (ws, kernel/wswire).
type conn struct {
	srv     *Server
	z       *zmqKernel   // set for a kernel we launched (zmq.go); ws is nil then
	ws      *wswire.Conn // set for a kernel behind a server
	link    wire.Link    // z's channels or ws: what messages are sent on
	id      string
	session string
	wmu     sync.Mutex
	dmu     sync.Mutex // one message handled at a time

	mu      sync.Mutex
	h       handler
	waiters map[string]chan *received // shell replies of internal requests
	closing bool
	done    <-chan struct{}
	// ended says why done was closed, when known (a local kernel's death).
	ended error
}

// closedError is the error of a request whose connection closed: why,
// when it is known.
func (c *conn) closedError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.ended != nil:
		return fmt.Errorf("kernel connection closed: %w", c.ended)
	case c.closing:
		return errors.New("kernel connection closed: the kernel was shut down")
	}
	return errors.New("kernel connection closed")
}

// startConn starts a kernel (a local one directly, else over REST, with its
// channels websocket) and loads the hooks.
func (s *Server) startConn(ctx context.Context) (*conn, error) {
	if s.spec != nil {
		return s.startLocalRetried(ctx, randomHex(16))
	}
	body := s.startBody()
	var model struct {
		ID string `json:"id"`
	}
	if err := s.rest(ctx, http.MethodPost, "api/kernels", body, &model); err != nil {
		return nil, fmt.Errorf("start kernel: %w", err)
	}
	c, err := s.dial(ctx, model.ID)
	if err != nil {
		s.deleteKernel(context.Background(), model.ID)
		return nil, fmt.Errorf("start kernel: %w", err)
	}
	if err := c.loadHooks(ctx); err != nil {
		c.shutdown(context.Background())
		return nil, fmt.Errorf("start kernel: %w", err)
	}
	return c, nil
}

// dial opens the channels websocket of kernel id.
func (s *Server) dial(ctx context.Context, id string) (*conn, error) {
	session := randomHex(16)
	c := &conn{srv: s, id: id, session: session, waiters: map[string]chan *received{}}
	ws, err := wswire.Open(ctx, s.wireOptions(), id, session, c)
	if err != nil {
		return nil, err
	}
	c.ws, c.link, c.done = ws, ws, ws.Done()
	return c, nil
}

// wireOptions say how the server's kernel channels are reached.
func (s *Server) wireOptions() *wswire.Options {
	return &wswire.Options{
		Endpoint: func() (*url.URL, http.Header) {
			ep := s.ep.Load()
			hdr := http.Header{}
			ep.authorize(hdr)
			return ep.base, hdr
		},
		TLS:        s.tls,
		NetDial:    s.netDial(),
		Redact:     s.redact,
		MaxMessage: s.maxMessage,
		Window:     s.window(),
		KeepAlive:  s.remote != nil,
	}
}

// socket is the current websocket of a kernel behind a server.
func (c *conn) socket() *websocket.Conn { return c.ws.Socket() }

func (c *conn) isClosing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closing
}

// Deliver, Closing, Lost and Restored make c the wswire.Sink of its
// websocket.

func (c *conn) Deliver(m *received) { c.dispatch(m) }

func (c *conn) Closing() bool { return c.isClosing() }

func (c *conn) Lost(err error) {
	c.mu.Lock()
	h, closing := c.h, c.closing
	c.mu.Unlock()
	if h != nil && !closing {
		h.onClosed(c, err)
	}
}

func (c *conn) Restored() {
	c.mu.Lock()
	h := c.h
	c.mu.Unlock()
	if rh, ok := h.(interface{ onRestored(*conn) }); ok {
		go rh.onRestored(c)
	}
}

func (c *conn) setHandler(h handler) {
	c.mu.Lock()
	c.h = h
	c.mu.Unlock()
}

// dispatch routes a message from the kernel: a reply to an internal
// request to its waiter, the rest to the handler, one at a time (a local
// kernel's channels have a reader each).
func (c *conn) dispatch(m *received) {
	c.dmu.Lock()
	defer c.dmu.Unlock()
	if m.Channel == "shell" || m.Channel == "control" {
		c.mu.Lock()
		w := c.waiters[m.ParentHeader.MsgID]
		c.mu.Unlock()
		if w != nil {
			w <- m
			return
		}
	}
	c.mu.Lock()
	h := c.h
	c.mu.Unlock()
	if h != nil {
		h.onMessage(c, m)
	}
}

// newMessage builds a message from this conn's session.
func (c *conn) newMessage(channel, msgType string, content any, parent *header) (*message, error) {
	raw, err := json.Marshal(content)
	if err != nil {
		return nil, err
	}
	m := &message{
		Header: header{
			MsgID:    randomHex(16),
			MsgType:  msgType,
			Session:  c.session,
			Username: "freeact",
			Date:     time.Now().UTC().Format(time.RFC3339Nano),
			Version:  "5.3",
		},
		ParentHeader: json.RawMessage("{}"),
		Metadata:     map[string]any{},
		Content:      raw,
		Channel:      channel,
		Buffers:      []any{},
	}
	if parent != nil {
		if m.ParentHeader, err = json.Marshal(parent); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// errTooBig: the message is over the server's websocket message limit;
// sending it would make the server close the connection.
var errTooBig = wswire.ErrTooBig

func (c *conn) send(m *message) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.link.Send(m)
}

// executeSilent runs internal code (hooks, configuration) and waits for its
// execute_reply; an error reply is returned as an error.
func (c *conn) executeSilent(ctx context.Context, code string) error {
	_, err := c.silent(ctx, code, nil)
	return err
}

// silent runs code as a silent execution (no output, no history, no
// execution count) with user expressions evaluated after it, and returns
// the reply; an error reply is returned as an error.
func (c *conn) silent(ctx context.Context, code string, exprs map[string]any) (*content, error) {
	if exprs == nil {
		exprs = map[string]any{}
	}
	m, err := c.newMessage("shell", "execute_request", map[string]any{
		"code": code, "silent": true, "store_history": false,
		"user_expressions": exprs, "allow_stdin": false, "stop_on_error": false,
	}, nil)
	if err != nil {
		return nil, err
	}
	r, err := c.await(ctx, m)
	if err != nil {
		return nil, err
	}
	if rep := &r.Content; rep.Status != "ok" {
		return nil, fmt.Errorf("%s: %s\n%s", rep.EName, rep.EValue, stripANSI(strings.Join(rep.Traceback, "\n")))
	}
	return &r.Content, nil
}

// loadHooks installs freeact_kernel as a module and IPython extension.
func (c *conn) loadHooks(ctx context.Context) error {
	code := moduleCode("freeact_kernel", hookSource) + `get_ipython().extension_manager.load_extension("freeact_kernel")
`
	if err := c.executeSilent(ctx, code); err != nil {
		return fmt.Errorf("load kernel hooks: %w", err)
	}
	return nil
}

// shutdown closes the websocket and deletes the kernel on the server.
func (c *conn) shutdown(ctx context.Context) {
	if c.z != nil {
		c.shutdownLocal()
		return
	}
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	c.ws.Close()
	c.srv.deleteKernel(ctx, c.id)
}

func (c *conn) interrupt(ctx context.Context) error {
	if c.z != nil {
		return c.interruptLocal(ctx)
	}
	// Through a blip: an interrupt that does not arrive would cost the kernel.
	if err := c.srv.retried(ctx, http.MethodPost, "api/kernels/"+c.id+"/interrupt", c.srv.window(), false); err != nil {
		return fmt.Errorf("interrupt kernel: %w", err)
	}
	return nil
}

// initPool starts the first spare kernel when the warm pool is on, or with
// WarmAfter the timer that starts it once the server is idle.
func (s *Server) initPool() {
	if !s.warm {
		return
	}
	s.spare = make(chan spareKernel, 1)
	if s.warmAfter <= 0 {
		s.warmed = true
		s.refill()
		return
	}
	s.touch()
	s.mu.Lock()
	s.idle = time.AfterFunc(s.warmAfter, s.warmWhenIdle)
	s.mu.Unlock()
}

// touch notes that the server is in use (a kernel start, a cell).
func (s *Server) touch() { s.lastUse.Store(time.Now().UnixNano()) }

// warmWhenIdle starts the spare when the server has been idle for
// WarmAfter, else looks again when it will have been.
func (s *Server) warmWhenIdle() {
	if left := s.warmAfter - time.Since(time.Unix(0, s.lastUse.Load())); left > 0 {
		s.mu.Lock()
		if !s.closed && !s.warmed {
			s.idle.Reset(left)
		}
		s.mu.Unlock()
		return
	}
	s.Warm()
}

// Warm starts the warm pool's first spare kernel now, if the pool holds it
// back (ServerOptions.WarmAfter) and has not started it yet. It does not
// wait for the kernel. Call it when kernels will soon be wanted (the first
// subagent).
func (s *Server) Warm() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spare == nil || s.warmed || s.closed {
		return
	}
	s.warmed = true
	if s.idle != nil {
		s.idle.Stop()
	}
	s.refill()
}

func (s *Server) refill() {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		c, err := s.startConn(ctx)
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		if closed && c != nil {
			c.shutdown(context.Background())
			c = nil
		}
		s.spare <- spareKernel{c: c, err: err}
	}()
}

// takeConn returns a started kernel: the spare one if the pool has one
// (refilling it), else a new one.
func (s *Server) takeConn(ctx context.Context) (*conn, error) {
	s.touch()
	s.mu.Lock()
	cold := s.spare == nil || !s.warmed
	s.mu.Unlock()
	if cold {
		return s.startConn(ctx)
	}
	select {
	case sk := <-s.spare:
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		if !closed {
			s.refill()
		}
		if sk.err != nil || sk.c == nil {
			return s.startConn(ctx)
		}
		select {
		case <-sk.c.done: // died while waiting in the pool
			s.shutdownLater(sk.c)
			return s.startConn(ctx)
		default:
		}
		return sk.c, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
