package kernel

import (
	"bytes"
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
)

//go:embed hooks/freeact_kernel.py
var hookSource string

// message is a Jupyter protocol message the host sends, in the websocket
// JSON form.
type message struct {
	Header       header          `json:"header"`
	ParentHeader json.RawMessage `json:"parent_header"`
	Metadata     map[string]any  `json:"metadata"`
	Content      json.RawMessage `json:"content"`
	Channel      string          `json:"channel"`
	Buffers      []any           `json:"buffers"`
}

type header struct {
	MsgID    string `json:"msg_id"`
	MsgType  string `json:"msg_type"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	Version  string `json:"version"`
}

// received is a message from the kernel, decoded once from its websocket
// frame: the content goes straight into the fields the host reads, so the
// text of a stream message is unquoted once, from the frame. (Content kept
// raw, copied, and decoded again by its reader cost twice the work: 15 ms
// of processor time per MB of output.)
type received struct {
	Header       header  `json:"header"`
	ParentHeader header  `json:"parent_header"`
	Channel      string  `json:"channel"`
	Content      content `json:"content"`
}

// content holds the fields of message contents the host reads; each is
// set by the message types named beside it, and the rest of a content is
// skipped.
type content struct {
	Name            string                     `json:"name"`            // stream: stdout or stderr
	Text            string                     `json:"text"`            // stream
	ExecutionState  string                     `json:"execution_state"` // status
	Status          string                     `json:"status"`          // execute_reply: ok, error or aborted
	EName           string                     `json:"ename"`           // execute_reply, error
	EValue          string                     `json:"evalue"`          // execute_reply, error
	Traceback       []string                   `json:"traceback"`       // execute_reply, error
	UserExpressions map[string]expressionReply `json:"user_expressions"`
	Data            map[string]json.RawMessage `json:"data"`     // execute_result, display_data
	Prompt          string                     `json:"prompt"`   // input_request
	Password        bool                       `json:"password"` // input_request
}

// decodeReceived decodes a websocket frame. A field of a type the host
// does not expect (another message type's content may use its name) is
// left unset, and the rest of the message is kept.
func decodeReceived(frame []byte) (*received, error) {
	m := new(received)
	err := json.Unmarshal(frame, m)
	if !wrongFieldType(err) || err != nil && m.Header.MsgType == "" {
		return nil, err
	}
	return m, nil
}

// wrongFieldType reports whether err is nil or only says that a field had
// another type than the host expects (the rest is decoded).
func wrongFieldType(err error) bool {
	var typeErr *json.UnmarshalTypeError
	return err == nil || errors.As(err, &typeErr)
}

// handler receives what a conn reads. All methods run on the conn's reader
// goroutine.
type handler interface {
	onMessage(c *conn, m *received)
	onClosed(c *conn, err error)
}

// conn is one kernel (by id) and its channels websocket.
type conn struct {
	srv     *Server
	z       *zmqKernel // set for a kernel we launched (zmq.go); ws is nil then
	id      string
	session string
	wmu     sync.Mutex
	dmu     sync.Mutex // one message handled at a time

	mu      sync.Mutex
	ws      *websocket.Conn // replaced when a remote connection is restored
	swapped chan struct{}   // closed when ws is replaced
	lost    chan struct{}   // while the connection is being restored: closed when that ends
	h       handler
	waiters map[string]chan *received // shell replies of internal requests
	closing bool
	done    chan struct{}
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
	ws, err := s.dialWS(ctx, id, session)
	if err != nil {
		return nil, err
	}
	c := &conn{srv: s, id: id, session: session, ws: ws, swapped: make(chan struct{}), waiters: map[string]chan *received{}, done: make(chan struct{})}
	go c.read()
	go c.keepAlive()
	return c, nil
}

// dialWS opens a channels websocket of kernel id for session: a server
// that buffered the kernel's messages for the session while it had no
// websocket replays them.
func (s *Server) dialWS(ctx context.Context, id, session string) (*websocket.Conn, error) {
	ep := s.ep.Load()
	u := *ep.base
	if u.Scheme == "https" {
		u.Scheme = "wss"
	} else {
		u.Scheme = "ws"
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/api/kernels/" + url.PathEscape(id) + "/channels"
	u.RawQuery = "session_id=" + session
	d := websocket.Dialer{
		HandshakeTimeout: 30 * time.Second,
		TLSClientConfig:  s.tls,
		ReadBufferSize:   64 << 10,
		WriteBufferSize:  64 << 10,
		NetDialContext:   s.netDial(),
		Subprotocols:     []string{wsProtocolV1},
	}
	hdr := http.Header{}
	ep.authorize(hdr)
	ws, resp, err := d.DialContext(ctx, u.String(), hdr)
	if err != nil {
		if resp != nil {
			return nil, s.redact(&dialError{err: err, status: resp.StatusCode})
		}
		return nil, s.redact(fmt.Errorf("open kernel channels: %w", err))
	}
	return ws, nil
}

func (c *conn) setHandler(h handler) {
	c.mu.Lock()
	c.h = h
	c.mu.Unlock()
}

func (c *conn) read() {
	defer close(c.done)
	// One read buffer, reused: messages are decoded (and copied) before the
	// next read. Big outputs arrive as 1 MiB stream messages (see the hooks).
	var buf bytes.Buffer
	for {
		buf.Reset()
		if buf.Cap() > 4<<20 {
			buf = bytes.Buffer{}
		}
		ws := c.socket()
		c.armDeadline(ws)
		typ, r, err := ws.NextReader()
		if err == nil {
			_, err = buf.ReadFrom(r)
		}
		data := buf.Bytes()
		if err != nil {
			if c.broken(err) {
				continue
			}
			return
		}
		decode := decodeReceived
		if typ == websocket.BinaryMessage {
			decode = decodeV1
		}
		m, err := decode(data)
		if err != nil {
			continue // not a protocol message; nothing to route it to
		}
		c.dispatch(m)
	}
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
var errTooBig = errors.New("message exceeds the Jupyter server's websocket message limit")

func (c *conn) send(m *message) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.z != nil {
		return c.sendLocal(m)
	}
	for retried := false; ; retried = true {
		ws := c.socket()
		typ, b, err := encodeFor(ws, m)
		if err != nil {
			return fmt.Errorf("send %s: %w", m.Header.MsgType, err)
		}
		if int64(len(b)) > c.srv.maxMessage {
			return fmt.Errorf("send %s of %d bytes: %w (%d bytes)", m.Header.MsgType, len(b), errTooBig, c.srv.maxMessage)
		}
		_ = ws.SetWriteDeadline(time.Now().Add(30 * time.Second))
		err = ws.WriteMessage(typ, b)
		if err == nil {
			return nil
		}
		// A broken remote connection is being restored: send on the new
		// one once it is there.
		if retried || !c.awaitRestore(ws) {
			return fmt.Errorf("send %s: %w", m.Header.MsgType, err)
		}
	}
}

// encodeFor frames m in the protocol the server chose for ws.
func encodeFor(ws *websocket.Conn, m *message) (int, []byte, error) {
	if ws.Subprotocol() == wsProtocolV1 {
		b, err := encodeV1(m)
		return websocket.BinaryMessage, b, err
	}
	b, err := json.Marshal(m)
	return websocket.TextMessage, b, err
}

// executeSilent runs internal code (hooks, configuration) and waits for its
// execute_reply; an error reply is returned as an error.
func (c *conn) executeSilent(ctx context.Context, code string) error {
	_, err := c.silent(ctx, code, nil)
	return err
}

// expressionReply is the value of one user expression: its display data, or
// the error it raised.
type expressionReply struct {
	Status string                     `json:"status"`
	Data   map[string]json.RawMessage `json:"data"`
	EName  string                     `json:"ename"`
	EValue string                     `json:"evalue"`
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
	ws := c.ws
	c.mu.Unlock()
	_ = ws.Close()
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
