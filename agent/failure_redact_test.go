package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
)

// A model base URL given through each provider's variable, with a
// password in its userinfo and a key in its query, shows as *** in every
// way a turn can fail: the model service unreachable, its connection
// dropped, a refused key, a malformed-request answer that quotes the URL,
// and a busy server that is retried (ModelRetry). Nothing of the secrets
// reaches any event.
func TestBaseURLSecretsRedactedInFailures(t *testing.T) {
	const pw, key = "pw-s3cret", "key-s3cret"
	providers := []struct{ model, baseEnv, keyEnv, path string }{
		{"google:gemini-3-flash-preview", "GOOGLE_GEMINI_BASE_URL", "GEMINI_API_KEY", ""},
		{"openai:gpt-5-mini", "OPENAI_BASE_URL", "OPENAI_API_KEY", "/v1"},
		{"anthropic:claude-sonnet-4-5", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", ""},
		{"ollama:qwen3", "OLLAMA_BASE_URL", "OLLAMA_API_KEY", "/v1"},
	}
	// secretURL is base with the secrets put in.
	secretURL := func(base, path string) string {
		return strings.Replace(base, "http://", "http://me:"+pw+"@", 1) + path + "?key=" + key
	}
	// answer is a handler that answers status with a message quoting the
	// URL the client was given, in each provider's error shape.
	answer := func(status int, quote *string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			msg := "invalid request to " + *quote
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			b, _ := json.Marshal(map[string]any{
				"type":  "error",
				"error": map[string]any{"code": status, "message": msg, "status": "INVALID_ARGUMENT", "type": "invalid_request_error"},
			})
			_, _ = w.Write(b)
		}
	}
	drop := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hj, _ := w.(http.Hijacker)
		conn, _, _ := hj.Hijack()
		conn.Close()
	})
	type path struct {
		name    string
		handler func(quote *string) http.Handler // nil: nothing listens
		retried bool                             // the failure is retried: cancel at the first ModelRetry
		summary string                           // the Failed summary says this
	}
	paths := []path{
		{name: "unreachable", summary: "could not be reached"},
		{name: "refused key", handler: func(q *string) http.Handler { return answer(401, q) }, summary: "refused the API key"},
		{name: "malformed", handler: func(q *string) http.Handler { return answer(500, q) }, summary: "malformed"},
		{name: "busy", handler: func(q *string) http.Handler { return answer(503, q) }, retried: true},
		{name: "dropped", handler: func(*string) http.Handler { return drop }, retried: true},
	}
	for _, p := range providers {
		for _, fp := range paths {
			t.Run(p.baseEnv+"/"+fp.name, func(t *testing.T) {
				var base string
				if fp.handler == nil {
					l, err := net.Listen("tcp", "127.0.0.1:0")
					if err != nil {
						t.Fatal(err)
					}
					base = "http://" + l.Addr().String()
					l.Close() // nothing listens there now
				} else {
					var quote string
					srv := httptest.NewServer(fp.handler(&quote))
					t.Cleanup(srv.Close)
					base = srv.URL
					quote = secretURL(base, p.path)
				}
				t.Setenv(p.baseEnv, secretURL(base, p.path))
				t.Setenv(p.keyEnv, "k")
				ws := workspace(t, fmt.Sprintf(`{"model": %q}`, p.model))
				a := started(t, ws, fakeKernels(nil).executors(t))
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				var events []agent.Event
				for ev := range a.Stream(ctx, agent.Text("hi")) {
					events = append(events, ev)
					if _, ok := ev.(*agent.ModelRetry); ok && fp.retried {
						cancel()
					}
				}
				for _, ev := range events {
					b, err := json.Marshal(ev)
					if err != nil {
						t.Fatal(err)
					}
					if s := string(b); strings.Contains(s, pw) || strings.Contains(s, key) {
						t.Errorf("a secret of the base URL in %T: %s", ev, s)
					}
				}
				if fp.retried {
					if r := of[*agent.ModelRetry](events); len(r) == 0 || r[0].Reason == "" {
						t.Errorf("no ModelRetry with a reason:%s", describe(events))
					}
					return
				}
				f := of[*agent.Failed](events)
				if len(f) != 1 || !strings.Contains(f[0].Summary, fp.summary) {
					t.Fatalf("failed events %+v, want a summary with %q", f, fp.summary)
				}
				if fp.handler == nil && !strings.Contains(f[0].Summary, "***") {
					t.Errorf("summary %q does not show where it failed, redacted", f[0].Summary)
				}
				if fp.name == "malformed" && !strings.Contains(f[0].Summary, "***") {
					t.Errorf("summary %q does not quote the server's message, redacted", f[0].Summary)
				}
			})
		}
	}
}
