package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// Cancelling a call over streamable HTTP. mcp-go sends
// notifications/cancelled over stdio only: over HTTP at 2026-07-28 the
// closed request stream is the cancellation, but at the handshake
// versions (2025-11-25 and before) a closed stream is not one, and the
// server keeps working on the call. It also keeps the JSON-RPC id of a
// request to itself, so callIDs reads it from the POST that carried the
// call, by the call's progress token.

// cancelTimeout bounds the POST of a notifications/cancelled.
const cancelTimeout = 5 * time.Second

// callIDs is the HTTP client's transport of one connection; it notes the
// JSON-RPC id of each tools/call it posts.
type callIDs struct {
	base http.RoundTripper
	// seen, if set, is shown the bodies of the answers.
	seen *toolSchemas

	mu  sync.Mutex
	ids map[string]json.RawMessage // progress token -> request id
}

func newCallIDs(base http.RoundTripper) *callIDs {
	if base == nil {
		base = http.DefaultTransport
	}
	return &callIDs{base: base, ids: map[string]json.RawMessage{}}
}

func (r *callIDs) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			r.note(body)
			body.Close()
		}
	}
	resp, err := r.base.RoundTrip(req)
	if err == nil && r.seen != nil && resp.Body != nil {
		resp.Body = seenBody{resp.Body, r.seen}
	}
	return resp, err
}

// note reads a posted message and keeps the id of a tools/call.
func (r *callIDs) note(body io.Reader) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Meta struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.NewDecoder(body).Decode(&msg) != nil || msg.Method != string(mcp.MethodToolsCall) || len(msg.ID) == 0 {
		return
	}
	var token string
	if json.Unmarshal(msg.Params.Meta.ProgressToken, &token) != nil || token == "" {
		return
	}
	r.mu.Lock()
	r.ids[token] = bytes.Clone(msg.ID)
	r.mu.Unlock()
}

// take returns and forgets the id of the call with token.
func (r *callIDs) take(token string) (json.RawMessage, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	id, ok := r.ids[token]
	delete(r.ids, token)
	return id, ok
}

// cancelHTTP tells an HTTP server at a handshake version that the call
// with token is cancelled.
func cancelHTTP(ctx context.Context, c *conn, token, reason string) error {
	id, ok := c.ids.take(token)
	if !ok {
		return fmt.Errorf("the call's request id is not known (it was not sent)")
	}
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: string(mcp.MethodNotificationCancelled),
		Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id, "reason": reason}},
	}}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
	defer cancel()
	if err := c.cli.GetTransport().SendNotification(ctx, n); err != nil {
		return fmt.Errorf("send notifications/cancelled: %w", err)
	}
	return nil
}
