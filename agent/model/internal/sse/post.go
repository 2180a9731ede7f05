package sse

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/freeact/desktop/agent/model"
)

// Request is one streaming POST to a provider's API.
type Request struct {
	Name    string       // the backend's model string, which prefixes errors
	Client  *http.Client // not nil
	BaseURL string       // named in the hint when the connection is refused
	URL     string
	Header  http.Header // besides Content-Type and Accept
	Body    any         // sent as JSON
	// Read parses the event-stream body of a successful response.
	Read func(io.Reader) iter.Seq2[model.Chunk, error]
}

// Post sends r and yields the chunks r.Read parses from the response. An
// error status becomes a *model.APIError read from a body of the form
// {"error": {"type": ..., "message": ...}} (or plain text); every error
// names the model.
func Post(ctx context.Context, r Request) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) {
		body, err := json.Marshal(r.Body)
		if err != nil {
			yield(nil, fmt.Errorf("%s: encode request: %w", r.Name, err))
			return
		}
		hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(body))
		if err != nil {
			yield(nil, fmt.Errorf("%s: %w", r.Name, err))
			return
		}
		hreq.Header = r.Header.Clone()
		if hreq.Header == nil {
			hreq.Header = http.Header{}
		}
		hreq.Header.Set("Content-Type", "application/json")
		hreq.Header.Set("Accept", "text/event-stream")
		// Replayable: when a kept-alive connection turns out closed by
		// the server before any byte of the answer came, net/http sends
		// the request again on a new one instead of failing with EOF. The
		// empty value marks the request without sending the header.
		hreq.Header["X-Idempotency-Key"] = nil
		resp, err := r.Client.Do(hreq)
		if err != nil {
			if errors.Is(err, syscall.ECONNREFUSED) {
				err = fmt.Errorf("%w (is the server at %s running?)", err, r.BaseURL)
			}
			yield(nil, fmt.Errorf("%s: %w", r.Name, err))
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			yield(nil, apiError(r.Name, resp))
			return
		}
		for c, err := range r.Read(resp.Body) {
			if err != nil {
				var apiErr *model.APIError
				if errors.As(err, &apiErr) {
					apiErr.Model = r.Name
				} else {
					err = fmt.Errorf("%s: %w", r.Name, err)
				}
				yield(nil, err)
				return
			}
			if !yield(c, nil) {
				return
			}
		}
	}
}

// WireError is the error object of an error response or stream event.
type WireError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	// NCtx is the context window llama.cpp names in its
	// exceed_context_size_error.
	NCtx int `json:"n_ctx"`
}

// apiError reads an error response: {"error": {"type": ..., "message": ...}}
// or plain text.
func apiError(name string, resp *http.Response) error {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	e := &model.APIError{Model: name, StatusCode: resp.StatusCode, RetryAfter: retryAfter(resp.Header.Get("Retry-After"))}
	var body struct {
		Error *WireError `json:"error"`
	}
	if json.Unmarshal(data, &body) == nil && body.Error != nil {
		e.Status, e.Message, e.ContextWindow = body.Error.Type, body.Error.Message, body.Error.NCtx
	} else {
		e.Message = strings.TrimSpace(string(data))
	}
	return e
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(h string) time.Duration {
	if h == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(h, 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}
