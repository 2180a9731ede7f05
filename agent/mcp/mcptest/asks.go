package mcptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/freeact/desktop/agent/config"
)

// askingMode is the EnvVar value of a server that asks the client for a
// sampling before it answers the handshake (see AsksOnInitialize).
const askingMode = "asks-on-initialize"

// formingMode is the EnvVar value of a server that asks the user for a
// form (elicitation) before it answers the handshake (see
// FormsOnInitialize).
const formingMode = "forms-on-initialize"

// answerVar names the file where that server writes the client's answer.
const answerVar = "FREEACT_MCPTEST_ANSWER"

// AsksOnInitialize returns the configuration of a stdio server (the test
// binary, whose TestMain calls Main) that, on the initialize request,
// first sends sampling/createMessage and waits for the answer, which it
// writes, as the client sent it (one JSON-RPC message), to the file
// answer returns; then it shakes hands and serves the tool echo. It is a
// server that asks before the client could have expected a request.
func AsksOnInitialize(t testing.TB) (srv config.Server, answer string) {
	t.Helper()
	srv = Stdio(t)
	answer = filepath.Join(t.TempDir(), "answer.json")
	srv.Env = map[string]string{EnvVar: askingMode, answerVar: answer}
	return srv, answer
}

// FormsOnInitialize is AsksOnInitialize with a form for the user
// (elicitation/create, one string field "name") instead of a sampling: a
// server whose form comes while the client starts.
func FormsOnInitialize(t testing.TB) (srv config.Server, answer string) {
	t.Helper()
	srv, answer = AsksOnInitialize(t)
	srv.Env[EnvVar] = formingMode
	return srv, answer
}

// serveAsking is the server of AsksOnInitialize and FormsOnInitialize,
// spoken by hand: the handshake is held until the client answered.
func serveAsking(mode string) error {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 64<<10), 4<<20)
	out := json.NewEncoder(os.Stdout)
	type message struct {
		ID     json.RawMessage `json:"id,omitempty"`
		Method string          `json:"method,omitempty"`
	}
	reply := func(id json.RawMessage, result any) error {
		return out.Encode(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	}
	asked := false
	for in.Scan() {
		var m message
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			return fmt.Errorf("read a message: %w", err)
		}
		switch {
		case m.Method == "" || len(m.ID) == 0:
			// A notification, or a late answer: nothing to say.
		case m.Method == "initialize":
			if !asked {
				asked = true
				method, params := string(mcp.MethodSamplingCreateMessage), map[string]any{"maxTokens": 10, "messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Who are you?"}}}}
				if mode == formingMode {
					method, params = string(mcp.MethodElicitationCreate), map[string]any{"message": "Who are you?",
						"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}
				}
				if err := out.Encode(map[string]any{"jsonrpc": "2.0", "id": "asked-1", "method": method, "params": params}); err != nil {
					return err
				}
				for in.Scan() {
					var a message
					if json.Unmarshal(in.Bytes(), &a) == nil && a.Method == "" && string(a.ID) == `"asked-1"` {
						if err := os.WriteFile(os.Getenv(answerVar), in.Bytes(), 0o644); err != nil {
							return err
						}
						break
					}
				}
			}
			if err := reply(m.ID, map[string]any{"protocolVersion": mcp.LATEST_LEGACY_PROTOCOL_VERSION,
				"capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "asks", "version": "1"}}); err != nil {
				return err
			}
		case m.Method == "tools/list":
			if err := reply(m.ID, map[string]any{"tools": []any{map[string]any{"name": "echo", "description": "Echo.",
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}}}}); err != nil {
				return err
			}
		case m.Method == "tools/call":
			if err := reply(m.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": "echo"}}}); err != nil {
				return err
			}
		case m.Method == "ping":
			if err := reply(m.ID, map[string]any{}); err != nil {
				return err
			}
		default:
			if err := out.Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": mcp.METHOD_NOT_FOUND, "message": "method not found: " + m.Method}}); err != nil {
				return err
			}
		}
	}
	return in.Err()
}
