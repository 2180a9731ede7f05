package model

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"time"

	"github.com/freeact/desktop/internal/redact"
)

// Model is a language model the turn loop talks to.
//
// Stream sends one request and yields what comes back as it arrives:
// ThoughtDelta and TextDelta pieces, each FunctionCallChunk, a Retry notice
// before each retry of a transient failure, one UsageChunk, and finally Done
// with the complete message. If the stream fails (a stream that ends
// without a finish reason fails with ErrIncomplete), the last pair carries
// the error instead of Done; when some output had arrived the error is a
// *StreamError holding the partial message. Breaking out of the loop ends
// the request.
type Model interface {
	// Name returns the model string, "provider:name".
	Name() string
	Stream(ctx context.Context, req *Request) iter.Seq2[Chunk, error]
}

// Request is one call to a model: the instructions, the conversation so far
// and the tools it may call.
type Request struct {
	System   string
	Messages []Message
	Tools    []Tool
}

// Tool declares a function the model may call.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is a JSON Schema object; nil means no parameters.
	Parameters json.RawMessage `json:"parameters,omitempty"`
}

// Chunk is one item of a model stream: ThoughtDelta, TextDelta,
// FunctionCallChunk, UsageChunk, Finish, Retry or Done.
type Chunk interface{ isChunk() }

// ThoughtDelta is a piece of the model's thinking.
type ThoughtDelta struct {
	Text      string
	Signature []byte // set by providers on the piece that carries one
}

// TextDelta is a piece of the model's answer.
type TextDelta struct {
	Text      string
	Signature []byte
}

// FunctionCallChunk is one complete function call.
type FunctionCallChunk struct {
	Call      FunctionCall
	Signature []byte
}

// UsageChunk reports token counts. Backends may send it several times (the
// last one counts); a Model stream sends it once, before Done.
type UsageChunk struct{ Usage Usage }

// Finish is sent by backends when the provider says why it stopped. Model
// streams fold it into Done's message instead of passing it on.
type Finish struct{ Reason StopReason }

// Retry tells the caller that a transient failure is being retried after
// Delay: retry number Attempt (from 1) of at most MaxRetries.
type Retry struct {
	Attempt    int
	MaxRetries int
	Delay      time.Duration
	Err        error
}

// ErrIncomplete is the error (wrapped) of a stream that ended without the
// provider saying why the model stopped: the connection was cut or the
// response is otherwise incomplete. It wraps io.ErrUnexpectedEOF, so it is
// retried when nothing had arrived yet.
var ErrIncomplete = fmt.Errorf("the response ended without a finish reason, so it may be incomplete: %w", io.ErrUnexpectedEOF)

// Done carries the complete model message; it is always the last chunk of a
// successful stream.
//
// Message.Stop says why the model stopped. StopMaxTokens (OpenAI's finish
// reason "length", Gemini's MAX_TOKENS, Claude's max_tokens) means the
// reply was cut off at the output token limit (Message.Cut): its text may
// end mid-sentence, and Cut holds the calls the model had begun whose
// arguments did not arrive whole. Those calls are not in Message, so they
// are never run nor sent back to the provider.
type Done struct {
	Message Message
	Cut     []FunctionCall
}

func (ThoughtDelta) isChunk()      {}
func (TextDelta) isChunk()         {}
func (FunctionCallChunk) isChunk() {}
func (UsageChunk) isChunk()        {}
func (Finish) isChunk()            {}
func (Retry) isChunk()             {}
func (Done) isChunk()              {}

// StreamError is the error of a stream that failed after output arrived.
// Partial holds what arrived, so the caller can keep it in the history.
type StreamError struct {
	Partial Message
	Err     error
}

func (e *StreamError) Error() string { return e.Err.Error() }
func (e *StreamError) Unwrap() error { return e.Err }

// PartialMessage returns the partial model message carried by err, if any.
func PartialMessage(err error) (Message, bool) {
	var se *StreamError
	if errors.As(err, &se) {
		return se.Partial, true
	}
	return Message{}, false
}

