package remotetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/testenv"
)

// Hub users: Ada's servers start; Bob's spawner fails with SpawnFailure.
const (
	HubUser       = "ada"
	HubBrokenUser = "bob"
	// SpawnFailure is the spawner's error when Bob's server starts.
	SpawnFailure = "no GPU node is free for bob"
	// SpawnerMessage is the spawner's own progress message.
	SpawnerMessage = "pulling the image freeact/test"
)

// Hub is a running JupyterHub (dummy authenticator, the simple local
// process spawner reporting a step of its own, named servers allowed) whose Hub, proxy and
// single-user servers run as User in a mount namespace where Options.Hide
// is covered, like the other servers.
type Hub struct {
	URL string // the Hub's public URL (the proxy), ending in /
	// AdminToken is the token of the test's admin service; tokens for
	// users come from Token.
	AdminToken string
	// Root is the folder the single-user servers' kernels start in.
	Root, Home, Dir string
	// OAuthClientID, OAuthSecret and OAuthRedirectURI are the OAuth
	// client registered for freeact (a service entry, as docs/remote.md
	// tells administrators), with the scopes freeact asks for allowed.
	OAuthClientID, OAuthSecret, OAuthRedirectURI string

	t        testing.TB
	mu       sync.Mutex
	cmd      *exec.Cmd
	log      *os.File
	uid, gid int
}

