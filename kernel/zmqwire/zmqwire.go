// Package zmqwire is the local transport: the channels of a kernel process
// the host launched itself (`python -m ipykernel_launcher -f
// CONNECTION_FILE`), reached over ZeroMQ with the Jupyter wire protocol,
// with no Jupyter server between the host and it. The ZeroMQ library is
// the pure-Go github.com/go-zeromq/zmq4: no libzmq to depend on, and it has
// what a client needs (DEALER, SUB, the tcp and ipc transports).
//
// It owns the connection file's fields, dialling and signing, one reader
// per channel and the heartbeat. Launching the process, its sandbox and
// the session over the channels stay with the kernel package.
package zmqwire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/freeact/desktop/internal/jupyterwire"
	"github.com/freeact/desktop/kernel/wire"
)

// ErrExited is why a local kernel did not start when its process exited
// before it answered.
var ErrExited = errors.New("the kernel exited during startup")

// Info is a kernel's connection file.
type Info struct {
	Transport       string `json:"transport"`
	IP              string `json:"ip"`
	ShellPort       int    `json:"shell_port"`
	IOPubPort       int    `json:"iopub_port"`
	StdinPort       int    `json:"stdin_port"`
	ControlPort     int    `json:"control_port"`
	HBPort          int    `json:"hb_port"`
	Key             string `json:"key"`
	SignatureScheme string `json:"signature_scheme"`
	KernelName      string `json:"kernel_name"`
}

// Endpoint is the ZeroMQ address of port.
func (ci *Info) Endpoint(port int) string {
	if ci.Transport == "ipc" {
		return "ipc://" + ci.IP + "-" + strconv.Itoa(port)
	}
	return "tcp://" + ci.IP + ":" + strconv.Itoa(port)
}

// Heartbeat: a ping every hbEvery. ipykernel answers from a thread of its
// own that needs no interpreter lock, so a silent heartbeat means a frozen
// process: dead when silent for hbDead while the process is stopped, or
// for hbStarved whatever its state (a process that waits for the processor
// on a loaded machine, niced, can miss a second of beats and is not dead).
// A kernel whose process exits is noticed at once.
const (
	hbEvery   = 250 * time.Millisecond
	hbDead    = time.Second
	hbStarved = 5 * time.Second
)

// channelTypes are the ZeroMQ socket types of the channels we connect.
var channelTypes = []struct {
	name string
	new  func(context.Context, ...zmq4.Option) zmq4.Socket
}{
	{"shell", zmq4.NewDealer}, {"control", zmq4.NewDealer}, {"stdin", zmq4.NewDealer},
	{"iopub", zmq4.NewSub},
	// DEALER, not REQ: a missed beat must not leave the socket waiting
	// for a reply forever (the kernel's ROUTER echoes to either).
	{"hb", zmq4.NewDealer},
}

// Channels are the connected channels of one kernel.
type Channels struct {
	signer  *jupyterwire.Signer
	sockets map[string]zmq4.Socket // shell, control, stdin, iopub, hb
	cancel  context.CancelFunc
}

// Dial connects the channels of the kernel at info for session, and
// subscribes to its iopub channel. The kernel binds its sockets a moment
// after it starts: a refused dial is tried again until deadline, or until
// exited closes (the process is gone; tail says what it printed).
func Dial(ctx context.Context, info Info, session string, exited <-chan struct{}, deadline time.Time, tail func() string) (_ *Channels, err error) {
	sctx, cancel := context.WithCancel(context.Background())
	ch := &Channels{signer: jupyterwire.NewSigner([]byte(info.Key)), sockets: map[string]zmq4.Socket{}, cancel: cancel}
	defer func() {
		if err != nil {
			ch.Close()
		}
	}()
	ports := map[string]int{"shell": info.ShellPort, "control": info.ControlPort, "stdin": info.StdinPort,
		"iopub": info.IOPubPort, "hb": info.HBPort}
	// The kernel's ROUTERs send stdin requests to the identity of the
	// shell socket the request came from: stdin shares it.
	id := zmq4.WithID(zmq4.SocketIdentity(session))
	for _, ct := range channelTypes {
		sock := ct.new(sctx, id, zmq4.WithDialerMaxRetries(0), zmq4.WithTimeout(30*time.Second))
		ch.sockets[ct.name] = sock
		// The kernel binds its sockets some 100 ms after it starts.
		for delay := 2 * time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
			err := sock.Dial(info.Endpoint(ports[ct.name]))
			if err == nil {
				break
			}
			select {
			case <-exited:
				return nil, fmt.Errorf("%w: %s", ErrExited, tail())
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(delay):
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("the kernel did not open its %s channel within 60 s: %v: %s", ct.name, err, tail())
			}
		}
	}
	if err := ch.Subscribe(); err != nil {
		return nil, fmt.Errorf("subscribe to the kernel's iopub channel: %w", err)
	}
	return ch, nil
}

