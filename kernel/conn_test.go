package kernel

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

// Frames as a Jupyter server sends them (keys in its order), and frames
// that bend the rules.
var receivedFrames = []struct {
	name, frame string
	bad         bool // not a protocol message
	want        received
}{
	{
		name:  "stream",
		frame: `{"header": {"msg_id": "a", "msg_type": "stream", "session": "s", "username": "u", "date": "2025-01-01T00:00:00Z", "version": "5.3"}, "msg_id": "a", "msg_type": "stream", "parent_header": {"msg_id": "p", "msg_type": "execute_request"}, "metadata": {}, "content": {"name": "stderr", "text": "line\n\u00e9\ud83d\ude00\"tab\t"}, "buffers": [], "channel": "iopub"}`,
		want: received{Header: header{MsgID: "a", MsgType: "stream", Session: "s", Username: "u", Date: "2025-01-01T00:00:00Z", Version: "5.3"},
			ParentHeader: header{MsgID: "p", MsgType: "execute_request"}, Channel: "iopub", Content: content{Name: "stderr", Text: "line\né😀\"tab\t"}},
	},
	{
		name:  "content before header",
		frame: `{"content": {"execution_state": "idle"}, "channel": "iopub", "parent_header": {"msg_id": "p"}, "header": {"msg_type": "status"}}`,
		want:  received{Header: header{MsgType: "status"}, ParentHeader: header{MsgID: "p"}, Channel: "iopub", Content: content{ExecutionState: "idle"}},
	},
	{
		name:  "no parent",
		frame: `{"header": {"msg_type": "status"}, "parent_header": {}, "content": {"execution_state": "busy"}, "channel": "iopub"}`,
		want:  received{Header: header{MsgType: "status"}, Channel: "iopub", Content: content{ExecutionState: "busy"}},
	},
	{
		name:  "execute_reply with expressions",
		frame: `{"header": {"msg_type": "execute_reply"}, "parent_header": {"msg_id": "p"}, "channel": "shell", "content": {"status": "ok", "execution_count": 3, "user_expressions": {"r": {"status": "ok", "data": {"text/plain": "'x'"}, "metadata": {}}}, "payload": []}}`,
		want: received{Header: header{MsgType: "execute_reply"}, ParentHeader: header{MsgID: "p"}, Channel: "shell",
			Content: content{Status: "ok", UserExpressions: map[string]expressionReply{"r": {Status: "ok", Data: map[string]json.RawMessage{"text/plain": json.RawMessage(`"'x'"`)}}}}},
	},
	{
		name:  "error",
		frame: `{"header": {"msg_type": "error"}, "parent_header": {"msg_id": "p"}, "channel": "iopub", "content": {"ename": "ValueError", "evalue": "boom", "traceback": ["a", "b"]}}`,
		want:  received{Header: header{MsgType: "error"}, ParentHeader: header{MsgID: "p"}, Channel: "iopub", Content: content{EName: "ValueError", EValue: "boom", Traceback: []string{"a", "b"}}},
	},
	{
		name:  "input_request",
		frame: `{"header": {"msg_type": "input_request"}, "parent_header": {"msg_id": "p"}, "channel": "stdin", "content": {"prompt": "Password: ", "password": true}}`,
		want:  received{Header: header{MsgType: "input_request"}, ParentHeader: header{MsgID: "p"}, Channel: "stdin", Content: content{Prompt: "Password: ", Password: true}},
	},
	{
		// Another message type may use a content field's name with another
		// type: the message is still routed, the field left unset.
		name:  "field of another type",
		frame: `{"header": {"msg_type": "comm_msg"}, "parent_header": {"msg_id": "p"}, "channel": "iopub", "content": {"name": 5, "data": [1], "text": "kept"}}`,
		want:  received{Header: header{MsgType: "comm_msg"}, ParentHeader: header{MsgID: "p"}, Channel: "iopub", Content: content{Text: "kept"}},
	},
	{name: "not JSON", frame: `{"header": `, bad: true},
	{name: "not an object", frame: `[1, 2]`, bad: true},
	{name: "no type", frame: `{"header": {"msg_id": 7}, "content": {}}`, bad: true},
}

func TestDecodeReceived(t *testing.T) {
	for _, c := range receivedFrames {
		t.Run(c.name, func(t *testing.T) {
			m, err := decodeReceived([]byte(c.frame))
			switch {
			case c.bad && err == nil:
				t.Fatalf("decoded %+v, want an error", m)
			case c.bad:
				return
			case err != nil:
				t.Fatal(err)
			}
			got, _ := json.Marshal(m)
			want, _ := json.Marshal(c.want)
			if string(got) != string(want) {
				t.Fatalf("decoded\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// FuzzDecodeReceived checks the one-pass decoding against decoding the
// envelope and then its raw content (what the host did before): whatever
// the frame, a message both accept has the same type, parent, channel and
// stream text.
func FuzzDecodeReceived(f *testing.F) {
	for _, c := range receivedFrames {
		f.Add([]byte(c.frame))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		m, err := decodeReceived(frame)
		var env struct {
			Header       header `json:"header"`
			ParentHeader header `json:"parent_header"`
			Channel      string `json:"channel"`
			Content      json.RawMessage
		}
		if json.Unmarshal(frame, &env) != nil {
			if err == nil && !json.Valid(frame) {
				t.Fatalf("invalid JSON decoded: %+v", m)
			}
			return
		}
		// A repeated content key (keys match in any case) merges into the
		// fields but replaces raw content: a difference no server makes.
		var keys map[string]json.RawMessage
		if json.Unmarshal(frame, &keys) == nil && len(slices.DeleteFunc(slices.Collect(maps.Keys(keys)), func(k string) bool {
			return !strings.EqualFold(k, "content")
		})) > 1 {
			return
		}
		if err != nil {
			if env.Header.MsgType != "" {
				t.Fatalf("a message of type %q rejected: %v", env.Header.MsgType, err)
			}
			return
		}
		if m.Header != env.Header || m.ParentHeader != env.ParentHeader || m.Channel != env.Channel {
			t.Fatalf("envelope %+v, two-step %+v", m, env)
		}
		var stream struct{ Name, Text string }
		if json.Unmarshal(env.Content, &stream) == nil && (stream.Text != m.Content.Text || stream.Name != m.Content.Name) {
			t.Fatalf("stream %+v, two-step %+v", m.Content, stream)
		}
	})
}
