package model

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"syscall"
	"time"
)

// RetryPolicy says how often and how patiently transient failures are
// retried. Zero fields take the defaults: 6 attempts, 1 s base delay,
// 1 min cap, 10 min idle timeout.
type RetryPolicy struct {
	MaxAttempts int           // attempts in all, the first included
	BaseDelay   time.Duration // delay before the first retry, doubled each time
	MaxDelay    time.Duration // cap on one delay, Retry-After included
	// IdleTimeout fails an attempt with ErrStalled when nothing arrives for
	// this long, so a stalled connection does not hang the turn.
	IdleTimeout time.Duration
}

// ErrStalled is the error of an attempt that received nothing for the
// policy's IdleTimeout. It is transient.
var ErrStalled = errors.New("the model stopped sending")

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 6
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = time.Second
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = time.Minute
	}
	if p.IdleTimeout <= 0 {
		p.IdleTimeout = 10 * time.Minute
	}
	return p
}

// delay returns the wait before retry number attempt (from 1): the server's
// Retry-After when it gave one, else exponential backoff with jitter between
// half and all of the step, capped by MaxDelay.
func (p RetryPolicy) delay(attempt int, err error) time.Duration {
	var apiErr *APIError
	if errors.As(err, &apiErr) && apiErr.RetryAfter > 0 {
		return min(apiErr.RetryAfter, p.MaxDelay)
	}
	step := p.BaseDelay << min(attempt-1, 30)
	if step <= 0 || step > p.MaxDelay {
		step = p.MaxDelay
	}
	half := step / 2
	return half + rand.N(step-half+1)
}

// requestFaults are words with which servers that answer HTTP 500 for a
// bad request (llama.cpp, some proxies) say the request was at fault.
var requestFaults = []string{
	"parse", "invalid", "malformed", "bad request", "validation", "not supported", "unsupported",
	"schema", "unexpected token", "must be", "required",
}

// IsMalformedRequest reports an error response in which the server says
// the request itself was wrong, whatever its status: a 4xx other than 408
// and 429, or a 500 whose message names a request fault, such as
// llama.cpp's "Failed to parse tool call arguments as JSON".
func IsMalformedRequest(e *APIError) bool {
	switch c := e.StatusCode; {
	case c == 400 || c == 422:
		return true
	case c == 500:
		text := strings.ToLower(e.Status + " " + e.Message)
		for _, w := range requestFaults {
			if strings.Contains(text, w) {
				return true
			}
		}
	}
	return false
}

// APIError is an error response from a provider.
type APIError struct {
	Model      string // "provider:name"
	StatusCode int
	Status     string // the provider's status word, e.g. RESOURCE_EXHAUSTED
	Message    string
	RetryAfter time.Duration // from a Retry-After header, when given
	// ContextWindow is the window the server named in a context overflow
	// error as a field of its own (llama.cpp's n_ctx); 0 when it did not.
	ContextWindow int
}

func (e *APIError) Error() string {
	msg := fmt.Sprintf("%s: HTTP %d", e.Model, e.StatusCode)
	if e.Status != "" {
		msg += " " + e.Status
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	switch e.StatusCode {
	case 401, 403:
		msg += " (check the API key)"
	case 404:
		msg += " (check the model name)"
	}
	return msg
}

// IsTransient reports whether err is worth retrying, because sending the
// same request again can give another answer: rate limits (429, after the
// server's Retry-After), a gateway or an overloaded server (502, 503, 504,
// 529), a 500 that does not blame the request (IsMalformedRequest), stalls
// and dropped or reset connections. Other statuses are the request's
// fault or the setup's, which a retry of the identical request cannot
// change.
func IsTransient(err error) bool {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		switch apiErr.StatusCode {
		case 429, 502, 503, 504, 529:
			return true
		case 500:
			return !IsMalformedRequest(apiErr) && !IsContextOverflow(apiErr)
		}
		return false
	}
	if errors.Is(err, ErrStalled) || IsConnectionLost(err) {
		return true
	}
	var netErr net.Error
	return errors.As(err, &netErr) && netErr.Timeout()
}

// IsConnectionLost reports a connection that broke after it was made: the
// server closed or reset it, in the middle of its reply or while the
// request was still being written. A peer that closes while the request
// is written shows as a write on a closed connection, because the
// client's transport closes its side when it reads the end first.
func IsConnectionLost(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed)
}