// Subscribe (again) to everything the kernel publishes on iopub.
func (ch *Channels) Subscribe() error {
	return ch.sockets["iopub"].SetOption(zmq4.OptionSubscribe, "")
}

// Start starts a reader for each of the shell, control, stdin and iopub
// channels, which hands each message to deliver until its socket closes.
// deliver runs on the four readers' goroutines.
func (ch *Channels) Start(deliver func(*wire.Received)) {
	for _, name := range []string{"shell", "control", "stdin", "iopub"} {
		go ch.read(name, deliver)
	}
}

// read reads channel name until its socket closes.
func (ch *Channels) read(name string, deliver func(*wire.Received)) {
	sock := ch.sockets[name]
	for {
		msg, err := sock.Recv()
		if err != nil {
			return // the kernel is gone or the socket closed: Watch reports it
		}
		_, parts, err := ch.signer.Decode(msg.Frames)
		if err != nil {
			continue // unsigned or not a protocol message: dropped
		}
		m, err := wire.DecodeParts(name, parts.Header, parts.Parent, parts.Content)
		if err != nil {
			continue
		}
		deliver(m)
	}
}

// Watch waits for the kernel process pid to exit (exited closes: true) or
// its heartbeat to stop (false, with how long it has been silent).
func (ch *Channels) Watch(exited <-chan struct{}, pid int) (gone bool, silent time.Duration) {
	hb := ch.sockets["hb"]
	beats := make(chan struct{}, 1)
	go func() {
		for {
			if _, err := hb.Recv(); err != nil {
				return
			}
			select {
			case beats <- struct{}{}:
			default:
			}
		}
	}()
	tick := time.NewTicker(hbEvery)
	defer tick.Stop()
	last := time.Now()
	for {
		select {
		case <-exited:
			return true, 0
		case <-beats:
			last = time.Now()
		case <-tick.C:
			if silent := time.Since(last); silent > hbStarved || silent > hbDead && Stopped(pid) {
				return false, silent
			}
			_ = hb.Send(zmq4.NewMsgString("ping"))
		}
	}
}

// Stopped reports whether process pid is stopped (by a signal or a
// tracer), as /proc says; false where there is no /proc.
func Stopped(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name, which may hold ") " itself.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && (b[i+2] == 'T' || b[i+2] == 't')
}

// Send signs and sends m on its channel. Sends are not safe for
// concurrent use: the caller sends one message at a time.
func (ch *Channels) Send(m *wire.Message) error {
	p, err := wire.EncodeParts(m)
	if err != nil {
		return fmt.Errorf("send %s: %w", m.Header.MsgType, err)
	}
	sock := ch.sockets[m.Channel]
	if sock == nil {
		return fmt.Errorf("send %s: no %s channel", m.Header.MsgType, m.Channel)
	}
	if err := sock.SendMulti(zmq4.NewMsgFrom(ch.signer.Encode(p)...)); err != nil {
		return fmt.Errorf("send %s: %w", m.Header.MsgType, err)
	}
	return nil
}

var _ wire.Link = (*Channels)(nil)

// Close closes the channels; their readers and Watch's heartbeat end.
func (ch *Channels) Close() {
	ch.cancel()
	for _, s := range ch.sockets {
		_ = s.Close()
	}
}
