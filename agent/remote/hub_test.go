package remote_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/remote"
	"github.com/freeact/desktop/internal/remotetest"
	"github.com/freeact/desktop/kernel"
	"github.com/freeact/desktop/kernel/hub"
)

// The Hub of this package's tests, started once (a Hub takes seconds).
var (
	hubOnce  sync.Once
	theHub   *remotetest.Hub
	cleanups []func()
)

// sharedTB registers the Hub's cleanup for the end of the package's tests.
type sharedTB struct{ *testing.T }

func (s sharedTB) Cleanup(f func()) { cleanups = append(cleanups, f) }

func TestMain(m *testing.M) {
	code := m.Run()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	os.Exit(code)
}

func startHub(t *testing.T) *remotetest.Hub {
	t.Helper()
	hubOnce.Do(func() {
		local, err := os.MkdirTemp("", "freeact-hub-local-")
		if err != nil {
			t.Fatal(err)
		}
		cleanups = append(cleanups, func() { os.RemoveAll(local) })
		theHub = remotetest.StartHub(sharedTB{t}, remotetest.Options{Hide: local})
	})
	if theHub == nil {
		t.Skip("no Hub")
	}
	return theHub
}

// workspace is a workspace whose agent.json holds opts, loaded with keys
// in the key store.
func workspace(t *testing.T, opts map[string]any, keys map[string]string) *config.Config {
	t.Helper()
	ws := t.TempDir()
	if err := config.Init(ws); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(opts)
	if err := os.WriteFile(filepath.Join(ws, config.FreeactDir, config.AgentFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(ws, config.LoadOptions{APIKeys: keys, Lookup: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// An OAuth sign-in against a real Hub whose administrator registered
// freeact as a service (docs/remote.md's snippet): the system browser
// ($BROWSER, a script doing what the user does) is sent to the Hub's own
// authorize endpoint with a PKCE S256 challenge and a state, the user
// signs in and accepts, the Hub redirects to the loopback listener, and
// the code becomes a token that is the user's, with the scopes freeact
// needs. A wrong client secret is refused at the token request without
// the secret in the error.
func TestHubOAuthSignInThroughBrowser(t *testing.T) {
	h := startHub(t)
	log := filepath.Join(t.TempDir(), "browser.log")
	t.Setenv("BROWSER", h.Browser(remotetest.HubUser, log))
	opts := map[string]any{"jupyter_url": h.URL, "jupyter_oauth_client_id": h.OAuthClientID,
		"jupyter_oauth_client_secret": "${HUB_CLIENT_SECRET}", "jupyter_oauth_redirect_uri": h.OAuthRedirectURI}
	cfg := workspace(t, opts, map[string]string{"HUB_CLIENT_SECRET": h.OAuthSecret})
	hb, err := remote.OpenHub(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	user, token, err := hb.SignInBrowser(ctx, nil)
	if err != nil {
		t.Fatalf("sign in: %v\nbrowser: %s\nhub:\n%s", err, readFile(log), h.Log())
	}
	if user != remotetest.HubUser || token == "" {
		t.Fatalf("signed in as %q with a token of %d bytes", user, len(token))
	}
	if got, err := hb.Whoami(ctx, token); err != nil || got != remotetest.HubUser {
		t.Fatalf("whoami with the OAuth token: %q, %v", got, err)
	}
	// What the browser was given: the Hub's authorize endpoint, PKCE S256,
	// a state, the registered client and redirect URI, freeact's scopes.
	lines := strings.Split(strings.TrimSpace(readFile(log)), "\n")
	if len(lines) != 2 {
		t.Fatalf("browser log: %q", lines)
	}
	auth, err := url.Parse(lines[0])
	if err != nil {
		t.Fatal(err)
	}
	q := auth.Query()
	if base := auth.Scheme + "://" + auth.Host + auth.Path; base != h.URL+"hub/api/oauth2/authorize" {
		t.Errorf("authorize endpoint %s", base)
	}
	if q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43 || len(q.Get("state")) < 20 ||
		q.Get("client_id") != h.OAuthClientID || q.Get("redirect_uri") != h.OAuthRedirectURI ||
		q.Get("scope") != strings.Join(hub.Scopes, " ") || q.Get("response_type") != "code" {
		t.Errorf("authorization request %v", q)
	}
	if q.Has("client_secret") {
		t.Error("the client secret went to the browser")
	}
	if want := "ended at " + h.OAuthRedirectURI + " 200"; lines[1] != want {
		t.Errorf("the browser %q; want %q", lines[1], want)
	}

	// A wrong client secret: the Hub refuses the code.
	os.Remove(log)
	bad := workspace(t, opts, map[string]string{"HUB_CLIENT_SECRET": "wrong-secret-1234"})
	hb, err = remote.OpenHub(bad)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = hb.SignInBrowser(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), "token request") || strings.Contains(err.Error(), "wrong-secret-1234") {
		t.Fatalf("sign in with a wrong client secret: %v; want the token request refused, without the secret", err)
	}
}

func readFile(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

// jupyter_server_name in agent.json picks the user's named server: the
// connection starts it (the spawner's progress shown) and runs there.
func TestHubNamedServerFromAgentJSON(t *testing.T) {
	h := startHub(t)
	token, _ := h.Token(remotetest.HubUser, hub.Scopes...)
	base, _ := hub.Base(h.URL)
	cfg := workspace(t, map[string]any{"jupyter_url": h.URL, "jupyter_server_name": "cpu"}, map[string]string{hub.TokenName(base): token})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var mu sync.Mutex
	var steps []string
	srv, err := remote.Connect(ctx, cfg, func(p kernel.Progress) {
		mu.Lock()
		defer mu.Unlock()
		steps = append(steps, p.Step)
	})
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, h.Log())
	}
	defer h.StopServer(remotetest.HubUser, "cpu")
	defer srv.Close()
	mu.Lock()
	joined := strings.Join(steps, "\n")
	mu.Unlock()
	if !strings.Contains(joined, `your server "cpu"`) || !strings.Contains(joined, remotetest.SpawnerMessage) {
		t.Errorf("progress: %q", steps)
	}
	var u struct {
		Servers map[string]struct {
			Ready bool `json:"ready"`
		} `json:"servers"`
	}
	if err := h.API(http.MethodGet, "users/"+remotetest.HubUser, nil, &u); err != nil {
		t.Fatal(err)
	}
	if !u.Servers["cpu"].Ready {
		t.Fatalf("the Hub's servers of %s: %+v; want cpu ready", remotetest.HubUser, u.Servers)
	}
	k, err := srv.StartKernel(ctx, kernel.KernelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	res, err := k.Execute(ctx, "import os; print(os.environ.get('JUPYTERHUB_SERVER_NAME'))", nil)
	if err != nil || strings.TrimSpace(res.Text) != "cpu" {
		t.Fatalf("cell on the named server: %q, %v", res.Text, err)
	}
}

// A jupyter_url that is neither a Hub nor a Jupyter server gets an error
// that says what each answer was and how to fix the URL; a Jupyter server
// that refuses the token keeps its own error; jupyter_server_name on a
// URL that is no Hub is an error naming both keys.
func TestConnectNeitherHubNorServer(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>Welcome to our web site</body></html>"))
	}))
	defer site.Close()
	missing := httptest.NewServer(http.NotFoundHandler())
	defer missing.Close()
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			http.Error(w, `{"message": "Forbidden"}`, http.StatusForbidden)
			return
		}
		http.NotFound(w, r)
	}))
	defer refusing.Close()
	for _, tc := range []struct {
		name string
		opts map[string]any
		want []string
		not  string
	}{
		{"a web site", map[string]any{"jupyter_url": site.URL + "/?token=abcdef123456"},
			[]string{"is neither a JupyterHub nor a Jupyter server", "hub/api answered something that is not the Hub's version (text/html)", "it does not list kernels", "fix: check jupyter_url"}, "abcdef123456"},
		{"nothing at the path", map[string]any{"jupyter_url": missing.URL + "/jupyter/"},
			[]string{"is neither a JupyterHub nor a Jupyter server", "/jupyter/hub/api answered HTTP 404", "GET /api/kernelspecs answered HTTP 404", "fix:"}, ""},
		{"a server refusing the token", map[string]any{"jupyter_url": refusing.URL, "jupyter_token": "abcdef123456"},
			[]string{"HTTP 403 (authentication failed"}, "neither"},
		{"a server name without a Hub", map[string]any{"jupyter_url": missing.URL, "jupyter_server_name": "gpu"},
			[]string{`jupyter_server_name "gpu" names a server on a JupyterHub`, "is not a JupyterHub (GET", "fix:"}, ""},
		{"a server name and nothing answering", map[string]any{"jupyter_url": "http://127.0.0.1:1/", "jupyter_server_name": "gpu"},
			[]string{"connection refused"}, "jupyter_server_name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := workspace(t, tc.opts, nil)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			srv, err := remote.Connect(ctx, cfg, nil)
			if err == nil {
				srv.Close()
				t.Fatal("connected")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
			if tc.not != "" && strings.Contains(err.Error(), tc.not) {
				t.Errorf("error %q holds %q", err, tc.not)
			}
		})
	}
}
