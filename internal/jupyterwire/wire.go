// Package jupyterwire owns the Jupyter wire protocol's message framing on
// ZeroMQ: a message is a multipart ZeroMQ message of routing identities,
// the "<IDS|MSG>" delimiter, an HMAC-SHA256 signature (hex) over the four
// JSON parts, the header, parent header, metadata and content, then binary
// buffers. It signs what is sent and checks the signature of what is
// received, in constant time; it knows nothing of ZeroMQ sockets or of what
// the JSON parts mean.
package jupyterwire

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"sync"
)

// Delimiter separates the routing identities from the message.
var Delimiter = []byte("<IDS|MSG>")

// Parts are the four signed JSON parts of a message and its buffers.
type Parts struct {
	Header, Parent, Metadata, Content []byte
	Buffers                           [][]byte
}

// Signer signs and checks messages with one connection's key.
type Signer struct {
	pool sync.Pool // hash.Hash, reused: a new HMAC costs two SHA-256 setups
}

// NewSigner returns a Signer for key. An empty key turns signing off (the
// signature part is empty and not checked), as Jupyter does.
func NewSigner(key []byte) *Signer {
	s := &Signer{}
	if len(key) > 0 {
		k := bytes.Clone(key)
		s.pool.New = func() any { return hmac.New(sha256.New, k) }
	}
	return s
}

// sign returns the hex signature of the parts (nil with signing off).
func (s *Signer) sign(p *Parts) []byte {
	if s.pool.New == nil {
		return nil
	}
	h := s.pool.Get().(hash.Hash)
	defer s.pool.Put(h)
	h.Reset()
	for _, b := range [][]byte{p.Header, p.Parent, p.Metadata, p.Content} {
		h.Write(b)
	}
	var sum [sha256.Size]byte
	out := make([]byte, hex.EncodedLen(sha256.Size))
	hex.Encode(out, h.Sum(sum[:0]))
	return out
}

// Encode frames p for sending on a DEALER socket (no identities).
func (s *Signer) Encode(p *Parts) [][]byte {
	frames := make([][]byte, 0, 6+len(p.Buffers))
	frames = append(frames, Delimiter, s.sign(p), p.Header, p.Parent, p.Metadata, p.Content)
	return append(frames, p.Buffers...)
}

// Errors of Decode.
var (
	ErrNoDelimiter = errors.New("jupyter wire message: no <IDS|MSG> delimiter")
	ErrShort       = errors.New("jupyter wire message: fewer than the 5 parts after the delimiter (signature, header, parent header, metadata, content)")
	ErrSignature   = errors.New("jupyter wire message: bad signature (not signed with this connection's key)")
)

// Decode splits frames into identities and parts and checks the signature.
// The parts alias frames.
func (s *Signer) Decode(frames [][]byte) (ids [][]byte, p *Parts, err error) {
	at := -1
	for i, f := range frames {
		if bytes.Equal(f, Delimiter) {
			at = i
			break
		}
	}
	if at < 0 {
		return nil, nil, ErrNoDelimiter
	}
	rest := frames[at+1:]
	if len(rest) < 5 {
		return nil, nil, fmt.Errorf("%w: %d", ErrShort, len(rest))
	}
	p = &Parts{Header: rest[1], Parent: rest[2], Metadata: rest[3], Content: rest[4]}
	if len(rest) > 5 {
		p.Buffers = rest[5:]
	}
	if want := s.sign(p); want != nil && !hmac.Equal(want, rest[0]) {
		return nil, nil, ErrSignature
	}
	return frames[:at], p, nil
}
