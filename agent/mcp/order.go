package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"sync"
)

// maxListLine bounds the message toolSchemas keeps to read: a tools/list
// answer longer than this keeps mcp-go's key order.
const maxListLine = 32 << 20

// toolSchemas watches what a server sends for its answers to tools/list
// and keeps each tool's schemas as sent. mcp-go decodes the properties
// of nested objects into Go maps, which lose their order; the generated
// Python classes list fields in the schema's order (reorderLike).
type toolSchemas struct {
	mu   sync.Mutex
	line []byte
	long bool // the current line passed maxListLine
	in   map[string]json.RawMessage
	out  map[string]json.RawMessage
}

func newToolSchemas() *toolSchemas {
	return &toolSchemas{in: map[string]json.RawMessage{}, out: map[string]json.RawMessage{}}
}

// Write takes what the server sent, line by line (stdio messages, SSE
// data lines, a JSON body).
func (s *toolSchemas) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.add(p)
			break
		}
		s.add(p[:i])
		s.flushLocked()
		p = p[i+1:]
	}
	return n, nil
}

func (s *toolSchemas) add(p []byte) {
	if s.long || len(s.line)+len(p) > maxListLine {
		s.long, s.line = true, s.line[:0]
		return
	}
	s.line = append(s.line, p...)
}

// flush reads what came since the last line end (a body without one).
func (s *toolSchemas) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushLocked()
}

func (s *toolSchemas) flushLocked() {
	line := bytes.TrimSpace(s.line)
	s.line, s.long = s.line[:0], false
	line = bytes.TrimSpace(bytes.TrimPrefix(line, []byte("data:")))
	if !bytes.Contains(line, []byte(`"tools"`)) {
		return
	}
	var msg struct {
		Result struct {
			Tools []struct {
				Name         string          `json:"name"`
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if json.Unmarshal(line, &msg) != nil {
		return
	}
	for _, t := range msg.Result.Tools {
		s.in[t.Name], s.out[t.Name] = t.InputSchema, t.OutputSchema
	}
}

// schemas returns the input and output schema of tool as last listed.
func (s *toolSchemas) schemas(tool string) (in, out json.RawMessage) {
	if s == nil {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.in[tool], s.out[tool]
}

// seenBody passes an HTTP response body on and shows it to s, flushed at
// its end.
type seenBody struct {
	io.ReadCloser
	s *toolSchemas
}

func (b seenBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	_, _ = b.s.Write(p[:n])
	if err == io.EOF {
		b.s.flush()
	}
	return n, err
}

// reorderLike returns v with the keys of each of its objects in the order
// they have in like (the same JSON as sent by the server), keys like does
// not have after them. Nothing but the order changes; v comes back as it
// is when like is not the same shape.
func reorderLike(v, like json.RawMessage) json.RawMessage {
	if len(like) == 0 {
		return v
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber() // numbers as written
	var a any
	if dec.Decode(&a) != nil || !json.Valid(like) {
		return v
	}
	var buf bytes.Buffer
	if writeOrdered(&buf, a, like) != nil {
		return v
	}
	return buf.Bytes()
}

// writeOrdered writes v (decoded) as JSON, objects' keys in the order of
// like's (raw), recursively.
func writeOrdered(buf *bytes.Buffer, v any, like json.RawMessage) error {
	switch x := v.(type) {
	case map[string]any:
		order, sub := rawObject(like)
		buf.WriteByte('{')
		first := true
		write := func(k string) error {
			if !first {
				buf.WriteByte(',')
			}
			first = false
			kb, _ := json.Marshal(k)
			buf.Write(kb)
			buf.WriteByte(':')
			return writeOrdered(buf, x[k], sub[k])
		}
		done := map[string]bool{}
		for _, k := range order {
			if _, ok := x[k]; ok && !done[k] {
				done[k] = true
				if err := write(k); err != nil {
					return err
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if !done[k] {
				if err := write(k); err != nil {
					return err
				}
			}
		}
		buf.WriteByte('}')
		return nil
	case []any:
		var items []json.RawMessage
		_ = json.Unmarshal(like, &items)
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			var l json.RawMessage
			if i < len(items) {
				l = items[i]
			}
			if err := writeOrdered(buf, e, l); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return err
		}
		buf.Write(b)
		return nil
	}
}

// rawObject returns the keys of a raw JSON object in order and their raw
// values; nothing when raw is not an object.
func rawObject(raw json.RawMessage) ([]string, map[string]json.RawMessage) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil
	}
	var keys []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil
		}
		k, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, nil
		}
		keys = append(keys, k)
		vals[k] = val
	}
	return keys, vals
}
