package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/agent/mcp/oauth"
	"github.com/freeact/desktop/internal/testenv"
)

// A sign-in outlives the request that started it: the protocol probe
// gives up after a moment while the user is still in the browser, the
// handshake that follows waits for the same sign-in (one browser, not
// two), and neither the probe's timeout nor connect_timeout ends it. The
// browser step's context then ends with ErrSignedIn.
func TestSignInOutlivesTheProbe(t *testing.T) {
	auth := mcptest.NewOAuth(t)
	dir := t.TempDir()
	release := make(chan struct{})
	var opened atomic.Int32
	steps := make(chan context.Context, 2)
	browser := func(ctx context.Context, _ string, u string) error {
		opened.Add(1)
		steps <- ctx
		go func() {
			<-release
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
	srv := auth.Server()
	one := 1.0
	srv.ConnectTimeout = &one
	m := mcp.NewManager(map[string]config.Server{"secured": srv}, mcp.Options{
		ProbeTimeout: 100 * time.Millisecond,
		SignIn:       mcp.SignInOptions{Dir: dir, Store: oauth.FileStore(filepath.Join(dir, "tokens")), Browser: browser},
	})
	t.Cleanup(func() { m.Close() })
	done := make(chan error, 1)
	go func() {
		_, err := m.Call(t.Context(), "secured", "echo", json.RawMessage(`{"text":"hi"}`))
		done <- err
	}()
	step := <-steps
	// The probe gave up and the handshake came, refused too: both wait
	// for the one sign-in.
	testenv.Eventually(t, time.Minute, func() error {
		if auth.Refused() < 2 {
			return errors.New("the handshake after the probe has not come")
		}
		return nil
	})
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("call after a sign-in slower than the probe: %v", err)
	}
	if n := opened.Load(); n != 1 {
		t.Errorf("the browser was opened %d times, want once", n)
	}
	<-step.Done()
	if !errors.Is(context.Cause(step), oauth.ErrSignedIn) {
		t.Errorf("the browser step ended with %v, want ErrSignedIn", context.Cause(step))
	}
}
