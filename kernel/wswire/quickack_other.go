//go:build !linux

package wswire

import "net"

// quickAck is Linux only (TCP_QUICKACK); elsewhere c is used as it is.
func quickAck(c net.Conn) net.Conn { return c }