// StartHub starts a JupyterHub as User and waits until its API answers. It
// is stopped, with its proxy and every server it spawned, when the test
// ends.
func StartHub(t testing.TB, opts Options) *Hub {
	t.Helper()
	py := Venv(t, "jupyterhub")
	chp := filepath.Join(testenv.RepoRoot(t), ".cache", "remote", "configurable-http-proxy", "node_modules", "configurable-http-proxy", "bin", "configurable-http-proxy")
	if _, err := os.Stat(chp); err != nil {
		testenv.Missing(t, "no configurable-http-proxy at "+chp+": run scripts/setup-remote.sh (make test does)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.Missing(t, "node not found (the Hub's proxy is a node program)")
	}
	if os.Geteuid() != 0 {
		testenv.Missing(t, "hub tests run the Hub as another user in a mount namespace of its own, which needs root (CI runs as root)")
	}
	uid, gid := ensureUser(t)
	dir, err := os.MkdirTemp("", "freeact-hub-")
	if err != nil {
		t.Fatal(err)
	}
	h := &Hub{AdminToken: randomHex(16), Dir: dir, Root: filepath.Join(dir, "root"), Home: filepath.Join(dir, "home"), t: t, uid: uid, gid: gid}
	t.Cleanup(func() {
		h.Stop()
		os.RemoveAll(dir)
	})
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{h.Root, h.Home, filepath.Join(dir, "state")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	// The proxy's command line names the Hub's folder (a link to the
	// program), so the processes left are found by it as the others are.
	link := filepath.Join(dir, "configurable-http-proxy")
	if err := os.Symlink(chp, link); err != nil {
		t.Fatal(err)
	}
	// So does each single-user server's: the spawner starts them in
	// sessions of their own, which the Hub's process group does not hold.
	single := filepath.Join(dir, "jupyterhub-singleuser")
	if err := os.Symlink(filepath.Join(filepath.Dir(py), "jupyterhub-singleuser"), single); err != nil {
		t.Fatal(err)
	}
	port, hubPort, apiPort := FreePort(t), FreePort(t), FreePort(t)
	h.URL = fmt.Sprintf("http://127.0.0.1:%d/", port)
	h.OAuthClientID, h.OAuthSecret = "service-freeact", randomHex(16)
	h.OAuthRedirectURI = fmt.Sprintf("http://127.0.0.1:%d/oauth/callback", FreePort(t))
	bin := filepath.Dir(py)
	q := strconv.Quote
	config := strings.Join([]string{
		"c = get_config()  # noqa",
		"c.JupyterHub.ip = '127.0.0.1'",
		"c.JupyterHub.port = " + strconv.Itoa(port),
		"c.JupyterHub.hub_ip = '127.0.0.1'",
		"c.JupyterHub.hub_port = " + strconv.Itoa(hubPort),
		"c.ConfigurableHTTPProxy.api_url = " + q(fmt.Sprintf("http://127.0.0.1:%d", apiPort)),
		"c.ConfigurableHTTPProxy.command = [" + q(node) + ", " + q(link) + "]",
		"c.ConfigurableHTTPProxy.pid_file = " + q(filepath.Join(dir, "state", "proxy.pid")),
		"c.JupyterHub.db_url = " + q("sqlite:///"+filepath.Join(dir, "state", "jupyterhub.sqlite")),
		"c.JupyterHub.cookie_secret_file = " + q(filepath.Join(dir, "state", "cookie_secret")),
		"c.JupyterHub.authenticator_class = 'dummy'",
		"c.Authenticator.allowed_users = {" + q(HubUser) + ", " + q(HubBrokenUser) + "}",
		"from jupyterhub.spawner import SimpleLocalProcessSpawner",
		"import asyncio, os",
		"class ProgressSpawner(SimpleLocalProcessSpawner):",
		"    # Reports its own steps, as KubeSpawner reports a pod's events.",
		"    async def progress(self):",
		"        yield {'progress': 30, 'message': " + q(SpawnerMessage) + "}",
		"        while not self.ready and self._spawn_pending:",
		"            await asyncio.sleep(0.1)",
		"    # Bob's start fails as a cluster's spawner does when no node is free.",
		"    async def start(self):",
		"        # Held while the test holds starts (Hub.HoldStarts), its progress shown meanwhile.",
		"        while os.path.exists(" + q(filepath.Join(dir, "hold-starts")) + "):",
		"            await asyncio.sleep(0.1)",
		"        if self.user.name == " + q(HubBrokenUser) + ":",
		"            await asyncio.sleep(0.5)",
		"            raise RuntimeError(" + q(SpawnFailure) + ")",
		"        return await super().start()",
		"c.JupyterHub.spawner_class = ProgressSpawner",
		"c.JupyterHub.allow_named_servers = True",
		"c.SimpleLocalProcessSpawner.home_dir_template = " + q(h.Home),
		"c.Spawner.cmd = [" + q(single) + "]",
		"c.Spawner.notebook_dir = " + q(h.Root),
		"c.Spawner.default_url = '/lab'",
		"c.Spawner.start_timeout = 120",
		"# Answer a start at once (202) so that the progress stream has the spawner's messages.",
		"c.JupyterHub.tornado_settings = {'slow_spawn_timeout': 0}",
		"c.Spawner.http_timeout = 120",
		"c.Spawner.environment = {'JUPYTER_PLATFORM_DIRS': '1', 'PYDEVD_DISABLE_FILE_VALIDATION': '1', 'PATH': " + q(bin+":/usr/local/bin:/usr/bin:/bin") + "}",
		"c.JupyterHub.services = [{'name': 'freeact-test', 'api_token': " + q(h.AdminToken) + "},",
		"    # freeact's OAuth client, as docs/remote.md gives it to administrators.",
		"    {'name': 'freeact', 'oauth_client_id': " + q(h.OAuthClientID) + ", 'api_token': " + q(h.OAuthSecret) + ",",
		"     'oauth_redirect_uri': " + q(h.OAuthRedirectURI) + ",",
		"     'oauth_client_allowed_scopes': ['access:servers!user', 'servers!user', 'read:servers!user']}]",
		"c.JupyterHub.load_roles = [{'name': 'freeact-test-admin', 'scopes': ['admin:users', 'admin:servers', 'tokens', 'list:users'], 'services': ['freeact-test']},",
		"    # Users may sign in to freeact's OAuth client (docs/remote.md).",
		"    {'name': 'user', 'scopes': ['self', 'access:services!service=freeact']}]",
		"",
	}, "\n")
	cfgFile := filepath.Join(dir, "jupyterhub_config.py")
	if err := os.WriteFile(cfgFile, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"HOME=" + h.Home, "PATH=" + bin + ":/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8",
		"JUPYTER_PLATFORM_DIRS=1", "PYDEVD_DISABLE_FILE_VALIDATION=1",
	}
	script := `set -e; if [ -n "$1" ]; then mount -t tmpfs -o size=64k,mode=755 freeact-hidden "$1"; fi; shift; exec "$@"`
	cmdline := []string{"--mount", "--propagation", "private", "--", "/bin/sh", "-c", script, "sh", opts.Hide,
		"setpriv", "--reuid=" + strconv.Itoa(uid), "--regid=" + strconv.Itoa(gid), "--clear-groups", "--",
		"/usr/bin/env", "-i"}
	cmdline = append(cmdline, env...)
	cmdline = append(cmdline, py, "-m", "jupyterhub", "-f", cfgFile)
	cmd := exec.Command("unshare", cmdline...)
	cmd.Dir = filepath.Join(dir, "state")
	cmd.SysProcAttr = serverProcAttr()
	log, err := os.OpenFile(filepath.Join(dir, "hub.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start jupyterhub: %v", err)
	}
	h.mu.Lock()
	h.cmd, h.log = cmd, log
	h.mu.Unlock()
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	testenv.Eventually(t, 2*time.Minute, func() error {
		select {
		case <-exited:
			t.Fatalf("jupyterhub exited during startup:\n%s", h.Log())
		default:
		}
		resp, err := http.Get(h.URL + "hub/api")
		if err != nil {
			return fmt.Errorf("jupyterhub not ready (%v)", err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("jupyterhub not ready (%s)", resp.Status)
		}
		return nil
	})
	return h
}

// Log is the Hub's output so far (its proxy's and servers' too).
func (h *Hub) Log() string {
	b, _ := os.ReadFile(filepath.Join(h.Dir, "hub.log"))
	return string(b)
}

// API calls the Hub's REST API as the admin service and decodes a JSON
// answer into out (when not nil).
func (h *Hub) API(method, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, h.URL+"hub/api/"+path, r)
	req.Header.Set("Authorization", "token "+h.AdminToken)
	resp, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s hub/api/%s: HTTP %d: %s", method, path, resp.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// Token creates a token of user with scopes (nil: all the user's own).
func (h *Hub) Token(user string, scopes ...string) (token, id string) {
	h.t.Helper()
	body := map[string]any{"note": "freeact test"}
	if scopes != nil {
		body["scopes"] = scopes
	}
	var out struct {
		Token string `json:"token"`
		ID    string `json:"id"`
	}
	if err := h.API(http.MethodPost, "users/"+user+"/tokens", body, &out); err != nil {
		h.t.Fatalf("create a token for %s: %v", user, err)
	}
	return out.Token, out.ID
}

// Revoke deletes user's token id.
func (h *Hub) Revoke(user, id string) {
	h.t.Helper()
	if err := h.API(http.MethodDelete, "users/"+user+"/tokens/"+id, nil, nil); err != nil {
		h.t.Fatalf("revoke a token of %s: %v", user, err)
	}
}

// StopServer stops user's server name ("" the default one), as the idle
// culler does, and waits until it is stopped.
func (h *Hub) StopServer(user, name string) {
	h.t.Helper()
	path := "users/" + user + "/server"
	if name != "" {
		path = "users/" + user + "/servers/" + name
	}
	if err := h.API(http.MethodDelete, path, nil, nil); err != nil {
		h.t.Fatalf("stop the server of %s: %v", user, err)
	}
	testenv.Eventually(h.t, 2*time.Minute, func() error {
		var u struct {
			Servers map[string]json.RawMessage `json:"servers"`
		}
		if err := h.API(http.MethodGet, "users/"+user, nil, &u); err != nil {
			return err
		}
		if _, ok := u.Servers[name]; ok {
			return fmt.Errorf("the server %q of %s is still there", name, user)
		}
		return nil
	})
}

// Stop kills the Hub, its proxy and every server it spawned.
func (h *Hub) Stop() {
	h.mu.Lock()
	cmd := h.cmd
	h.cmd = nil
	if h.log != nil {
		defer h.log.Close()
		h.log = nil
	}
	h.mu.Unlock()
	if cmd == nil {
		return
	}
	killGroup(cmd.Process.Pid)
	testenv.Eventually(h.t, time.Minute, func() error {
		pids := processesMentioning(h.Dir)
		for _, pid := range pids {
			kill(pid)
		}
		if len(pids) > 0 {
			return fmt.Errorf("hub processes still running after SIGKILL: %v", pids)
		}
		return nil
	})
}

// Browser writes a $BROWSER program that does what a user does in the
// browser: it opens the URL it is given, signs in to the Hub as user
// (the dummy authenticator takes any password), and accepts the Hub's
// "Authorize" page, whose answer redirects to freeact's loopback
// listener. Each URL it was given is appended to the file log. It
// returns the value for $BROWSER.
func (h *Hub) Browser(user, log string) string {
	h.t.Helper()
	py := Venv(h.t, "jupyterhub")
	script := filepath.Join(h.t.TempDir(), "hub-browser.py")
	src := `import re, sys, requests
url = sys.argv[1]
with open(` + strconv.Quote(log) + `, "a") as f:
    f.write(url + "\n")
s = requests.Session()
r = s.get(url)
if 'name="username"' in r.text:
    xsrf = re.search(r'name="_xsrf" value="([^"]*)"', r.text).group(1)
    r = s.post(r.url, data={"username": ` + strconv.Quote(user) + `, "password": "x", "_xsrf": xsrf})
if 'name="scopes"' in r.text:
    xsrf = re.search(r'name="_xsrf" value="([^"]*)"', r.text).group(1)
    scopes = re.findall(r'<input type="hidden" name="scopes" value="([^"]*)"', r.text)
    r = s.post(r.url, data={"_xsrf": xsrf, "scopes": scopes})
with open(` + strconv.Quote(log) + `, "a") as f:
    f.write("ended at " + r.url.split("?")[0] + " " + str(r.status_code) + "\n")
`
	if err := os.WriteFile(script, []byte(src), 0o755); err != nil {
		h.t.Fatal(err)
	}
	return py + " " + script
}

// HoldStarts makes the spawner wait before it starts a server, until
// ReleaseStarts: the start's progress stays on screen meanwhile.
func (h *Hub) HoldStarts() {
	h.t.Helper()
	if err := os.WriteFile(filepath.Join(h.Dir, "hold-starts"), nil, 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// ReleaseStarts lets the held starts go on.
func (h *Hub) ReleaseStarts() {
	h.t.Helper()
	if err := os.Remove(filepath.Join(h.Dir, "hold-starts")); err != nil {
		h.t.Fatal(err)
	}
}
