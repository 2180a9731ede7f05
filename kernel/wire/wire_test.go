package wire_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/freeact/desktop/kernel/wire"
	"github.com/freeact/desktop/kernel/wire/wiretest"
)

func TestDecodeReceived(t *testing.T) {
	for _, c := range wiretest.Frames {
		t.Run(c.Name, func(t *testing.T) {
			m, err := wire.DecodeReceived([]byte(c.Frame))
			switch {
			case c.Bad && err == nil:
				t.Fatalf("decoded %+v, want an error", m)
			case c.Bad:
				return
			case err != nil:
				t.Fatal(err)
			}
			got, _ := json.Marshal(m)
			want, _ := json.Marshal(c.Want)
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
	for _, c := range wiretest.Frames {
		f.Add([]byte(c.Frame))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		m, err := wire.DecodeReceived(frame)
		var env struct {
			Header       wire.Header `json:"header"`
			ParentHeader wire.Header `json:"parent_header"`
			Channel      string      `json:"channel"`
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

// FuzzDecodeParts: the kernel's parts of any shape decode to a message or
// an error, never a panic; a message always has a type.
func FuzzDecodeParts(f *testing.F) {
	f.Add([]byte(`{"msg_id":"1","msg_type":"stream"}`), []byte(`{"msg_id":"0"}`), []byte(`{"name":"stdout","text":"hi"}`))
	f.Add([]byte(`{"msg_type":"status"}`), []byte(`{}`), []byte(`{"execution_state":7}`))
	f.Add([]byte(`{"msg_type":"input_request"}`), []byte(`[]`), []byte(`{"prompt":"\u001dfreeact:{}","password":"x"}`))
	f.Fuzz(func(t *testing.T, header, parent, content []byte) {
		m, err := wire.DecodeParts("iopub", header, parent, content)
		if err == nil && (m.Header.MsgType == "" || m.Channel != "iopub") {
			t.Fatalf("decoded %+v", m)
		}
	})
}
