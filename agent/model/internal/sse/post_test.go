package sse

import (
	"bufio"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/model"
)

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		in       string
		min, max time.Duration
	}{
		{"", 0, 0},
		{"2", 2 * time.Second, 2 * time.Second},
		{"0.5", 500 * time.Millisecond, 500 * time.Millisecond},
		{"-1", 0, 0},
		{"soon", 0, 0},
		{time.Now().Add(time.Hour).UTC().Format(http.TimeFormat), 58 * time.Minute, time.Hour},
		{time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat), 0, 0},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.in); got < tt.min || got > tt.max {
			t.Errorf("retryAfter(%q) = %v, want %v to %v", tt.in, got, tt.min, tt.max)
		}
	}
}

// closingServer answers the first request on a connection, then reads the
// next request on it and closes the connection without a word, as a
// server does whose keep-alive timeout ran out as the request arrived.
// Later connections are answered normally.
func closingServer(t *testing.T) (url string, conns *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	conns = &atomic.Int32{}
	const body = "data: {\"done\":true}\n\n"
	answer := func(c net.Conn, br *bufio.Reader) bool {
		req, err := http.ReadRequest(br)
		if err != nil {
			return false
		}
		_, _ = io.Copy(io.Discard, req.Body)
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		return true
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n := conns.Add(1)
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				if !answer(c, br) || n > 1 {
					for answer(c, br) {
					}
					return
				}
				if req, err := http.ReadRequest(br); err == nil {
					_, _ = io.Copy(io.Discard, req.Body)
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String(), conns
}

// A keep-alive connection the server closed as the request arrived is not
// an error: the request goes again on a new connection, before any byte
// of a reply came.
func TestClosedKeepAliveConnectionIsReplaced(t *testing.T) {
	url, conns := closingServer(t)
	client := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(client.CloseIdleConnections)
	read := func(r io.Reader) iter.Seq2[model.Chunk, error] {
		return func(yield func(model.Chunk, error) bool) {
			_, _ = io.Copy(io.Discard, r)
			yield(model.Finish{Reason: model.StopEnd}, nil)
		}
	}
	for i := range 2 {
		var got []model.Chunk
		for c, err := range Post(t.Context(), Request{Name: "test", Client: client, BaseURL: url, URL: url + "/chat", Body: map[string]int{"n": i}, Read: read}) {
			if err != nil {
				t.Fatalf("request %d: %v", i+1, err)
			}
			got = append(got, c)
		}
		if len(got) != 1 {
			t.Fatalf("request %d: chunks %v", i+1, got)
		}
	}
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections, want 2 (the closed one replaced)", n)
	}
}
