package wswire

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/freeact/desktop/kernel/wire"
)

// ProtocolV1 is Jupyter's binary websocket protocol for kernel channels
// (jupyter_server 2): a frame holds the channel and the message's parts
// (header, parent header, metadata, content, buffers) as the kernel sent
// them, so the server relays a message without decoding and re-encoding
// it as JSON, which was most of its work per message. A server that does
// not offer it (jupyter_server 1, gateways) speaks the JSON text form.
const ProtocolV1 = "v1.kernel.websocket.jupyter.org"

// A v1 frame: n as a little-endian uint64, then n little-endian uint64
// offsets into the frame, then the channel name and the parts. offsets[0]
// and offsets[1] bound the channel; each further offset ends a part, the
// last one at the frame's end.

// encodeV1 frames m in the v1 protocol.
func encodeV1(m *wire.Message) ([]byte, error) {
	p, err := wire.EncodeParts(m)
	if err != nil {
		return nil, err
	}
	parts := [][]byte{[]byte(m.Channel), p.Header, p.Parent, p.Metadata, p.Content}
	n := len(parts) + 1 // offsets
	size := 8 * (n + 1)
	for _, p := range parts {
		size += len(p)
	}
	b := make([]byte, 8*(n+1), size)
	binary.LittleEndian.PutUint64(b, uint64(n))
	at := 8 * (n + 1)
	binary.LittleEndian.PutUint64(b[8:], uint64(at))
	for i, p := range parts {
		at += len(p)
		binary.LittleEndian.PutUint64(b[8*(i+2):], uint64(at))
	}
	for _, p := range parts {
		b = append(b, p...)
	}
	return b, nil
}

var errV1Frame = errors.New("not a v1 kernel message frame")

// decodeV1 decodes a v1 frame from the server as wire.DecodeReceived decodes
// the JSON form: into the fields the host reads, each part once.
func decodeV1(frame []byte) (*wire.Received, error) {
	if len(frame) < 8 {
		return nil, errV1Frame
	}
	n := binary.LittleEndian.Uint64(frame)
	// The channel and header, parent header, metadata and content.
	if n < 6 || n > uint64(len(frame))/8-1 {
		return nil, fmt.Errorf("%w: %d offsets", errV1Frame, n)
	}
	// The offsets start after themselves, never decrease and stay in the
	// frame.
	off := func(i int) int { return int(binary.LittleEndian.Uint64(frame[8*(i+1):])) }
	prev := 8 * (int(n) + 1)
	for i := range int(n) {
		o := binary.LittleEndian.Uint64(frame[8*(i+1):])
		if o < uint64(prev) || o > uint64(len(frame)) {
			return nil, fmt.Errorf("%w: offset %d out of order", errV1Frame, i)
		}
		prev = int(o)
	}
	part := func(i int) []byte { return frame[off(i+1):off(i+2)] } // i: 0 header .. 3 content
	m, err := wire.DecodeParts(string(frame[off(0):off(1)]), part(0), part(1), part(3))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errV1Frame, err)
	}
	return m, nil
}
