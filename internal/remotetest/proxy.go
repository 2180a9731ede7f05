package remotetest

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// Proxy forwards TCP connections from a port of its own to a server, and
// can cut them all for a while, as a network blip would.
type Proxy struct {
	Addr string // host:port to connect to instead of the server

	target string
	l      net.Listener

	mu      sync.Mutex
	conns   map[net.Conn]bool
	downTil time.Time
	wg      sync.WaitGroup
}

// NewProxy forwards to target (host:port) until the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: l.Addr().String(), target: target, l: l, conns: map[net.Conn]bool{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.Close)
	return p
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := time.Now().Before(p.downTil)
		p.mu.Unlock()
		if down {
			c.Close() // the network is "down": the client sees the connection fail
			continue
		}
		p.wg.Add(1)
		go p.forward(c)
	}
}

func (p *Proxy) forward(c net.Conn) {
	defer p.wg.Done()
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns[c], p.conns[s] = true, true
	p.mu.Unlock()
	var once sync.Once
	done := func() {
		once.Do(func() {
			c.Close()
			s.Close()
			p.mu.Lock()
			delete(p.conns, c)
			delete(p.conns, s)
			p.mu.Unlock()
		})
	}
	go func() { _, _ = io.Copy(s, c); done() }()
	_, _ = io.Copy(c, s)
	done()
}

// Blip cuts every connection now and refuses new ones for d.
func (p *Proxy) Blip(d time.Duration) {
	p.mu.Lock()
	p.downTil = time.Now().Add(d)
	conns := make([]net.Conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// Up ends a blip now.
func (p *Proxy) Up() {
	p.mu.Lock()
	p.downTil = time.Time{}
	p.mu.Unlock()
}

// Close stops the proxy and its connections.
func (p *Proxy) Close() {
	p.l.Close()
	p.Blip(0)
	p.wg.Wait()
}
