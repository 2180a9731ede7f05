package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// maxLine bounds one message (the SDK's own limit is 10 MiB).
const maxLine = 10 << 20

// lockedWriter makes each Write whole: the SDK writes one message a
// Write, and the framing guard's errors go between them, never inside.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// guard passes the client's messages on, one a line, and answers what
// is not a JSON-RPC message itself: a line that is not JSON gets a parse
// error (-32700), and one that is not an object an invalid request
// (-32600), both with id null as JSON-RPC asks. (The SDK would only log
// them, and the client would wait for an answer that never comes.) A
// line over maxLine ends the connection with an error on the log.
func guard(in io.Reader, out io.Writer, onErr func(error)) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := readLine(r)
			if len(bytes.TrimSpace(line)) > 0 {
				if reply := check(line); reply != nil {
					if _, werr := out.Write(reply); werr != nil {
						pw.CloseWithError(werr)
						return
					}
				} else if _, werr := pw.Write(append(line, '\n')); werr != nil {
					return
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					onErr(err)
				}
				pw.Close()
				return
			}
		}
	}()
	return pr
}

func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("a message of over %d MiB: freeact acp stops reading", maxLine>>20)
		}
		if err != nil || !isPrefix {
			return line, err
		}
	}
}

// check returns the error response for a line that is no JSON-RPC
// message, nil for one the SDK should handle.
func check(line []byte) []byte {
	var msg any
	if err := json.Unmarshal(line, &msg); err != nil {
		return rpcError(-32700, "Parse error", fmt.Sprintf("the message is not JSON (%v): send one JSON-RPC object a line", err))
	}
	obj, ok := msg.(map[string]any)
	if !ok {
		return rpcError(-32600, "Invalid Request", "the message is not a JSON object: batches are not taken, send one JSON-RPC object a line")
	}
	_, hasMethod := obj["method"]
	_, hasID := obj["id"]
	if !hasMethod && !hasID {
		return rpcError(-32600, "Invalid Request", "the message has neither a method nor an id")
	}
	return nil
}

func rpcError(code int, message, detail string) []byte {
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": code, "message": message, "data": map[string]any{"error": detail}},
	})
	return append(b, '\n')
}
