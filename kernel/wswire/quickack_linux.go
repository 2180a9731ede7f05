package wswire

import (
	"net"
	"syscall"
)

// quickAck keeps TCP_QUICKACK on for c: every segment is acknowledged at
// once instead of after the delayed-ACK timer (40 ms on Linux). A server
// that leaves Nagle's algorithm on for its websockets (stock Jupyter
// servers do) holds each small message back until the previous one is
// acknowledged, so without it each message of a cell can wait 40 ms.
// Linux clears the flag as it sees fit, so it is set again after every
// read.
func quickAck(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	q := &quickAckConn{TCPConn: tc, raw: raw}
	q.set()
	return q
}

type quickAckConn struct {
	*net.TCPConn
	raw syscall.RawConn
}

func (q *quickAckConn) set() {
	_ = q.raw.Control(func(fd uintptr) {
		_ = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_QUICKACK, 1)
	})
}

func (q *quickAckConn) Read(p []byte) (int, error) {
	n, err := q.TCPConn.Read(p)
	q.set()
	return n, err
}