// Backend is one provider's client: a single attempt at a request, yielding
// ThoughtDelta, TextDelta, FunctionCallChunk, UsageChunk and Finish. New
// wraps it into a Model with accumulation and retries.
type Backend interface {
	Name() string
	StreamOnce(ctx context.Context, req *Request) iter.Seq2[Chunk, error]
}

// MediaAccepter is implemented by models (and backends) that say which
// inline media they take, in prompts and in tool results.
type MediaAccepter interface {
	AcceptsMedia(mimeType string) bool
}

// AcceptsMedia reports whether m takes inline data of mimeType (such as
// application/pdf or audio/mpeg): images always, other media when m says
// so.
func AcceptsMedia(m Model, mimeType string) bool {
	if ma, ok := m.(MediaAccepter); ok {
		return ma.AcceptsMedia(mimeType)
	}
	return IsImage(mimeType)
}

// IsImage reports whether mimeType is an image type.
func IsImage(mimeType string) bool { return strings.HasPrefix(mimeType, "image/") }

// New turns a provider backend into a Model that retries transient failures
// by policy and assembles the complete message.
func New(b Backend, policy RetryPolicy) Model {
	return &retrying{b: b, policy: policy.withDefaults()}
}

type retrying struct {
	b      Backend
	policy RetryPolicy
}

func (r *retrying) Name() string { return r.b.Name() }

// AcceptsMedia asks the backend; see the package function.
func (r *retrying) AcceptsMedia(mimeType string) bool {
	if ma, ok := r.b.(MediaAccepter); ok {
		return ma.AcceptsMedia(mimeType)
	}
	return IsImage(mimeType)
}

func (r *retrying) Stream(ctx context.Context, req *Request) iter.Seq2[Chunk, error] {
	return func(yield func(Chunk, error) bool) {
		if req == nil {
			yield(nil, fmt.Errorf("%s: nil request", r.b.Name()))
			return
		}
		for attempt := 1; ; attempt++ {
			acc := accumulator{msg: Message{Role: RoleModel, Model: r.b.Name()}}
			stopped, err := r.once(ctx, req, &acc, yield)
			// Every backend's error leaves the Model redacted: a base URL's
			// userinfo and key= never reach a retry notice, a failure or a log.
			err = redact.Err(err)
			if stopped {
				return
			}
			if err == nil && ctx.Err() != nil {
				err = context.Cause(ctx) // a backend that ended quietly on cancel
			}
			if err == nil && !acc.finished {
				// A stream cut short, or a provider that did not say it was
				// done: what arrived may be half an answer.
				err = fmt.Errorf("%s: %w", r.b.Name(), ErrIncomplete)
			}
			if err == nil {
				if acc.usage != nil {
					if !yield(UsageChunk{Usage: *acc.usage}, nil) {
						return
					}
				}
				msg, cut := splitCut(acc.finish())
				yield(Done{Message: msg, Cut: cut}, nil)
				return
			}
			if ctx.Err() != nil {
				err = fmt.Errorf("%s: %w", r.b.Name(), context.Cause(ctx))
			}
			if acc.started || ctx.Err() != nil || attempt >= r.policy.MaxAttempts || !IsTransient(err) {
				if acc.started {
					err = &StreamError{Partial: acc.finish(), Err: err}
				}
				yield(nil, err)
				return
			}
			delay := r.policy.delay(attempt, err)
			if !yield(Retry{Attempt: attempt, MaxRetries: r.policy.MaxAttempts - 1, Delay: delay, Err: err}, nil) {
				return
			}
			if err := sleep(ctx, delay); err != nil {
				yield(nil, fmt.Errorf("%s: waiting to retry: %w", r.b.Name(), err))
				return
			}
		}
	}
}

