package modeltest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
)

// WithProps puts llama.cpp's GET /props in front of s: it says whether the
// chat template supports tool calls, and every other request goes to s.
// It returns the front's URL; the test closes it.
func WithProps(t testing.TB, s *Server, toolCalls bool) string {
	t.Helper()
	target, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/props" {
			caps := map[string]bool{"supports_tools": toolCalls, "supports_tool_calls": toolCalls}
			_ = json.NewEncoder(w).Encode(map[string]any{"chat_template_caps": caps})
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return front.URL
}
