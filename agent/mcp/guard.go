package mcp

import (
	"fmt"
	"runtime/debug"
)

// guard keeps a server's own request (sampling, elicitation, roots) or
// notification from taking the process down: a handler that panics is
// logged with its stack, the user is told (a log notification on the
// server's calls and to Options.OnNotify) and the server gets a
// JSON-RPC error that says no more than that freeact failed.
type guard struct {
	s *server
}

// request recovers a panic of the handler of method and sets *err, which
// mcp-go sends to the server as the error answer. Deferred.
func (g guard) request(method string, err *error) {
	r := recover()
	if r == nil {
		return
	}
	g.report(method, r)
	*err = fmt.Errorf("freeact failed to answer %s (an internal error; see its log)", method)
}

// notification recovers a panic of the handler of a notification.
// Deferred.
func (g guard) notification(method string) {
	if r := recover(); r != nil {
		g.report(method, r)
	}
}

func (g guard) report(method string, r any) {
	s := g.s
	s.m.opts.Log.Error("MCP server request failed inside freeact", "mcp_server", s.name, "method", method,
		"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	s.broadcast(Notification{Server: s.name, Kind: "log", Level: "error",
		Message: fmt.Sprintf("freeact failed to handle %s from MCP server %q (an internal error, logged); the server was answered with an error", method, s.name)})
}
