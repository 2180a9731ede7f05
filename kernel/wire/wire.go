// Package wire is what both kernel transports share: the Jupyter protocol
// messages as the host sends and reads them, their decoding from a
// message's parts or a JSON websocket frame, and the errors a transport
// reports a kernel's loss with. It is a leaf: the kernel package and its
// transports (zmqwire, wswire) import it, it imports neither.
package wire

import (
	"encoding/json"
	"errors"

	"github.com/freeact/desktop/internal/jupyterwire"
)

// ErrKernelDied: the kernel process died (kernel.ErrKernelDied is it).
var ErrKernelDied = errors.New("the kernel died and its state was lost; the next execution starts a fresh kernel")

// ErrConnectionLost: the connection to the Jupyter server broke
// (kernel.ErrConnectionLost is it).
var ErrConnectionLost = errors.New("lost the connection to the Jupyter server")

// Message is a Jupyter protocol message the host sends, in the websocket
// JSON form.
type Message struct {
	Header       Header          `json:"header"`
	ParentHeader json.RawMessage `json:"parent_header"`
	Metadata     map[string]any  `json:"metadata"`
	Content      json.RawMessage `json:"content"`
	Channel      string          `json:"channel"`
	Buffers      []any           `json:"buffers"`
}

// Header is a message's header.
type Header struct {
	MsgID    string `json:"msg_id"`
	MsgType  string `json:"msg_type"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	Version  string `json:"version"`
}

// Received is a message from the kernel, decoded once from its websocket
// frame: the content goes straight into the fields the host reads, so the
// text of a stream message is unquoted once, from the frame. (Content kept
// raw, copied, and decoded again by its reader cost twice the work: 15 ms
// of processor time per MB of output.)
type Received struct {
	Header       Header  `json:"header"`
	ParentHeader Header  `json:"parent_header"`
	Channel      string  `json:"channel"`
	Content      Content `json:"content"`
}

// Content holds the fields of message contents the host reads; each is
// set by the message types named beside it, and the rest of a content is
// skipped.
type Content struct {
	Name            string                     `json:"name"`            // stream: stdout or stderr
	Text            string                     `json:"text"`            // stream
	ExecutionState  string                     `json:"execution_state"` // status
	Status          string                     `json:"status"`          // execute_reply: ok, error or aborted
	EName           string                     `json:"ename"`           // execute_reply, error
	EValue          string                     `json:"evalue"`          // execute_reply, error
	Traceback       []string                   `json:"traceback"`       // execute_reply, error
	UserExpressions map[string]ExpressionReply `json:"user_expressions"`
	Data            map[string]json.RawMessage `json:"data"`     // execute_result, display_data
	Prompt          string                     `json:"prompt"`   // input_request
	Password        bool                       `json:"password"` // input_request
}

// ExpressionReply is the value of one user expression: its display data,
// or the error it raised.
type ExpressionReply struct {
	Status string                     `json:"status"`
	Data   map[string]json.RawMessage `json:"data"`
	EName  string                     `json:"ename"`
	EValue string                     `json:"evalue"`
}

// DecodeReceived decodes a websocket frame. A field of a type the host
// does not expect (another message type's content may use its name) is
// left unset, and the rest of the message is kept.
func DecodeReceived(frame []byte) (*Received, error) {
	m := new(Received)
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

// EncodeParts encodes the JSON parts of m as the kernel receives them.
func EncodeParts(m *Message) (*jupyterwire.Parts, error) {
	hdr, err := json.Marshal(m.Header)
	if err != nil {
		return nil, err
	}
	meta, err := json.Marshal(m.Metadata)
	if err != nil {
		return nil, err
	}
	parent := m.ParentHeader
	if len(parent) == 0 {
		parent = json.RawMessage("{}")
	}
	return &jupyterwire.Parts{Header: hdr, Parent: parent, Metadata: meta, Content: m.Content}, nil
}

// DecodeParts decodes a message of channel from its parts as
// DecodeReceived decodes the JSON form: into the fields the host reads,
// each part once.
func DecodeParts(channel string, header, parent, content []byte) (*Received, error) {
	m := &Received{Channel: channel}
	if err := json.Unmarshal(header, &m.Header); err != nil || m.Header.MsgType == "" {
		return nil, errors.New("bad header")
	}
	if err := json.Unmarshal(parent, &m.ParentHeader); !wrongFieldType(err) {
		return nil, errors.New("bad parent header")
	}
	if err := json.Unmarshal(content, &m.Content); !wrongFieldType(err) {
		return nil, errors.New("bad content")
	}
	return m, nil
}

// Link is a kernel's channels as a session uses them, whichever transport
// carries them: Send puts a message on its channel (one at a time: the
// session serialises its sends), Close ends the link. What the kernel
// sends arrives the other way, through the callback the transport was
// started with, one message at a time per reader. zmqwire.Channels and
// wswire.Conn are the two.
type Link interface {
	Send(m *Message) error
	Close()
}
