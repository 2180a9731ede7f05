package agent_test

import (
	"context"
	"github.com/freeact/desktop/agent/failure"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/agent/modelopen"
)

// A missing API key does not stop the start: the turn fails saying which
// key is missing, the session keeps nothing of it, and once the key is set
// (Reconfigure) the same prompt goes through and is saved once.
func TestMissingKeyFailsTheTurnUntilSet(t *testing.T) {
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - expect:
      last: [{role: user, text: "Hello."}]
      messages: 1
    reply: [{text: "Hi."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	fake := modeltest.NewGemini(t, sc)
	t.Setenv("GOOGLE_GEMINI_BASE_URL", fake.URL())
	// Set but empty, as an empty export leaves them: no key, and no
	// obstacle to the key written to .env below.
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("GOOGLE_API_KEY", "")
	ws := workspace(t, "")
	cfg := load(t, ws)
	var missing *agent.MissingKeyError
	if err := modelopen.Check(cfg); err == nil || !asMissing(err, &missing) || missing.KeyEnv != "GEMINI_API_KEY" {
		t.Fatalf("CheckModel = %v, want a MissingKeyError for GEMINI_API_KEY", err)
	}
	a, err := agent.New(cfg, agent.WithDirs(testDirs), fakeKernels(nil).executors(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(t.Context()); err != nil {
		t.Fatalf("start without a key: %v", err)
	}
	t.Cleanup(func() { _ = a.Stop() })

	events := run(t, a, "Hello.", nil)
	f := of[*agent.Failed](events)
	if len(f) != 1 || f[0].Cause != failure.CauseAPIKey || f[0].KeyEnv != "GEMINI_API_KEY" || f[0].Summary == "" || f[0].Fix == "" {
		t.Fatalf("failed events %+v, want one with cause api_key naming GEMINI_API_KEY", f)
	}
	if len(fake.Requests()) != 0 {
		t.Error("the model was called without a key")
	}
	if len(a.History()) != 0 {
		t.Errorf("history after the failed turn: %+v", a.History())
	}

	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte("GEMINI_API_KEY=the-new-key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Reconfigure(t.Context(), load(t, ws)); err != nil {
		t.Fatalf("reconfigure with the key: %v", err)
	}
	events = run(t, a, "Hello.", nil)
	if r := of[*agent.Response](events); len(r) != 1 || r[0].Text != "Hi." {
		t.Fatalf("after setting the key:%s", describe(events))
	}
	if reqs := fake.Requests(); len(reqs) != 1 || reqs[0].APIKey != "the-new-key" {
		t.Errorf("requests %d, key %q", len(reqs), reqs[0].APIKey)
	}
	a.Cancel()
	data, err := os.ReadFile(filepath.Join(cfg.SessionsDir(), a.SessionID(), "main.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "Hello."); n != 1 {
		t.Errorf("the session holds the prompt %d times, want once:\n%s", n, data)
	}
}

func asMissing(err error, target **agent.MissingKeyError) bool {
	m, ok := err.(*agent.MissingKeyError)
	*target = m
	return ok
}

// Provider errors and an unreachable service are said in plain words, with
// the provider's status.
func TestModelFailuresSayWhatFailed(t *testing.T) {
	tests := []struct {
		name, scenario string
		status         int
		summary        string
		fix            string // where the fix sends the user, if anywhere
	}{
		{"bad key", `{status: 401, message: "API key not valid"}`, 401, "refused the API key", ""},
		// The model and its settings are in the Model tab.
		{"unknown model", `{status: 404, message: "models/gemini-nope is not found"}`, 404, "does not know the model", "in Settings → Model,"},
		{"bad request", `{status: 400, message: "bad request"}`, 400, "rejected the request", "in Settings → Model,"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _, _ := fakeKernels(nil).start(t, "turns:\n  - error: "+tt.scenario+"\n")
			events := run(t, a, "Hello.", nil)
			f := of[*agent.Failed](events)
			if len(f) != 1 || f[0].Cause != failure.CauseModel || f[0].Status != tt.status ||
				!strings.Contains(f[0].Summary, tt.summary) || f[0].Fix == "" {
				t.Fatalf("failed events %+v, want cause model, status %d, summary with %q", f, tt.status, tt.summary)
			}
			if !strings.Contains(f[0].Fix, tt.fix) {
				t.Errorf("fix %q, want it to say %q", f[0].Fix, tt.fix)
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close() // nothing listens there now
		ws := workspace(t, "")
		t.Setenv("GOOGLE_GEMINI_BASE_URL", "http://"+addr)
		t.Setenv("GEMINI_API_KEY", "k")
		a, err := agent.New(load(t, ws), agent.WithDirs(testDirs), fakeKernels(nil).executors(t))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if err := a.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = a.Stop() })
		events := run(t, a, "Hello.", nil)
		f := of[*agent.Failed](events)
		if len(f) != 1 || f[0].Cause != failure.CauseModel || f[0].Status != 0 ||
			!strings.Contains(f[0].Summary, "could not be reached") || !strings.Contains(f[0].Summary, addr) {
			t.Fatalf("failed events %+v, want an unreachable model at %s", f, addr)
		}
	})
}

// Secrets in URLs (a token in jupyter_url's query, a password in its
// userinfo, a key in a model's base URL) never reach an error or a Failed
// event.
func TestURLSecretsRedacted(t *testing.T) {
	t.Run("jupyter_url", func(t *testing.T) {
		ws := workspace(t, `{"jupyter_url": "http://me:hunter2@127.0.0.1:1/?token=s3cr3t-tok", "jupyter_reconnect_timeout": 0}`)
		a, err := agent.New(load(t, ws))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err = a.Start(ctx)
		_ = a.Stop()
		if err == nil {
			t.Fatal("started against a closed port")
		}
		if msg := err.Error(); strings.Contains(msg, "hunter2") || strings.Contains(msg, "s3cr3t-tok") || !strings.Contains(msg, "127.0.0.1:1") {
			t.Errorf("start error %q", msg)
		}
	})
	t.Run("model base_url", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hj, _ := w.(http.Hijacker)
			conn, _, _ := hj.Hijack()
			conn.Close() // the connection drops: the client's error names the URL
		}))
		defer srv.Close()
		ws := workspace(t, `{"model": "openai:gpt-5-mini", "provider_settings": {"api_key": "k", "base_url": "`+strings.Replace(srv.URL, "http://", "http://user:pw-secret@", 1)+`/v1?api-key=key-secret"}}`)
		a := started(t, ws, fakeKernels(nil).executors(t))
		failed := of[*agent.Failed](run(t, a, "hi", nil))
		if len(failed) == 0 {
			t.Fatal("no Failed event")
		}
		for _, f := range failed {
			if strings.Contains(f.Error, "key-secret") || strings.Contains(f.Error, "pw-secret") {
				t.Errorf("Failed event %q", f.Error)
			}
		}
	})
}
