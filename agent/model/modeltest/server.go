package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/model"
)

// T is the part of testing.TB the servers use.
type T interface {
	Helper()
	Errorf(format string, args ...any)
	Cleanup(func())
}

// Server is a fake model server playing a Scenario.
type Server struct {
	srv  *httptest.Server
	t    T
	sc   Scenario
	wire wire

	mu        sync.Mutex
	next      int
	requests  []Request
	onRequest func(n int, r Request)
}

// Logged is a request as a log line holds it (fakemodel -log writes one
// JSON object a line): its number from 1, the model and API key it named,
// the names of the tools offered and the whole history sent.
type Logged struct {
	N        int             `json:"n"`
	Model    string          `json:"model"`
	APIKey   string          `json:"api_key"`
	Tools    []string        `json:"tools"`
	Messages []model.Message `json:"messages"`
}

// Log returns r as request number n of a log.
func (r Request) Log(n int) Logged {
	l := Logged{N: n, Model: r.Model, APIKey: r.APIKey, Messages: r.Messages, Tools: []string{}}
	for _, t := range r.Tools {
		l.Tools = append(l.Tools, t.Name)
	}
	return l
}

// Last returns the last message sent.
func (l Logged) Last() model.Message {
	if len(l.Messages) == 0 {
		return model.Message{}
	}
	return l.Messages[len(l.Messages)-1]
}

// OnRequest calls f with every request the server receives from now on
// (n counts from 1), before it is answered: a program can log them.
func (s *Server) OnRequest(f func(n int, r Request)) {
	s.mu.Lock()
	s.onRequest = f
	s.mu.Unlock()
}

// wire is one provider's protocol.
type wire interface {
	// decode parses a request; ok false means the path is not the
	// provider's streaming endpoint.
	decode(r *http.Request, body []byte) (req Request, err error)
	writeError(w http.ResponseWriter, e ErrorReply)
	// events renders a turn's reply as SSE events (see frame).
	events(turn Turn, n int) []string
}

func newServer(t T, sc Scenario, w wire) *Server {
	t.Helper()
	s := &Server{t: t, sc: sc, wire: w}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.finish)
	return s
}

// URL returns the server's root URL, e.g. http://127.0.0.1:PORT.
func (s *Server) URL() string { return s.srv.URL }

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Close stops the server; it is also done when the test ends.
func (s *Server) Close() { s.srv.Close() }

