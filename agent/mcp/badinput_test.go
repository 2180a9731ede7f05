package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/agent/mcp/oauth"
)

// Bad input from a server, or a sign-in the user leaves, ends in one clear
// message naming the server and the step; the other server of the same
// Manager keeps answering, and nothing is kept half-written (no tokens,
// and every file of the token store whole). Each case lists the message
// the user gets, the server's address written as URL. A server that
// floods notifications is TestProgressThrottleFlood (package agent).
func TestBadInputMessages(t *testing.T) {
	tests := []struct {
		name string
		// spoil prepares the authorization server; browser plays the
		// user's browser (nil: it follows the redirect).
		spoil   []mcptest.OAuthOption
		browser func(ctx context.Context, server, u string) error
		// form calls the tool "ask" with a form freeact cannot show,
		// instead of a call that needs a sign-in.
		form bool
		// timeout bounds the browser step (0: a minute).
		timeout time.Duration
		want    string
	}{
		{
			name:  "malformed metadata",
			spoil: []mcptest.OAuthOption{mcptest.ResourceMetadata(`{"resource": `)},
			want:  "MCP server \"secured\": sign-in failed (discovery): URL/.well-known/oauth-protected-resource/mcp: protected resource metadata is not valid JSON: unexpected end of JSON input. Sign in again from Settings → MCP or with `freeact mcp login secured`",
		},
		{
			name:  "authorization server on plain http",
			spoil: []mcptest.OAuthOption{mcptest.ResourceMetadata(`{"authorization_servers": ["http://as.example"]}`)},
			want:  "MCP server \"secured\": sign-in failed (discovery): URL/.well-known/oauth-protected-resource/mcp: protected resource metadata: authorization server \"http://as.example\": plain http to as.example, which is not this computer: codes, tokens and client secrets would travel in clear; refusing it (an authorization server must use https). Sign in again from Settings → MCP or with `freeact mcp login secured`",
		},
		{
			name:  "token endpoint error",
			spoil: []mcptest.OAuthOption{mcptest.TokenError(`{"error":"invalid_grant","error_description":"the code expired"}`)},
			want:  "MCP server \"secured\": sign-in failed (token request): URL/token answered 400 Bad Request: invalid_grant: the code expired. Sign in again from Settings → MCP or with `freeact mcp login secured`",
		},
		{
			name:    "browser never returns",
			browser: func(context.Context, string, string) error { return nil },
			timeout: 300 * time.Millisecond,
			want:    "MCP server \"secured\": sign-in failed (browser): no answer from the browser within 300ms. Sign in again from Settings → MCP or with `freeact mcp login secured`",
		},
		{
			name: "sign-in card closed",
			browser: func(ctx context.Context, _ string, _ string) error {
				// The desktop's Cancel on the "Sign in to NAME" card.
				go oauth.CancelSignIn(ctx)
				return nil
			},
			want: "MCP server \"secured\": sign-in failed (browser): sign-in cancelled. Sign in again from Settings → MCP or with `freeact mcp login secured`",
		},
		{
			name: "elicitation form that cannot be shown",
			form: true,
			want: "MCP server \"plain\" asked for a form freeact cannot show, so it was declined without asking you (the server was told why): field \"address\" is of type \"object\"; forms hold only strings, numbers, booleans and choices",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := mcptest.NewOAuth(t, tc.spoil...)
			browser := follow
			if tc.browser != nil {
				browser = tc.browser
			}
			var opened atomic.Int32
			counted := func(ctx context.Context, server, u string) error {
				opened.Add(1)
				return browser(ctx, server, u)
			}
			timeout := tc.timeout
			if timeout == 0 {
				timeout = time.Minute
			}
			dir := t.TempDir()
			var mu sync.Mutex
			var notes []string
			m := mcp.NewManager(map[string]config.Server{
				"secured": a.Server(),
				"plain":   mcptest.HTTP(t),
			}, mcp.Options{
				SignIn: mcp.SignInOptions{Dir: dir, Store: oauth.FileStore(filepath.Join(dir, "tokens")), Browser: counted, Timeout: timeout},
				Elicit: func(context.Context, mcp.Form) (mcp.Answer, error) {
					t.Error("the user was asked to fill in a form freeact cannot show")
					return mcp.Answer{Action: "cancel"}, nil
				},
			})
			t.Cleanup(func() { m.Close() })
			var got string
			if tc.form {
				ctx := mcp.WithNotify(t.Context(), func(n mcp.Notification) {
					mu.Lock()
					defer mu.Unlock()
					if n.Kind == "log" {
						notes = append(notes, n.Message)
					}
				})
				res, err := m.Call(ctx, "plain", "ask", json.RawMessage(`{"nested":true}`))
				if err != nil {
					t.Fatalf("the call failed instead of going on with a decline: %v", err)
				}
				// The server was told: declined, and why.
				var answer struct {
					Action string            `json:"action"`
					Meta   map[string]string `json:"_meta"`
				}
				if err := json.Unmarshal([]byte(res.Text), &answer); err != nil || answer.Action != "decline" ||
					!strings.Contains(answer.Meta[mcp.DeclinedMeta], `field "address" is of type "object"`) {
					t.Errorf("the server got %s (%v), want a decline saying why", res.Text, err)
				}
				mu.Lock()
				got = strings.Join(notes, "\n")
				mu.Unlock()
			} else {
				_, err := m.Call(t.Context(), "secured", "echo", json.RawMessage(`{"text":"x"}`))
				if err == nil {
					t.Fatal("the call succeeded")
				}
				got = err.Error()
				// The failure is kept: the next call says the same at
				// once, without a second browser.
				if _, again := m.Call(t.Context(), "secured", "echo", json.RawMessage(`{"text":"x"}`)); again == nil || again.Error() != got {
					t.Errorf("the next call: %v, want the same message", again)
				}
				if n := opened.Load(); n > 1 {
					t.Errorf("the browser was opened %d times, want at most once", n)
				}
				if st, err := m.SignInStatus("secured"); err != nil || st.SignedIn || st.Refreshable {
					t.Errorf("status after the failure: %+v %v, want no tokens", st, err)
				}
			}
			got = strings.ReplaceAll(got, strings.TrimSuffix(a.URL(), "/mcp"), "URL")
			if got != tc.want {
				t.Errorf("the user is told\n\t%s\nwant\n\t%s", got, tc.want)
			}
			// The rest works: the other server answers.
			if res, err := m.Call(t.Context(), "plain", "echo", json.RawMessage(`{"text":"still here"}`)); err != nil || res.Text != "echo: still here" {
				t.Errorf("the other server after the failure: %+v %v", res, err)
			}
			// Nothing half-written: each kept file is whole JSON and holds
			// no token.
			files, _ := filepath.Glob(filepath.Join(dir, "tokens", "*"))
			for _, f := range files {
				b, err := os.ReadFile(f)
				var v map[string]any
				if err != nil || json.Unmarshal(b, &v) != nil || v["access_token"] != nil || v["refresh_token"] != nil {
					t.Errorf("%s after the failure: %q %v, want a whole record without tokens", filepath.Base(f), b, err)
				}
			}
		})
	}
}
