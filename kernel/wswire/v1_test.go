package wswire

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/freeact/desktop/kernel/wire"
	"github.com/freeact/desktop/kernel/wire/wiretest"
)

// v1Frame frames channel and parts as jupyter_server's
// serialize_msg_to_ws_v1 does: the count of offsets, the offsets (where
// the channel starts, then where the channel and each part end), the
// channel, the parts.
func v1Frame(channel string, parts ...[]byte) []byte {
	offsets := []uint64{uint64(8 * (1 + 1 + len(parts) + 1))}
	offsets = append(offsets, offsets[0]+uint64(len(channel)))
	for _, p := range parts {
		offsets = append(offsets, offsets[len(offsets)-1]+uint64(len(p)))
	}
	var b bytes.Buffer
	_ = binary.Write(&b, binary.LittleEndian, uint64(len(offsets)))
	_ = binary.Write(&b, binary.LittleEndian, offsets)
	b.WriteString(channel)
	for _, p := range parts {
		b.Write(p)
	}
	return b.Bytes()
}

// v1Parts splits a frame as jupyter_server's deserialize_msg_from_ws_v1
// does.
func v1Parts(frame []byte) (string, [][]byte) {
	n := int(binary.LittleEndian.Uint64(frame))
	offs := make([]int, n)
	for i := range offs {
		offs[i] = int(binary.LittleEndian.Uint64(frame[8*(i+1):]))
	}
	var parts [][]byte
	for i := 1; i < n-1; i++ {
		parts = append(parts, frame[offs[i]:offs[i+1]])
	}
	return string(frame[offs[0]:offs[1]]), parts
}

// The JSON test frames, framed as a v1 server sends them, decode to the
// same messages.
func TestDecodeV1(t *testing.T) {
	for _, c := range wiretest.Frames {
		if c.Bad {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			var env map[string]json.RawMessage
			if err := json.Unmarshal([]byte(c.Frame), &env); err != nil {
				t.Fatal(err)
			}
			var channel string
			_ = json.Unmarshal(env["channel"], &channel)
			part := func(k string) []byte {
				if v, ok := env[k]; ok {
					return v
				}
				return []byte("{}")
			}
			frame := v1Frame(channel, part("header"), part("parent_header"), part("metadata"), part("content"))
			m, err := decodeV1(frame)
			if err != nil {
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

func TestDecodeV1Rejects(t *testing.T) {
	hdr := []byte(`{"msg_type": "status"}`)
	good := v1Frame("iopub", hdr, []byte("{}"), []byte("{}"), []byte(`{"execution_state": "idle"}`))
	if _, err := decodeV1(good); err != nil {
		t.Fatalf("the well-formed frame: %v", err)
	}
	outOfOrder := bytes.Clone(good)
	binary.LittleEndian.PutUint64(outOfOrder[8*3:], 1) // the header's end before its start
	pastEnd := bytes.Clone(good)
	binary.LittleEndian.PutUint64(pastEnd[8*6:], uint64(len(good)+1))
	for name, frame := range map[string][]byte{
		"empty":            nil,
		"short":            good[:7],
		"too many":         binary.LittleEndian.AppendUint64(nil, 1<<40),
		"too few parts":    v1Frame("iopub", hdr, []byte("{}"), []byte("{}")),
		"out of order":     outOfOrder,
		"past the end":     pastEnd,
		"truncated":        good[:len(good)-3],
		"no message type":  v1Frame("iopub", []byte(`{"msg_id": "a"}`), []byte("{}"), []byte("{}"), []byte("{}")),
		"header not JSON":  v1Frame("iopub", []byte(`{"msg_type": `), []byte("{}"), []byte("{}"), []byte("{}")),
		"content not JSON": v1Frame("iopub", hdr, []byte("{}"), []byte("{}"), []byte(`{"text": `)),
	} {
		if m, err := decodeV1(frame); err == nil {
			t.Errorf("%s: decoded %+v, want an error", name, m)
		}
	}
}

// What the host sends splits, as the server splits it, into the channel
// and the four parts Jupyter signs.
func TestEncodeV1(t *testing.T) {
	m := &wire.Message{
		Header:       wire.Header{MsgID: "m", MsgType: "input_reply", Session: "s", Username: "freeact", Date: "2025-01-01T00:00:00Z", Version: "5.3"},
		ParentHeader: json.RawMessage(`{"msg_id": "p", "msg_type": "input_request"}`),
		Metadata:     map[string]any{},
		Content:      json.RawMessage(`{"value": "é\n"}`),
		Channel:      "stdin",
		Buffers:      []any{},
	}
	frame, err := encodeV1(m)
	if err != nil {
		t.Fatal(err)
	}
	channel, parts := v1Parts(frame)
	if channel != "stdin" || len(parts) != 4 {
		t.Fatalf("channel %q, %d parts", channel, len(parts))
	}
	var hdr, parent wire.Header
	var content struct{ Value string }
	for i, v := range []any{&hdr, &parent, &map[string]any{}, &content} {
		if err := json.Unmarshal(parts[i], v); err != nil {
			t.Fatalf("part %d: %v: %s", i, err, parts[i])
		}
	}
	if hdr != m.Header || parent.MsgID != "p" || content.Value != "é\n" {
		t.Fatalf("header %+v, parent %+v, content %+v", hdr, parent, content)
	}
}

func FuzzDecodeV1(f *testing.F) {
	f.Add(v1Frame("iopub", []byte(`{"msg_type": "stream"}`), []byte("{}"), []byte("{}"), []byte(`{"name": "stdout", "text": "x"}`)))
	f.Add(v1Frame("shell", []byte(`{"msg_type": "execute_reply"}`), []byte(`{"msg_id": "p"}`), []byte("{}"), []byte(`{"status": "ok"}`), []byte("buffer")))
	f.Fuzz(func(t *testing.T, frame []byte) {
		m, err := decodeV1(frame)
		if err != nil {
			return
		}
		if m.Header.MsgType == "" {
			t.Fatalf("decoded a message without a type: %+v", m)
		}
		channel, parts := v1Parts(frame)
		if channel != m.Channel || len(parts) < 4 {
			t.Fatalf("channel %q (decoded %q), %d parts", channel, m.Channel, len(parts))
		}
	})
}