func (s *Server) finish() {
	s.srv.CloseClientConnections()
	s.srv.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	// A test skipped before its turn (the integration tier under -short)
	// did not fail to play it.
	if sk, ok := s.t.(interface{ Skipped() bool }); ok && sk.Skipped() {
		return
	}
	if s.next < len(s.sc.Turns) && !s.sc.AllowUnplayed {
		s.t.Errorf("scenario %q: %d of %d turns were never requested", s.sc.Name, len(s.sc.Turns)-s.next, len(s.sc.Turns))
	}
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet || r.URL.Path == "/api/show" {
		// What a client asks a server about itself (/v1/models, llama.cpp's
		// /props, Ollama's /api/show) is not there, as on a provider's
		// own API; it is not a model request.
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req, err := s.wire.decode(r, body)
	if err != nil {
		s.t.Errorf("scenario %q: bad request %s %s: %v", s.sc.Name, r.Method, r.URL, err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	n := s.next
	s.next++
	s.requests = append(s.requests, req)
	hook := s.onRequest
	s.mu.Unlock()
	if hook != nil {
		hook(n+1, req)
	}
	if n >= len(s.sc.Turns) {
		s.t.Errorf("scenario %q: request %d but the scenario has only %d turns", s.sc.Name, n+1, len(s.sc.Turns))
		s.wire.writeError(w, ErrorReply{Status: 500, Message: "scenario has no more turns"})
		return
	}
	turn := s.sc.Turns[n]
	for _, e := range turn.Expect.check(req) {
		s.t.Errorf("scenario %q turn %d: %s", s.sc.Name, n+1, e)
	}
	if turn.Error != nil {
		if e := turn.Error; e.Body != "" {
			if e.RetryAfter > 0 {
				w.Header().Set("Retry-After", strconv.Itoa(int(e.RetryAfter.Seconds())))
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(e.Status)
			_, _ = io.WriteString(w, e.Body)
		} else {
			s.wire.writeError(w, *turn.Error)
		}
		return
	}
	s.stream(w, r, turn, n)
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, turn Turn, n int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flusher := w.(http.Flusher)
	for _, ev := range s.wire.events(turn, n) {
		if turn.Delay > 0 {
			select {
			case <-time.After(turn.Delay):
			case <-r.Context().Done():
				return
			}
		}
		if _, err := io.WriteString(w, ev); err != nil {
			return
		}
		flusher.Flush()
	}
	switch turn.Then {
	case "malformed":
		fmt.Fprint(w, "data: {\"candidates\": [{\"content\": \r\n\r\n")
		flusher.Flush()
	case "cut":
		flusher.Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	case "hang":
		<-r.Context().Done()
	}
}

// frame renders one SSE event; name may be empty.
func frame(name string, data any) string {
	var b []byte
	if s, ok := data.(string); ok {
		b = []byte(s)
	} else {
		b, _ = json.Marshal(data)
	}
	if name != "" {
		return fmt.Sprintf("event: %s\r\ndata: %s\r\n\r\n", name, b)
	}
	return fmt.Sprintf("data: %s\r\n\r\n", b)
}

// statusWord is the google.rpc status name of an HTTP status.
func statusWord(code int) string {
	switch code {
	case 400:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 503:
		return "UNAVAILABLE"
	case 504:
		return "DEADLINE_EXCEEDED"
	}
	if code >= 500 {
		return "INTERNAL"
	}
	return "UNKNOWN"
}

// NewGemini starts a fake Gemini API server. Point the genai client at it
// with GOOGLE_GEMINI_BASE_URL (see UseGemini) or HTTPOptions.BaseURL.
func NewGemini(t T, sc Scenario) *Server { return newServer(t, sc, geminiWire{}) }

// NewOpenAI starts a fake OpenAI chat completions server; its base URL for
// clients is URL()+"/v1".
func NewOpenAI(t T, sc Scenario) *Server { return newServer(t, sc, openAIWire{}) }

// NewAnthropic starts a fake Anthropic Messages server; clients use URL()
// as the base URL (the path /v1/messages is theirs to add).
func NewAnthropic(t T, sc Scenario) *Server { return newServer(t, sc, anthropicWire{}) }

// UseGemini starts a fake Gemini server and points the environment at it:
// GOOGLE_GEMINI_BASE_URL is the server, GEMINI_API_KEY is "fake-key" and
// GOOGLE_API_KEY is cleared. The test must not be parallel (t.Setenv).
func UseGemini(t testing.TB, sc Scenario) *Server {
	t.Helper()
	s := NewGemini(t, sc)
	t.Setenv("GOOGLE_GEMINI_BASE_URL", s.URL())
	t.Setenv("GEMINI_API_KEY", "fake-key")
	t.Setenv("GOOGLE_API_KEY", "")
	return s
}

// UseOpenAI starts a fake OpenAI server and points OPENAI_BASE_URL at it,
// with OPENAI_API_KEY "fake-key". The test must not be parallel.
func UseOpenAI(t testing.TB, sc Scenario) *Server {
	t.Helper()
	s := NewOpenAI(t, sc)
	t.Setenv("OPENAI_BASE_URL", s.URL()+"/v1")
	t.Setenv("OPENAI_API_KEY", "fake-key")
	return s
}

func bearer(h string) string {
	return strings.TrimPrefix(h, "Bearer ")
}

// UseAnthropic starts a fake Anthropic server and points ANTHROPIC_BASE_URL
// at it, with ANTHROPIC_API_KEY "fake-key". The test must not be parallel.
func UseAnthropic(t testing.TB, sc Scenario) *Server {
	t.Helper()
	s := NewAnthropic(t, sc)
	t.Setenv("ANTHROPIC_BASE_URL", s.URL())
	t.Setenv("ANTHROPIC_API_KEY", "fake-key")
	return s
}
