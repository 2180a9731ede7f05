// Package mcp connects the agent to MCP servers (Model Context Protocol) with
// github.com/mark3labs/mcp-go: local servers over stdio and remote ones over
// streamable HTTP, as configured by the mcp_servers and ptc_servers entries
// of agent.json.
//
// A Manager owns the connections of one agent. Connect starts every server
// at once (the JSON tool-call servers); Call connects a server on its first
// use (the code-mode servers). A server that cannot start, dies during a call,
// hangs past the call timeout or reports an error never breaks the caller:
// the call returns an error naming the server and the reason, and the next
// call starts the server again. A stdio server runs in its own process group
// with its stderr written to the log line by line; Close ends every server
// and every process it started.
//
// Each connection settles on the newest protocol version both sides speak:
// 2026-07-28 through server/discover, or the initialize handshake for
// 2025-11-25 and earlier, falling back and trying again instead of failing
// when a slow server and the probe's timeout disagree (see negotiate).
package mcp
