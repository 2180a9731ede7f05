package hub_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/remotetest"
	"github.com/freeact/desktop/kernel"
	"github.com/freeact/desktop/kernel/hub"
)

// The Hub of this package's tests, started once (a Hub takes seconds).
var (
	hubOnce sync.Once
	theHub  *remotetest.Hub
)

func startHub(t *testing.T) *remotetest.Hub {
	t.Helper()
	hubOnce.Do(func() {
		// The local side's folder, which the Hub's servers must not see.
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

var cleanups []func()

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

var client = &http.Client{Timeout: time.Minute}

// signIn recognises the Hub and checks token's owner and scopes.
func signIn(t *testing.T, h *remotetest.Hub, url, token string) (*hub.Client, hub.User) {
	t.Helper()
	ctx := context.Background()
	base, info, err := hub.Detect(ctx, client, url)
	if err != nil {
		t.Fatalf("detect: %v", err)
	}
	if info.Version == "" || base.String() != h.URL {
		t.Fatalf("detect: base %s, info %+v", base, info)
	}
	c := hub.New(base, token, client)
	u, err := c.Me(ctx)
	if err != nil {
		t.Fatalf("me: %v", err)
	}
	if err := c.CheckScopes(u); err != nil {
		t.Fatalf("scopes: %v", err)
	}
	return c, u
}

// run runs code on a kernel of the single-user server at srv with token.
func run(t *testing.T, srv, token, code string) string {
	t.Helper()
	ctx := context.Background()
	s, err := kernel.ConnectServer(ctx, srv, token, kernel.RemoteOptions{})
	if err != nil {
		t.Fatalf("connect to the single-user server: %v", err)
	}
	defer s.Close()
	k, err := s.StartKernel(ctx, kernel.KernelOptions{})
	if err != nil {
		t.Fatalf("start a kernel: %v", err)
	}
	defer k.Close()
	res, err := k.Execute(ctx, code, nil)
	if err != nil {
		t.Fatalf("execute: %v", err)
	}
	return res.Text
}

// A token sign-in against a real Hub, then a start of the stopped default
// server with the spawner's progress, then a cell on it through
// /user/NAME/ with the Hub token. It logs the time from "stopped" to the
// first cell's result.
func TestHubTokenSignInStartsStoppedServer(t *testing.T) {
	h := startHub(t)
	token, _ := h.Token(remotetest.HubUser, hub.Scopes...)
	// …/hub/ names the Hub as well as its root does.
	c, u := signIn(t, h, h.URL+"hub/", token)
	if u.Name != remotetest.HubUser {
		t.Fatalf("user %q", u.Name)
	}
	if s, ok := u.Servers[""]; ok && s.Ready {
		t.Fatalf("the server runs before it was started: %+v", s)
	}
	begin := time.Now()
	var mu sync.Mutex
	var steps []kernel.Progress
	srv, err := c.Start(context.Background(), u, "", func(p kernel.Progress) {
		mu.Lock()
		steps = append(steps, p)
		mu.Unlock()
	})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	if want := h.URL + "user/" + remotetest.HubUser + "/"; srv.String() != want {
		t.Errorf("server URL %s, want %s", srv, want)
	}
	out := run(t, srv.String(), token, "import os; print(os.getcwd())")
	elapsed := time.Since(begin)
	t.Logf("stopped → first cell's result: %v", elapsed)
	if strings.TrimSpace(out) != h.Root {
		t.Errorf("the cell ran in %q, want the Hub's root %s", out, h.Root)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(steps) < 2 || steps[len(steps)-1].Fraction != 1 || !strings.Contains(steps[len(steps)-1].Step, "ready") {
		t.Fatalf("progress %+v: want the start, the spawner's messages and ready", steps)
	}
	sawSpawner := false
	for _, p := range steps {
		if strings.Contains(p.Step, token) {
			t.Fatalf("a progress message holds the token: %q", p.Step)
		}
		sawSpawner = sawSpawner || (p.Fraction == 0.3 && strings.Contains(p.Step, remotetest.SpawnerMessage))
	}
	if !sawSpawner {
		t.Errorf("no message of the spawner's own between start and ready: %+v", steps)
	}
	// Asked again, the running server is used as it is.
	u, _ = c.Me(context.Background())
	if again, err := c.Start(context.Background(), u, "", nil); err != nil || again.String() != srv.String() {
		t.Errorf("start of a running server: %v %v", again, err)
	}
}

// A named server starts under /user/NAME/SERVER/.
func TestHubNamedServer(t *testing.T) {
	h := startHub(t)
	token, _ := h.Token(remotetest.HubUser)
	c, u := signIn(t, h, h.URL, token)
	srv, err := c.Start(context.Background(), u, "gpu", nil)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	if want := h.URL + "user/" + remotetest.HubUser + "/gpu/"; srv.String() != want {
		t.Fatalf("server URL %s, want %s", srv, want)
	}
	if out := run(t, srv.String(), token, "print(6*7)"); strings.TrimSpace(out) != "42" {
		t.Errorf("cell: %q", out)
	}
	h.StopServer(remotetest.HubUser, "gpu")
}

// A spawn that fails gives ErrSpawn with the spawner's own message.
func TestHubSpawnFailureNamesSpawnerMessage(t *testing.T) {
	h := startHub(t)
	token, _ := h.Token(remotetest.HubBrokenUser)
	c, u := signIn(t, h, h.URL, token)
	_, err := c.Start(context.Background(), u, "", nil)
	if !errors.Is(err, hub.ErrSpawn) || !strings.Contains(err.Error(), remotetest.SpawnFailure) {
		t.Fatalf("start: %v; want ErrSpawn with %q", err, remotetest.SpawnFailure)
	}
	if strings.Contains(err.Error(), token) {
		t.Fatalf("the error holds the token: %v", err)
	}
}

// A revoked token is refused with ErrToken, and the error says where to
// get a new one, without the token in it.
func TestHubRevokedToken(t *testing.T) {
	h := startHub(t)
	token, id := h.Token(remotetest.HubUser)
	c, _ := signIn(t, h, h.URL, token)
	h.Revoke(remotetest.HubUser, id)
	_, err := c.Me(context.Background())
	if !errors.Is(err, hub.ErrToken) || !strings.Contains(err.Error(), h.URL+"hub/token") {
		t.Fatalf("me with a revoked token: %v", err)
	}
	if strings.Contains(err.Error(), token) {
		t.Fatalf("the error holds the token: %v", err)
	}
}

// A token without one of the scopes is refused by name.
func TestHubTokenWithoutScopeNamesIt(t *testing.T) {
	h := startHub(t)
	token, _ := h.Token(remotetest.HubUser, "read:servers!user", "access:servers!user")
	base, _, err := hub.Detect(context.Background(), client, h.URL)
	if err != nil {
		t.Fatal(err)
	}
	c := hub.New(base, token, client)
	u, err := c.Me(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	err = c.CheckScopes(u)
	if !errors.Is(err, hub.ErrScope) || !strings.Contains(err.Error(), ": servers!user (") {
		t.Fatalf("scopes: %v; want ErrScope naming servers!user", err)
	}
}

// A jupyter_server is not a Hub.
func TestHubDetectNotAHub(t *testing.T) {
	rs := remotetest.Start(t, remotetest.KernelGateway, remotetest.Options{})
	if _, _, err := hub.Detect(context.Background(), rs.Client(), rs.URL); !errors.Is(err, hub.ErrNotHub) {
		t.Fatalf("detect a Kernel Gateway: %v; want ErrNotHub", err)
	}
}
