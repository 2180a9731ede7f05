package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp/oauth"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/internal/appdirs"
)

// sandboxedWorkspace is a workspace whose agent runs its kernels in the
// sandbox, keeps its sessions, and starts no spare kernel.
func sandboxedWorkspace(t *testing.T, sandbox bool) string {
	t.Helper()
	cfgJSON, _ := json.Marshal(map[string]any{"python": testPython(t), "sandbox": sandbox, "enable_subagents": false,
		"kernel_pool": false, "enable_persistence": true})
	return workspace(t, string(cfgJSON))
}

// startIn starts an agent over ws with the app's folders dirs, as the
// app does (no folders of the test's own for the kernel server).
func startIn(t *testing.T, ws string, dirs appdirs.Dirs, opts ...agent.Option) *agent.Agent {
	t.Helper()
	a, err := agent.New(load(t, ws), append([]agent.Option{agent.WithDirs(dirs), agent.WithoutProvisioning()}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := a.Start(ctx); err != nil {
		_ = a.Stop()
		t.Fatal(err)
	}
	return a
}

// pollerCode starts, in the kernel, a thread that looks for other
// kernels' connection files and sockets until stopped: in the app's
// folders, the temporary folder's freeact folders and the runtime
// directory, every few milliseconds. The folders of the servers other
// test processes of this package share (helpers_test.go) are left out:
// on a machine shared with test runs of earlier versions, their unhidden
// connection files are there, and this test starts none of them.
func pollerCode(roots []string) string {
	r, _ := json.Marshal(roots)
	return `import os, glob, stat, threading, time, json
from ipykernel.kernelapp import IPKernelApp
_own = os.path.dirname(IPKernelApp.instance().ip)  # the folder of its ipc sockets
_tmp = lambda: [p for p in glob.glob('/tmp/freeact*') if not os.path.basename(p).startswith('freeact-agent-test-')]
_roots = ` + string(r) + ` + ([os.environ['XDG_RUNTIME_DIR']] if os.environ.get('XDG_RUNTIME_DIR') else [])
_found = {'keys': [], 'sockets': [], 'rounds': 0, 'own_seen': False}
_stop = threading.Event()
def _poll():
    while not _stop.is_set():
        for root in _roots + _tmp():
            for d, _, files in os.walk(root):
                for f in files:
                    p = os.path.join(d, f)
                    try:
                        st = os.lstat(p)
                        if stat.S_ISSOCK(st.st_mode):
                            if os.path.dirname(p) == _own:
                                _found['own_seen'] = True
                            elif f[-2:] in ('-1', '-2', '-3', '-4', '-5') and p not in _found['sockets']:
                                _found['sockets'].append(p)
                        elif stat.S_ISREG(st.st_mode) and st.st_size < 65536:
                            with open(p, 'rb') as fh:
                                data = fh.read()
                            if b'signature_scheme' in data and p not in _found['keys']:
                                _found['keys'].append(p)
                    except OSError:
                        pass
        _found['rounds'] += 1
        time.sleep(0.005)
_t = threading.Thread(target=_poll, daemon=True)
_t.start()
print('polling')`
}

// A sandboxed kernel never finds another kernel's key or sockets: code in
// workspace A watches, across several starts of workspace B's sandboxed
// kernel, every place a connection file or socket could be, and finds
// nothing but its own sockets. (Before, a new kernel's connection file lay
// in the state folder every sandbox could read until the kernel had
// connected, and the sockets of all kernels in /tmp.)
func TestSandboxKernelsNeverSeeAnothersKey(t *testing.T) {
	srtOnPath(t)
	dirs := appdirs.In(t.TempDir())
	wsA, wsB := sandboxedWorkspace(t, true), sandboxedWorkspace(t, true)
	roots := []string{filepath.Dir(dirs.Config), filepath.Dir(dirs.Data), filepath.Dir(dirs.State), dirs.Runtime}
	report := `_stop.set(); _t.join(); print('FOUND', json.dumps(_found))`
	// While each of B's kernels runs, the watcher makes two more whole
	// rounds, however slow a round is on a loaded machine: its sockets
	// exist then, and a round that passes them must find them.
	wait := "import time\n_r = _found['rounds']; _d = time.time() + 120\n" +
		"while _found['rounds'] < _r + 2 and time.time() < _d:\n    time.sleep(0.01)\n" +
		"print('ROUNDS', _found['rounds'] - _r)"
	turns := "turns:\n  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: " + jsonString(pollerCode(roots)) + "}}}]\n  - reply: [{text: \"Watching.\"}]\n"
	const starts = 4
	for i := 0; i < starts; i++ {
		turns += fmt.Sprintf("  - reply: [{call: {id: w%d, name: ipybox_execute_ipython_cell, args: {code: %s}}}]\n  - reply: [{text: \"Waited.\"}]\n", i, jsonString(wait))
	}
	turns += "  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: " + jsonString(report) + "}}}]\n  - reply: [{text: \"Done.\"}]\n"
	sc, err := modeltest.ParseScenario([]byte(turns))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	a := startIn(t, wsA, dirs)
	defer a.Stop()
	if out := of[*agent.CodeExecutionOutput](run(t, a, "Watch.", nil)); len(out) != 1 || !strings.Contains(out[0].Text, "polling") {
		t.Fatalf("the watcher did not start: %d %+v", len(out), out[0])
	}
	for i := 0; i < starts; i++ {
		b := startIn(t, wsB, dirs)
		waited := of[*agent.CodeExecutionOutput](run(t, a, "Wait for two rounds.", nil))
		rounds := -1
		if len(waited) == 1 {
			if _, after, ok := strings.Cut(waited[0].Text, "ROUNDS "); ok {
				fmt.Sscanf(after, "%d", &rounds)
			}
		}
		if rounds < 2 {
			t.Fatalf("start %d: the watcher made %d whole rounds while B's kernel ran, want 2: %+v", i, rounds, waited)
		}
		if err := b.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	out := of[*agent.CodeExecutionOutput](run(t, a, "Report.", nil))
	if len(out) != 1 {
		t.Fatalf("outputs: %+v", out)
	}
	_, js, ok := strings.Cut(out[0].Text, "FOUND ")
	var found struct {
		Keys, Sockets []string
		Rounds        int
		OwnSeen       bool `json:"own_seen"`
	}
	if !ok || json.Unmarshal([]byte(strings.TrimSpace(js)), &found) != nil {
		t.Fatalf("report: %q", out[0].Text)
	}
	if found.Rounds < 2*starts || !found.OwnSeen {
		t.Fatalf("the watcher did not watch (it must see its own sockets): %+v", found)
	}
	if len(found.Keys) > 0 || len(found.Sockets) > 0 {
		t.Errorf("code in workspace A found other kernels' connection files %v and sockets %v", found.Keys, found.Sockets)
	}
}

// A sandboxed cell reads nothing of the app's secret stores (the MCP
// sign-in kept in files without a Secret Service, API keys, seal keys,
// checkpoints, locks, kernel files) and can open no lock of another
// conversation: with every lock file it finds held by the cell, the user
// still reopens the other conversation.
func TestSandboxHidesTheSecretStores(t *testing.T) {
	srtOnPath(t)
	dirs := appdirs.In(t.TempDir())
	// Another workspace's conversation, written by an unsandboxed agent.
	wsB := sandboxedWorkspace(t, false)
	sc, err := modeltest.ParseScenario([]byte("turns:\n  - reply: [{text: \"Hello.\"}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	b := startIn(t, wsB, dirs)
	run(t, b, "Hi.", nil)
	sessionB := b.SessionID()
	if err := b.Stop(); err != nil {
		t.Fatal(err)
	}
	// The MCP sign-in as the manager keeps it without a Secret Service.
	tokens := oauth.FileStore(filepath.Join(dirs.State, "mcp-oauth", "tokens"))
	if err := tokens.Set("mcp-oauth https://mcp.example/ client", `{"access_token":"at-canary-7f3c","refresh_token":"rt-canary-7f3c","client_secret":"cs-canary-7f3c"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := config.NewAppStore(dirs.Config).SetAPIKey("GEMINI_API_KEY", "key-canary-7f3c"); err != nil {
		t.Fatal(err)
	}

	// The other conversation's lock, as the host sees it.
	theirLock, _ := filepath.Glob(filepath.Join(dirs.State, "locks", "*.lock"))
	if len(theirLock) != 1 {
		t.Fatalf("locks of the other conversation: %v", theirLock)
	}
	wsA := sandboxedWorkspace(t, true)
	var roots []string
	for _, s := range dirs.Secrets() {
		roots = append(roots, s.Path)
	}
	roots = append(roots, filepath.Join(wsB, config.FreeactDir))
	r, _ := json.Marshal(roots)
	code := `import os, fcntl
_held = []
seen, locked = [], []
for root in ` + string(r) + `:
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            try:
                fh = open(p, 'rb')
            except OSError:
                continue
            try:
                if b'canary-7f3c' in fh.read(1 << 20):
                    seen.append(p)
            except OSError:
                pass
            if f.endswith('.lock') or f in ('lock', 'owner'):
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    locked.append(p)
                    _held.append(fh)
                except OSError:
                    pass
try:
    open(` + jsonString(theirLock[0]) + `, 'rb')
    print('THEIR LOCK OPENED')
except OSError as e:
    print('THEIR LOCK', type(e).__name__)
print('SEEN', seen)
print('LOCKED', locked)`
	sc, err = modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: ` + jsonString(code) + `}}}]
  - reply: [{text: "Done."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	a := startIn(t, wsA, dirs)
	defer a.Stop()
	out := of[*agent.CodeExecutionOutput](run(t, a, "Look around.", nil))
	if len(out) != 1 || !strings.Contains(out[0].Text, "SEEN") {
		t.Fatalf("outputs: %+v", out)
	}
	t.Logf("cell: %s", out[0].Text)
	if !strings.Contains(out[0].Text, "THEIR LOCK FileNotFoundError") {
		t.Errorf("the cell could open the other conversation's lock %s: %s", theirLock[0], out[0].Text)
	}
	if !strings.Contains(out[0].Text, "SEEN []") {
		t.Errorf("the cell read secrets: %s", out[0].Text)
	}
	// Whatever the cell holds, the other conversation opens for writing.
	c := startIn(t, wsB, dirs, agent.WithSessionID(sessionB))
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	// The conversation's lock exists, and the cell could not open it.
	locks, _ := filepath.Glob(filepath.Join(dirs.State, "locks", "*.lock"))
	if len(locks) == 0 {
		t.Fatal("no conversation lock in the folder of locks")
	}
	for _, l := range locks {
		if strings.Contains(out[0].Text, l) {
			t.Errorf("the cell locked %s", l)
		}
	}
	// Nor any other file of a secret store (checkpoint and sign-in locks).
	_, locked, _ := strings.Cut(out[0].Text, "LOCKED")
	for _, p := range dirs.SecretPaths() {
		if strings.Contains(locked, p+string(filepath.Separator)) {
			t.Errorf("the cell locked a file in %s: %s", p, locked)
		}
	}
}

// Everything a sandboxed agent writes in the app's folders (settings and
// API keys, the seal key, checkpoints and their locks, the conversation's
// lock, the kernel server's files, the kernel's connection folder and
// sockets) is in a store on appdirs' list, which every sandbox hides: a
// new store outside the list fails here.
func TestEveryStoreTheAgentWritesIsHidden(t *testing.T) {
	srtOnPath(t)
	root := t.TempDir()
	dirs := appdirs.In(root)
	cfgJSON, _ := json.Marshal(map[string]any{"python": testPython(t), "sandbox": true, "enable_subagents": false,
		"kernel_pool": false, "enable_persistence": true, "checkpoints": true})
	ws := workspace(t, string(cfgJSON))
	if _, err := config.NewAppStore(dirs.Config).SetAPIKey("GEMINI_API_KEY", "key-canary-7f3c"); err != nil {
		t.Fatal(err)
	}
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "open('a.txt', 'w').write('a')"}}}]
  - reply: [{text: "Done."}]
`))
	if err != nil {
		t.Fatal(err)
	}
	modeltest.UseGemini(t, sc)
	a := startIn(t, ws, dirs)
	defer a.Stop()
	run(t, a, "Write.", nil)
	// While the agent and its kernel live.
	var written []string
	for _, top := range []string{root, dirs.Runtime} {
		_ = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
			if err == nil && p != top {
				written = append(written, p)
			}
			return nil
		})
	}
	hidden := dirs.SecretPaths()
	stores := map[string]bool{}
	for _, p := range written {
		store := ""
		for _, h := range hidden {
			// The innermost store: a test's runtime folder lies inside
			// the fallback one, and both are hidden.
			if rel, err := filepath.Rel(h, p); err == nil && filepath.IsLocal(rel) && len(h) > len(store) {
				store = h
			}
		}
		switch {
		case store != "":
			stores[store] = true
		case slices.ContainsFunc(hidden, func(h string) bool { return strings.HasPrefix(h, p+string(filepath.Separator)) }):
			// a folder above a store
		default:
			t.Errorf("%s is in no store every sandbox hides (%v)", p, hidden)
		}
	}
	// Each kind of store was written, so the walk saw it.
	for _, want := range []string{dirs.Config, dirs.Checkpoints(), dirs.Locks(), dirs.Jupyter(), dirs.Runtime} {
		if !stores[want] {
			t.Errorf("nothing written in %s: %v", want, written)
		}
	}
}
