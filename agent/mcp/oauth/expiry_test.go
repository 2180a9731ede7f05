package oauth

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/mcp/mcptest"
)

// A token issued for less than the 30 s margin before expiry is not
// refreshed at every request: only in the last half of its life.
func TestShortLivedTokenRefreshedOnce(t *testing.T) {
	auth := mcptest.NewOAuth(t, mcptest.AccessLifetime(20*time.Second))
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	c := New(Options{Server: "secured", URL: auth.URL(), Store: FileStore(t.TempDir()), Now: clock,
		Browser: func(ctx context.Context, _ string, u string) error {
			go func() {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}()
			return nil
		}})
	hc := &http.Client{Transport: c.Transport(nil)}
	ping := func() {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, auth.URL(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusUnauthorized {
			t.Fatal("the request was refused: 401")
		}
	}
	types := func() []string {
		var out []string
		for _, g := range auth.Grants() {
			out = append(out, g.Type)
		}
		return out
	}

	for range 3 { // signs in, then uses the fresh token
		ping()
	}
	if got := types(); len(got) != 1 || got[0] != "authorization_code" {
		t.Fatalf("grants after three requests with a fresh token: %v, want the sign-in's only", got)
	}
	mu.Lock()
	now = now.Add(11 * time.Second) // past half of its life
	mu.Unlock()
	for range 3 {
		ping()
	}
	if got := types(); len(got) != 2 || got[1] != "refresh_token" {
		t.Fatalf("grants after the token's half-life: %v, want the sign-in's and one refresh", got)
	}
}