// once runs one attempt, passing deltas on. It reports whether the consumer
// stopped listening, and the attempt's error.
func (r *retrying) once(ctx context.Context, req *Request, acc *accumulator, yield func(Chunk, error) bool) (bool, error) {
	idle := r.policy.IdleTimeout
	attemptCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watchdog := time.AfterFunc(idle, func() {
		cancel(fmt.Errorf("%s: %w (nothing received for %v)", r.b.Name(), ErrStalled, idle))
	})
	defer watchdog.Stop()
	for c, err := range r.b.StreamOnce(attemptCtx, req) {
		watchdog.Stop() // the consumer's time does not count
		if err != nil {
			if cause := context.Cause(attemptCtx); ctx.Err() == nil && errors.Is(cause, ErrStalled) {
				err = cause
			}
			return false, err
		}
		switch c := c.(type) {
		case UsageChunk:
			u := c.Usage
			acc.usage = &u
			watchdog.Reset(idle)
			continue
		case Finish:
			acc.msg.Stop, acc.finished = c.Reason, true
			watchdog.Reset(idle)
			continue
		}
		acc.add(c)
		if !yield(c, nil) {
			return true, nil
		}
		watchdog.Reset(idle)
	}
	if cause := context.Cause(attemptCtx); ctx.Err() == nil && errors.Is(cause, ErrStalled) {
		return false, cause // a backend that ended quietly when the watchdog fired
	}
	return false, nil
}

// accumulator builds a model message from deltas. Consecutive pieces of the
// same kind merge into one part until a piece carries a signature, which
// closes the part: Gemini puts the signature on the last piece of a part.
type accumulator struct {
	msg      Message
	usage    *Usage
	started  bool            // some content has been passed to the consumer
	finished bool            // the backend said why the model stopped
	open     bool            // the last part is text that may still grow
	text     strings.Builder // the open part's text so far
}

func (a *accumulator) add(c Chunk) {
	a.started = true
	switch c := c.(type) {
	case ThoughtDelta:
		a.addText(c.Text, true, c.Signature)
	case TextDelta:
		a.addText(c.Text, false, c.Signature)
	case FunctionCallChunk:
		a.close()
		call := c.Call
		if call.ID == "" {
			call.ID = NewCallID()
		}
		if len(call.Args) == 0 {
			call.Args = json.RawMessage(`{}`)
		}
		a.msg.Parts = append(a.msg.Parts, Part{FunctionCall: &call, Signature: c.Signature})
	}
}

func (a *accumulator) addText(text string, thought bool, sig []byte) {
	if n := len(a.msg.Parts); !a.open || a.msg.Parts[n-1].Thought != thought {
		a.close()
		a.msg.Parts = append(a.msg.Parts, Part{Thought: thought})
		a.open = true
	}
	a.text.WriteString(text)
	if len(sig) > 0 {
		a.msg.Parts[len(a.msg.Parts)-1].Signature = sig
		a.close()
	}
}

// close ends the open text part, if any.
func (a *accumulator) close() {
	if a.open {
		a.msg.Parts[len(a.msg.Parts)-1].Text = a.text.String()
		a.text.Reset()
		a.open = false
	}
}

// finish returns the message; no deltas may follow.
func (a *accumulator) finish() Message {
	a.close()
	m := a.msg
	m.Usage = a.usage
	if m.Stop == "" {
		m.Stop = StopEnd
	}
	return m
}

// splitCut takes the calls whose arguments are not a JSON object out of a
// reply cut at the output token limit: the cut fell inside them.
func splitCut(m Message) (Message, []FunctionCall) {
	if !m.Cut() {
		return m, nil
	}
	var cut []FunctionCall
	parts := m.Parts[:0:0]
	for _, p := range m.Parts {
		if c := p.FunctionCall; c != nil && !ArgsComplete(c.Args) {
			cut = append(cut, *c)
			continue
		}
		parts = append(parts, p)
	}
	m.Parts = parts
	return m, cut
}

// ArgsComplete reports whether args, a call's arguments as ArgsJSON made
// them, are a JSON object: arguments that did not parse are kept as a
// JSON string, and no tool takes anything but an object.
func ArgsComplete(args json.RawMessage) bool {
	var obj map[string]json.RawMessage
	return json.Unmarshal(args, &obj) == nil && obj != nil
}

// NewCallID returns a fresh function call ID for providers that send none.
// It starts with CallIDPrefix so backends can tell it from a provider's own.
func NewCallID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return CallIDPrefix + hex.EncodeToString(b[:])
}

// CallIDPrefix starts every ID made by NewCallID.
const CallIDPrefix = "fa-"

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}
