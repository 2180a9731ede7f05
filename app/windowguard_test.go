package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCapabilityPageHoldsTheCapabilityOnlyInIndexHTML(t *testing.T) {
	assets := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/", "/index.html":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Length", "54")
			_, _ = io.WriteString(w, "<html><head><title>freeact</title></head><body></body>")
		case "/app.js":
			_, _ = io.WriteString(w, "console.log('<head>')")
		default:
			http.NotFound(w, r)
		}
	})
	h := capabilityPage("s3cret")(assets)
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code, rec.Body.String()
	}
	for _, p := range []string{"/", "/index.html"} {
		code, body := get(p)
		if code != http.StatusOK || !strings.Contains(body, `<head><meta name="freeact-capability" content="s3cret">`) {
			t.Errorf("GET %s: %d %q, want the page with the capability", p, code, body)
		}
	}
	for _, p := range []string{"/app.js", "/missing"} {
		if _, body := get(p); strings.Contains(body, "s3cret") {
			t.Errorf("GET %s holds the capability: %q", p, body)
		}
	}
}
