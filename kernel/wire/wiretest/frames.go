// Package wiretest holds test data shared by the tests of the kernel's
// transports.
package wiretest

import (
	"encoding/json"

	"github.com/freeact/desktop/kernel/wire"
)

// Frames are websocket frames as a Jupyter server sends them (keys in its order), and frames
// that bend the rules.
var Frames = []struct {
	Name, Frame string
	Bad         bool // not a protocol message
	Want        wire.Received
}{
	{
		Name:  "stream",
		Frame: `{"header": {"msg_id": "a", "msg_type": "stream", "session": "s", "username": "u", "date": "2025-01-01T00:00:00Z", "version": "5.3"}, "msg_id": "a", "msg_type": "stream", "parent_header": {"msg_id": "p", "msg_type": "execute_request"}, "metadata": {}, "content": {"name": "stderr", "text": "line\n\u00e9\ud83d\ude00\"tab\t"}, "buffers": [], "channel": "iopub"}`,
		Want: wire.Received{Header: wire.Header{MsgID: "a", MsgType: "stream", Session: "s", Username: "u", Date: "2025-01-01T00:00:00Z", Version: "5.3"},
			ParentHeader: wire.Header{MsgID: "p", MsgType: "execute_request"}, Channel: "iopub", Content: wire.Content{Name: "stderr", Text: "line\né😀\"tab\t"}},
	},
	{
		Name:  "content before header",
		Frame: `{"content": {"execution_state": "idle"}, "channel": "iopub", "parent_header": {"msg_id": "p"}, "header": {"msg_type": "status"}}`,
		Want:  wire.Received{Header: wire.Header{MsgType: "status"}, ParentHeader: wire.Header{MsgID: "p"}, Channel: "iopub", Content: wire.Content{ExecutionState: "idle"}},
	},
	{
		Name:  "no parent",
		Frame: `{"header": {"msg_type": "status"}, "parent_header": {}, "content": {"execution_state": "busy"}, "channel": "iopub"}`,
		Want:  wire.Received{Header: wire.Header{MsgType: "status"}, Channel: "iopub", Content: wire.Content{ExecutionState: "busy"}},
	},
	{
		Name:  "execute_reply with expressions",
		Frame: `{"header": {"msg_type": "execute_reply"}, "parent_header": {"msg_id": "p"}, "channel": "shell", "content": {"status": "ok", "execution_count": 3, "user_expressions": {"r": {"status": "ok", "data": {"text/plain": "'x'"}, "metadata": {}}}, "payload": []}}`,
		Want: wire.Received{Header: wire.Header{MsgType: "execute_reply"}, ParentHeader: wire.Header{MsgID: "p"}, Channel: "shell",
			Content: wire.Content{Status: "ok", UserExpressions: map[string]wire.ExpressionReply{"r": {Status: "ok", Data: map[string]json.RawMessage{"text/plain": json.RawMessage(`"'x'"`)}}}}},
	},
	{
		Name:  "error",
		Frame: `{"header": {"msg_type": "error"}, "parent_header": {"msg_id": "p"}, "channel": "iopub", "content": {"ename": "ValueError", "evalue": "boom", "traceback": ["a", "b"]}}`,
		Want:  wire.Received{Header: wire.Header{MsgType: "error"}, ParentHeader: wire.Header{MsgID: "p"}, Channel: "iopub", Content: wire.Content{EName: "ValueError", EValue: "boom", Traceback: []string{"a", "b"}}},
	},
	{
		Name:  "input_request",
		Frame: `{"header": {"msg_type": "input_request"}, "parent_header": {"msg_id": "p"}, "channel": "stdin", "content": {"prompt": "Password: ", "password": true}}`,
		Want:  wire.Received{Header: wire.Header{MsgType: "input_request"}, ParentHeader: wire.Header{MsgID: "p"}, Channel: "stdin", Content: wire.Content{Prompt: "Password: ", Password: true}},
	},
	{
		// Another message type may use a content field's name with another
		// type: the message is still routed, the field left unset.
		Name:  "field of another type",
		Frame: `{"header": {"msg_type": "comm_msg"}, "parent_header": {"msg_id": "p"}, "channel": "iopub", "content": {"name": 5, "data": [1], "text": "kept"}}`,
		Want:  wire.Received{Header: wire.Header{MsgType: "comm_msg"}, ParentHeader: wire.Header{MsgID: "p"}, Channel: "iopub", Content: wire.Content{Text: "kept"}},
	},
	{Name: "not JSON", Frame: `{"header": `, Bad: true},
	{Name: "not an object", Frame: `[1, 2]`, Bad: true},
	{Name: "no type", Frame: `{"header": {"msg_id": 7}, "content": {}}`, Bad: true},
}
