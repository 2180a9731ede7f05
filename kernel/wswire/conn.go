// Package wswire is the remote transport: the channels websocket of a
// kernel behind a Jupyter server (a remote one, or the local
// jupyter_server the host started), in Jupyter's binary v1 protocol or its
// JSON text form, and keeping that websocket through network trouble: a
// broken websocket is dialled again for the same kernel and session (a
// server replays what it buffered for the session meanwhile), a quiet
// connection is probed with pings.
//
// The REST side of a server (starting, interrupting, restarting and
// deleting kernels) and the session over the channels stay with the
// kernel package.
package wswire

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/freeact/desktop/kernel/wire"
)

// Options say how to reach a server's kernel channels.
type Options struct {
	// Endpoint gives, for each dial, the server's base URL and the
	// headers (authorization) of the handshake.
	Endpoint func() (*url.URL, http.Header)
	TLS      *tls.Config
	// NetDial dials the TCP connection; nil for the default.
	NetDial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Redact hides the server's secrets in an error; nil for none.
	Redact func(error) error
	// MaxMessage is the largest message the server accepts.
	MaxMessage int64
	// Window is how long a broken websocket is dialled again before the
	// kernel counts as lost; <= 0: never.
	Window time.Duration
	// KeepAlive pings the websocket and makes a silent one count as
	// broken (a remote server).
	KeepAlive bool
}

// Sink is the session a Conn delivers to. Its methods run on the Conn's
// reader goroutine.
type Sink interface {
	// Deliver hands over a message from the kernel.
	Deliver(m *wire.Received)
	// Closing reports whether the session is being shut down or
	// restarted: a broken websocket is then not restored.
	Closing() bool
	// Lost says the websocket broke and was not restored, and why.
	Lost(err error)
	// Restored says a broken websocket was replaced by a new one.
	Restored()
}

// ErrTooBig: the message is over the server's websocket message limit;
// sending it would make the server close the connection.
var ErrTooBig = errors.New("message exceeds the Jupyter server's websocket message limit")

// Conn is the channels websocket of one kernel, restored when it breaks.
type Conn struct {
	opts    *Options
	sink    Sink
	id      string
	session string
	wmu     sync.Mutex

	mu      sync.Mutex
	ws      *websocket.Conn // replaced when a remote connection is restored
	swapped chan struct{}   // closed when ws is replaced
	lost    chan struct{}   // while the connection is being restored: closed when that ends
	done    chan struct{}
}

// Open opens the channels websocket of kernel id for session, and starts
// reading it into sink.
func Open(ctx context.Context, opts *Options, id, session string, sink Sink) (*Conn, error) {
	ws, err := Dial(ctx, opts, id, session)
	if err != nil {
		return nil, err
	}
	c := &Conn{opts: opts, sink: sink, id: id, session: session, ws: ws, swapped: make(chan struct{}), done: make(chan struct{})}
	go c.read()
	go c.keepAlive()
	return c, nil
}

// Dial opens a channels websocket of kernel id for session: a server
// that buffered the kernel's messages for the session while it had no
// websocket replays them.
func Dial(ctx context.Context, opts *Options, id, session string) (*websocket.Conn, error) {
	base, hdr := opts.Endpoint()
	u := *base
	if u.Scheme == "https" {
		u.Scheme = "wss"
	} else {
		u.Scheme = "ws"
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/api/kernels/" + url.PathEscape(id) + "/channels"
	u.RawQuery = "session_id=" + session
	d := websocket.Dialer{
		HandshakeTimeout: 30 * time.Second,
		TLSClientConfig:  opts.TLS,
		ReadBufferSize:   64 << 10,
		WriteBufferSize:  64 << 10,
		NetDialContext:   opts.NetDial,
		Subprotocols:     []string{ProtocolV1},
	}
	ws, resp, err := d.DialContext(ctx, u.String(), hdr)
	if err != nil {
		if resp != nil {
			return nil, opts.redact(&dialError{err: err, status: resp.StatusCode})
		}
		return nil, opts.redact(fmt.Errorf("open kernel channels: %w", err))
	}
	return ws, nil
}

func (o *Options) redact(err error) error {
	if o.Redact == nil {
		return err
	}
	return o.Redact(err)
}

// Done is closed when the reader stopped: the websocket is gone for good.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Socket is the current websocket.
func (c *Conn) Socket() *websocket.Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ws
}

// Restoring is closed when a restore under way ends; nil when none is.
func (c *Conn) Restoring() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lost
}

// Close closes the current websocket; the reader then stops unless it is
// restored (which a Sink that is Closing prevents).
func (c *Conn) Close() {
	_ = c.Socket().Close()
}

var _ wire.Link = (*Conn)(nil)

func (c *Conn) read() {
	defer close(c.done)
	// One read buffer, reused: messages are decoded (and copied) before the
	// next read. Big outputs arrive as 1 MiB stream messages (see the hooks).
	var buf bytes.Buffer
	for {
		buf.Reset()
		if buf.Cap() > 4<<20 {
			buf = bytes.Buffer{}
		}
		ws := c.Socket()
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
		decode := wire.DecodeReceived
		if typ == websocket.BinaryMessage {
			decode = decodeV1
		}
		m, err := decode(data)
		if err != nil {
			continue // not a protocol message; nothing to route it to
		}
		c.sink.Deliver(m)
	}
}

// Send sends m, framed in the protocol the server chose; a message over
// the server's limit is not sent (ErrTooBig). While a broken websocket is
// being restored, m is sent on the new one once it is there.
func (c *Conn) Send(m *wire.Message) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	for retried := false; ; retried = true {
		ws := c.Socket()
		typ, b, err := encodeFor(ws, m)
		if err != nil {
			return fmt.Errorf("send %s: %w", m.Header.MsgType, err)
		}
		if int64(len(b)) > c.opts.MaxMessage {
			return fmt.Errorf("send %s of %d bytes: %w (%d bytes)", m.Header.MsgType, len(b), ErrTooBig, c.opts.MaxMessage)
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
func encodeFor(ws *websocket.Conn, m *wire.Message) (int, []byte, error) {
	if ws.Subprotocol() == ProtocolV1 {
		b, err := encodeV1(m)
		return websocket.BinaryMessage, b, err
	}
	b, err := json.Marshal(m)
	return websocket.TextMessage, b, err
}
