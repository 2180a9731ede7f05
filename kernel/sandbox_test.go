package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/testenv"
)

// The sandbox tests run real kernels under the real srt (scripts/srt, npm)
// with bubblewrap, socat and ripgrep from Debian (make test installs them).

func testSrt(t testing.TB) string {
	return testPath(t, "FREEACT_TEST_SRT", "scripts/srt/node_modules/.bin/srt", "srt (npm install in scripts/srt)",
		func(p string) bool { _, err := os.Stat(p); return err == nil })
}

type sandboxed struct {
	srv      *Server
	ws       string // the workspace: writable inside
	outside  string // a folder outside the workspace the host can write
	settings string // the custom sandbox settings file, when one is used
}

// startSandboxed starts a server whose kernels run under srt, over a
// workspace with a .env file.
func startSandboxed(t testing.TB, custom map[string]any) *sandboxed {
	return startSandboxedWith(t, custom, nil)
}

// startSandboxedWith is startSandboxed with the workspace prepared and the
// sandbox's options set by prepare before the server starts.
func startSandboxedWith(t testing.TB, custom map[string]any, prepare func(ws string, opts *Sandbox)) *sandboxed {
	t.Helper()
	py, srt := newPython(t), testSrt(t)
	sb := &sandboxed{ws: t.TempDir(), outside: t.TempDir()}
	if err := os.WriteFile(filepath.Join(sb.ws, ".env"), []byte("API_KEY=secret-value\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := &Sandbox{Srt: srt}
	if prepare != nil {
		prepare(sb.ws, opts)
	}
	if custom != nil {
		b, _ := json.Marshal(custom)
		sb.settings = filepath.Join(sb.ws, "sandbox-config.json")
		if err := os.WriteFile(sb.settings, b, 0o600); err != nil {
			t.Fatal(err)
		}
		opts.Settings = sb.settings
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	srv, err := StartServer(ctx, ServerOptions{Python: py, Dir: t.TempDir(), Root: sb.ws, Sandbox: opts})
	if err != nil {
		t.Fatalf("start sandboxed server: %v", err)
	}
	t.Cleanup(func() { srv.Close() })
	sb.srv = srv
	return sb
}

// TestSandboxEscapes runs what code in a sandboxed kernel must not be able
// to do; each must fail, and the host checks that nothing happened.
func TestSandboxEscapes(t *testing.T) {
	sb := startSandboxed(t, nil)
	k := startKernel(t, sb.srv, KernelOptions{Workspace: sb.ws, Host: &testHost{}})

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan string, 16) // the client address of each connection
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c.RemoteAddr().String()
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	home, _ := os.UserHomeDir()
	homeFile := filepath.Join(home, fmt.Sprintf(".freeact-escape-%d", os.Getpid()))
	defer os.Remove(homeFile)
	if err := os.Symlink(sb.outside, filepath.Join(sb.ws, "link")); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		code string
		// blocked is printed by the cell when the attempt failed.
		escaped func(*testing.T) bool // the host's own check that nothing happened
	}{
		{"read .env", `open(".env").read()`, nil},
		{"read nested .env", `open("sub/.env").read()`, nil},
		{"write to home", fmt.Sprintf("open(%q, 'w').write('x')", homeFile), func(*testing.T) bool { return exists(homeFile) }},
		{"write to /tmp", fmt.Sprintf("open(%q, 'w').write('x')", filepath.Join(sb.outside, "tmp.txt")), func(*testing.T) bool { return exists(filepath.Join(sb.outside, "tmp.txt")) }},
		{"write through a symlink", `open("link/via-link.txt", "w").write("x")`, func(*testing.T) bool { return exists(filepath.Join(sb.outside, "via-link.txt")) }},
		{"os.system", fmt.Sprintf("import os\nassert os.system('echo x > %s') == 0", filepath.Join(sb.outside, "system.txt")), func(*testing.T) bool { return exists(filepath.Join(sb.outside, "system.txt")) }},
		{"subprocess", fmt.Sprintf("import subprocess\nsubprocess.run(['touch', %q], check=True)", filepath.Join(sb.outside, "sub.txt")), func(*testing.T) bool { return exists(filepath.Join(sb.outside, "sub.txt")) }},
		{"shell command", fmt.Sprintf("r = !touch %s 2>&1; echo rc=$?\nassert 'rc=0' in str(r), r", filepath.Join(sb.outside, "bang.txt")), func(*testing.T) bool { return exists(filepath.Join(sb.outside, "bang.txt")) }},
		{"loopback TCP", fmt.Sprintf("import socket\nsocket.create_connection(('127.0.0.1', %d), timeout=3)", port), func(t *testing.T) bool {
			// Connections are accepted in order: the kernel's, had it
			// got through, came before this one.
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			return testenv.Receive(t, accepted, time.Minute, "the host's own connection") != c.LocalAddr().String()
		}},
		{"resolve a host", `import socket
socket.getaddrinfo("example.com", 443)`, nil},
		{"fetch a URL", `import urllib.request
urllib.request.urlopen("http://example.com", timeout=5).read()`, nil},
		{"read the host's sockets", `import os
assert os.listdir("/run")`, nil},
	}
	if err := os.MkdirAll(filepath.Join(sb.ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sb.ws, "sub", ".env"), []byte("NESTED=secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Files made after the server started are hidden too only if srt finds
	// them when a kernel starts: restart to pick up sub/.env.
	if err := k.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, k, tt.code)
			if res.Error == nil {
				t.Fatalf("not blocked; output %q", res.Text)
			}
			// Blocked by the sandbox, not failed for another reason.
			if !blockedError.MatchString(res.Error.Name + ": " + res.Error.Message) {
				t.Errorf("failed with %s: %s", res.Error.Name, res.Error.Message)
			}
			t.Logf("%s: %s", res.Error.Name, res.Error.Message)
			if strings.Contains(res.Text, "secret") {
				t.Errorf("secret leaked: %q", res.Text)
			}
			if tt.escaped != nil && tt.escaped(t) {
				t.Error("the host sees the effect: the sandbox did not hold")
			}
		})
	}
}

// TestSandboxProtectsConfig: code in the sandbox can change, replace,
// remove or add none of the files that decide what the agent may do
// without asking (the Config folder, .freeact) nor the Protect paths (a
// .env, a missing .venv), by any route; the Writable folders and the rest
// of the workspace stay writable. Each attempt is judged by what the host
// sees afterwards, since a file added to the Config folder inside the
// sandbox lands in a scratch folder that never reaches the disk.
func TestSandboxProtectsConfig(t *testing.T) {
	const agentJSON, permsJSON = `{"sandbox": true}`, `{"allow": [], "ask": []}`
	var cfg string
	sb := startSandboxedWith(t, nil, func(ws string, opts *Sandbox) {
		cfg = filepath.Join(ws, ".freeact")
		for name, content := range map[string]string{
			"agent.json":                      agentJSON,
			"permissions.json":                permsJSON,
			"skills/demo/SKILL.md":            "a skill",
			"sessions/s1/tool-results/r1.txt": "an offloaded result",
		} {
			writeFile(t, filepath.Join(cfg, name), content)
		}
		opts.Config = cfg
		opts.Writable = []string{filepath.Join(cfg, "generated"), filepath.Join(cfg, "plans")}
		opts.Protect = []string{filepath.Join(ws, ".env"), filepath.Join(ws, ".venv") + string(filepath.Separator)}
	})
	k := startKernel(t, sb.srv, KernelOptions{Workspace: sb.ws, Host: &testHost{}})
	unchanged := func(t *testing.T) {
		t.Helper()
		for name, want := range map[string]string{"agent.json": agentJSON, "permissions.json": permsJSON} {
			if b, err := os.ReadFile(filepath.Join(cfg, name)); err != nil || string(b) != want {
				t.Errorf("%s on the host: %q %v", name, b, err)
			}
		}
		if b, err := os.ReadFile(filepath.Join(sb.ws, ".env")); err != nil || string(b) != "API_KEY=secret-value\n" {
			t.Errorf(".env on the host: %q %v", b, err)
		}
		entries, _ := os.ReadDir(cfg)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if want := "agent.json generated permissions.json plans sessions skills"; strings.Join(names, " ") != want {
			t.Errorf(".freeact on the host holds %v, want %s", names, want)
		}
		for _, p := range []string{".venv/bin", ".freeact-moved", "moved.json"} {
			if exists(filepath.Join(sb.ws, p)) {
				t.Errorf("%s exists on the host", p)
			}
		}
	}
	attempts := []struct{ name, code string }{
		{"write agent.json", `open(".freeact/agent.json", "w").write('{"sandbox": false}')`},
		{"append to permissions.json", `open(".freeact/permissions.json", "a").write("x")`},
		{"create config.toml", `open(".freeact/config.toml", "w").write("[agent]\n")`},
		{"create permissions.toml", `open(".freeact/permissions.toml", "w").write("")`},
		{"rename over agent.json", `open("new.json", "w").write("{}")
import os; os.rename("new.json", ".freeact/agent.json")`},
		{"delete and create permissions.json", `import os; os.remove(".freeact/permissions.json")
open(".freeact/permissions.json", "w").write("{}")`},
		{"move agent.json away", `import os; os.rename(".freeact/agent.json", "moved.json")`},
		{"move .freeact away and make a new one", `import os; os.rename(".freeact", ".freeact-moved")
os.makedirs(".freeact"); open(".freeact/agent.json", "w").write("{}")`},
		{"remove .freeact", `import shutil; shutil.rmtree(".freeact")`},
		{"write through a symlink", `import os; os.symlink(".freeact/agent.json", "cfg-link")
open("cfg-link", "w").write("{}")`},
		{"write through a symlink in generated", `import os; os.symlink("../agent.json", ".freeact/generated/cfg-link")
open(".freeact/generated/cfg-link", "w").write("{}")`},
		{"write through a hard link", `import os; os.link(".freeact/agent.json", "cfg-hard")
open("cfg-hard", "w").write("{}")`},
		{"write .env", `open(".env", "w").write("GOOGLE_GEMINI_BASE_URL=http://evil\n")`},
		{"replace .env", `open("env.new", "w").write("X=1\n")
import os; os.replace("env.new", ".env")`},
		{"create .venv", `import os; os.makedirs(".venv/bin"); open(".venv/bin/python", "w").write("#!/bin/sh\n")`},
		{"remove the .venv placeholder and create one", `import os; os.rmdir(".venv"); os.makedirs(".venv/bin")`},
		{"with a shell command", `!echo '{}' > .freeact/agent.json; mv .freeact/permissions.json /tmp/ 2>&1; ln -sf /tmp/x .freeact/agent.json`},
	}
	for _, tt := range attempts {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, k, tt.code)
			t.Logf("%s", r.Text)
			if r.Error != nil {
				t.Logf("%s: %s", r.Error.Name, r.Error.Message)
			}
			unchanged(t)
		})
	}

	// What stays: reading the Config folder, writing its Writable folders
	// and the rest of the workspace.
	r := run(t, k, `print(open(".freeact/agent.json").read())
print(open(".freeact/skills/demo/SKILL.md").read())
print(open(".freeact/sessions/s1/tool-results/r1.txt").read())
import os
os.makedirs(".freeact/generated/gentools/demo/tool", exist_ok=True)
open(".freeact/generated/gentools/demo/tool/api.py", "w").write("def run(): pass\n")
os.makedirs(".freeact/plans", exist_ok=True)
open(".freeact/plans/task.md", "w").write("- [ ] step\n")
open("notes.txt", "w").write("kept")
print("done")`)
	if r.Error != nil || !strings.Contains(r.Text, agentJSON) || !strings.Contains(r.Text, "a skill") || !strings.Contains(r.Text, "an offloaded result") || !strings.Contains(r.Text, "done") {
		t.Fatalf("reading and writing what stays open: %q %+v", r.Text, r.Error)
	}
	for p, want := range map[string]string{
		".freeact/generated/gentools/demo/tool/api.py": "def run(): pass\n",
		".freeact/plans/task.md":                       "- [ ] step\n",
		"notes.txt":                                    "kept",
	} {
		if b, err := os.ReadFile(filepath.Join(sb.ws, p)); err != nil || string(b) != want {
			t.Errorf("%s on the host: %q %v", p, b, err)
		}
	}
	// The placeholder that held the missing .venv goes with the server.
	sb.srv.Close()
	if exists(filepath.Join(sb.ws, ".venv")) {
		t.Error("the .venv placeholder is still there after the server stopped")
	}
}

// TestSandboxProtectsConfigCustom: with custom settings kept in the
// Config folder (where the desktop saves them), the folder is protected
// all the same, and the settings file is neither readable nor writable,
// whatever it allows.
func TestSandboxProtectsConfigCustom(t *testing.T) {
	var settings, agentJSON string
	sb := startSandboxedWith(t, nil, func(ws string, opts *Sandbox) {
		cfg := filepath.Join(ws, ".freeact")
		settings, agentJSON = filepath.Join(cfg, "sandbox-config.json"), filepath.Join(cfg, "agent.json")
		b, _ := json.Marshal(map[string]any{
			"network":    map[string]any{"allowedDomains": []string{}, "deniedDomains": []string{}},
			"filesystem": map[string]any{"denyRead": []string{}, "allowWrite": []string{"/"}, "denyWrite": []string{}},
		})
		writeFile(t, settings, string(b))
		writeFile(t, agentJSON, "{}")
		opts.Settings, opts.Config = settings, cfg
		opts.Writable = []string{filepath.Join(cfg, "generated")}
	})
	k := startKernel(t, sb.srv, KernelOptions{Workspace: sb.ws})
	before, _ := os.ReadFile(settings)
	if r := run(t, k, fmt.Sprintf("print(open(%q).read())", settings)); r.Error == nil || strings.Contains(r.Text, "allowWrite") {
		t.Errorf("the settings are readable: %q", r.Text)
	}
	// The settings file is hidden: a write lands in the scratch folder.
	run(t, k, fmt.Sprintf("open(%q, 'w').write('{}')", settings))
	if r := run(t, k, fmt.Sprintf("open(%q, 'w').write('{\"sandbox\": false}')", agentJSON)); r.Error == nil {
		t.Errorf("agent.json is writable: %q", r.Text)
	}
	if b, _ := os.ReadFile(settings); string(b) != string(before) {
		t.Errorf("settings changed: %s", b)
	}
	if b, _ := os.ReadFile(agentJSON); string(b) != "{}" {
		t.Errorf("agent.json changed: %s", b)
	}
	// What the settings allow still holds: writing outside the workspace.
	outside := filepath.Join(sb.outside, "allowed.txt")
	if r := run(t, k, fmt.Sprintf("open(%q, 'w').write('x')", outside)); r.Error != nil || !exists(outside) {
		t.Errorf("write allowed by the custom settings: %+v", r.Error)
	}
}

// TestSandboxKernelCannotReadToken: a sandboxed kernel sees the processes
// of its own sandbox only, and none of them, nor any file it can read,
// holds the server's token.
func TestSandboxKernelCannotReadToken(t *testing.T) {
	sb := startSandboxed(t, nil)
	checkTokenHidden(t, sb.srv, startKernel(t, sb.srv, KernelOptions{Workspace: sb.ws}))
}

// TestSandboxImagesStayInTheWorkspace: the app saves a cell's images
// outside the sandbox, into the workspace's images folder. Code cannot
// make it write them elsewhere by putting a symbolic link there: an image
// is bytes code chooses, and a file of them in a folder a shell sources
// would run unconfined.
func TestSandboxImagesStayInTheWorkspace(t *testing.T) {
	sb := startSandboxed(t, nil)
	k := startKernel(t, sb.srv, KernelOptions{Workspace: sb.ws})
	show := "from IPython.display import display\nimport base64\n" +
		"display({'image/png': base64.b64encode(b'echo escaped').decode()}, raw=True)"
	if r := run(t, k, show); r.Error != nil || len(r.Images) != 1 {
		t.Fatalf("an image in the workspace: %+v", r)
	}
	r := run(t, k, fmt.Sprintf("import os, shutil\nshutil.rmtree('images')\nos.symlink(%q, 'images')\n", sb.outside)+show)
	if len(r.Images) != 0 || !strings.Contains(r.Text, "could not save") {
		t.Errorf("an image through a link out of the workspace: %+v", r)
	}
	if entries, _ := os.ReadDir(sb.outside); len(entries) != 0 {
		t.Errorf("written where the link points: %v", entries)
	}
}

func writeFile(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// blockedError matches the errors the sandbox causes: denied or read-only
// paths, no network, and the assertions the cells make on exit statuses.
var blockedError = regexp.MustCompile(`PermissionError|Read-only file system|Errno 1[^0-9]|Network is unreachable|Temporary failure in name resolution|No address associated|Name or service not known|URLError|HTTP Error 403|Connection refused|AssertionError|CalledProcessError|FileNotFoundError: .*'/run'`)

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

// TestSandboxStillWorks checks what a sandboxed kernel must still do. Its
// kernel has no execution timeout: the first matplotlib import builds the
// sandbox's font cache, which takes seconds on a loaded machine. The
// timeout is checked on a second kernel.
func TestSandboxStillWorks(t *testing.T) {
	sb := startSandboxed(t, nil)
	h := &testHost{requests: make(chan string, 16)}
	k := startKernel(t, sb.srv, KernelOptions{Workspace: sb.ws, Host: h})

	if r := run(t, k, `print(open("/etc/os-release").read().splitlines()[0])`); r.Error != nil || !strings.Contains(r.Text, "NAME") {
		t.Errorf("reading system files: %+v", r)
	}
	if r := run(t, k, `open("made.txt", "w").write("inside"); print("ok")`); r.Error != nil {
		t.Errorf("writing in the workspace: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(sb.ws, "made.txt")); string(b) != "inside" {
		t.Errorf("workspace file holds %q", b)
	}
	r := run(t, k, "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()")
	if r.Error != nil || len(r.Images) != 1 {
		t.Errorf("matplotlib: %+v", r)
	}
	if r := run(t, k, "!echo approved-shell"); !strings.Contains(r.Text, "approved-shell") || len(h.commands()) != 1 {
		t.Errorf("shell approval: %q %v", r.Text, h.commands())
	}
	if r := run(t, k, "from freeact_runtime import call_tool\nprint(call_tool('srv', 'echo', {'v': 1}))"); r.Error != nil || !strings.Contains(r.Text, "'v': 1") {
		t.Errorf("programmatic tool call: %+v", r)
	}
	// Interrupts reach the kernel as messages, since signals do not cross
	// into bubblewrap's session.
	run(t, k, "kept = 1")
	done := startCell(t, context.Background(), k, "import time\nprint('sleeping', flush=True)\ntime.sleep(600)", "sleeping")
	if err := k.Interrupt(context.Background()); err != nil {
		t.Fatal(err)
	}
	if o := testenv.Receive(t, done, time.Minute, "the end of the interrupted time.sleep(600)"); o.res == nil || o.res.Error == nil || o.res.Error.Name != "KeyboardInterrupt" {
		t.Errorf("interrupt: %+v %v", o.res, o.err)
	}
	if r := run(t, k, "print(kept)"); strings.TrimSpace(r.Text) != "1" {
		t.Errorf("state after interrupt: %q", r.Text)
	}
	// A timeout interrupts a busy cell, and the state stays. The limit
	// leaves a loaded machine time to start the cell and set the state.
	kt := startKernel(t, sb.srv, KernelOptions{Workspace: sb.ws, ExecutionTimeout: 3 * time.Second})
	if r := run(t, kt, "kept = 1\nwhile True: pass"); !r.TimedOut {
		t.Errorf("timeout: %+v", r)
	}
	if r := run(t, kt, "print(kept)"); strings.TrimSpace(r.Text) != "1" {
		t.Errorf("state after timeout: %q", r.Text)
	}
	if err := k.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := run(t, k, "print('kept' in dir())"); strings.TrimSpace(r.Text) != "False" {
		t.Errorf("state after restart: %q", r.Text)
	}
}

func TestSandboxCustomSettings(t *testing.T) {
	outsideOK := t.TempDir()
	sb := startSandboxed(t, map[string]any{
		"network":    map[string]any{"allowedDomains": []string{}, "deniedDomains": []string{}},
		"filesystem": map[string]any{"denyRead": []string{}, "allowWrite": []string{outsideOK}, "denyWrite": []string{}},
	})
	k := startKernel(t, sb.srv, KernelOptions{Workspace: sb.ws})
	// The custom file's rules replace the defaults: writing to its extra
	// folder works, the workspace is not writable, .env is readable.
	if r := run(t, k, fmt.Sprintf("open(%q, 'w').write('x')", filepath.Join(outsideOK, "allowed.txt"))); r.Error != nil {
		t.Errorf("write to an allowed folder: %+v", r)
	}
	if r := run(t, k, "open('ws.txt', 'w').write('x')"); r.Error == nil {
		t.Error("workspace writable although the custom settings do not allow it")
	}
	// The settings file itself is protected whatever it says.
	for _, code := range []string{
		fmt.Sprintf("open(%q).read()", sb.settings),
		fmt.Sprintf("open(%q, 'a').write('{}')", sb.settings),
	} {
		if r := run(t, k, code); r.Error == nil {
			t.Errorf("%s: not blocked", code)
		}
	}
}

func TestSandboxMissingTools(t *testing.T) {
	py := newPython(t)
	ctx := context.Background()
	_, err := StartServer(ctx, ServerOptions{Python: py, Dir: t.TempDir(), Sandbox: &Sandbox{Srt: "/nonexistent/srt"}})
	if err == nil || !strings.Contains(err.Error(), "srt") || !strings.Contains(err.Error(), "npm install -g @anthropic-ai/sandbox-runtime") {
		t.Errorf("err = %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = StartServer(ctx, ServerOptions{Python: py, Dir: t.TempDir(), Sandbox: &Sandbox{Srt: testSrt(t), Settings: bad}})
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("bad settings: err = %v", err)
	}
}

func TestSandboxLeavesNothing(t *testing.T) {
	py, srt := newPython(t), testSrt(t)
	dir := t.TempDir()
	ctx := context.Background()
	runtime := shortDir(t)
	srv, err := StartServer(ctx, ServerOptions{Python: py, Dir: dir, Root: t.TempDir(), Sandbox: &Sandbox{Srt: srt}, RuntimeDir: runtime})
	if err != nil {
		t.Fatal(err)
	}
	k := startKernel(t, srv, KernelOptions{})
	run(t, k, "x = 1")
	folders, _ := filepath.Glob(filepath.Join(runtime, "k-*", "k-1"))
	if len(folders) != 1 {
		t.Fatalf("kernel sockets in %s: %v", runtime, folders)
	}
	srv.Close()
	// Every process that ran with the server's directory in its command
	// line or environment is gone, and so are srt's leftovers.
	waitNoProcesses(t, dir)
	for _, d := range []string{srv.sandbox.srtTmp, filepath.Dir(folders[0])} {
		if exists(d) {
			t.Errorf("%s is still there", d)
		}
	}
}

// shortDir is a new folder whose path is short enough for Unix sockets
// below it, removed when the test ends.
func shortDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "frt-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// BenchmarkSandbox compares a kernel's start and a trivial cell's round
// trip with and without the sandbox (p50 of b.N runs each).
func BenchmarkSandbox(b *testing.B) {
	py := newPython(b)
	for _, mode := range []string{"plain", "sandbox"} {
		b.Run(mode, func(b *testing.B) {
			ws := b.TempDir()
			opts := ServerOptions{Python: py, Dir: b.TempDir(), Root: ws}
			if mode == "sandbox" {
				opts.Sandbox = &Sandbox{Srt: testSrt(b)}
			}
			ctx := context.Background()
			s, err := StartServer(ctx, opts)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			var starts, cells []time.Duration
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				k, err := s.StartKernel(ctx, KernelOptions{Workspace: ws})
				if err != nil {
					b.Fatal(err)
				}
				starts = append(starts, time.Since(t0))
				run(b, k, "1+1")
				for j := 0; j < 20; j++ {
					t1 := time.Now()
					if _, err := k.Execute(ctx, "1+1", nil); err != nil {
						b.Fatal(err)
					}
					cells = append(cells, time.Since(t1))
				}
				k.Close()
			}
			b.ReportMetric(float64(percentile(starts, 0.5).Microseconds())/1000, "start-p50-ms")
			b.ReportMetric(float64(percentile(cells, 0.5).Microseconds())/1000, "cell-p50-ms")
		})
	}
}

func TestParseSandboxSettings(t *testing.T) {
	tests := []struct {
		in, wantErr string
	}{
		{`{"network": {"allowedDomains": ["example.org"]}, "filesystem": {"allowWrite": ["/data"]}}`, ""},
		{`{}`, ""},
		{`{"network": {"allowedDomains": "example.org"}}`, "lists of strings"},
		{`{"filesystem": {"denyRead": [1]}}`, "lists of strings"},
		{`[]`, "not a JSON object"},
		{`null`, "not a JSON object"},
		{`{"network": `, "not a JSON object"},
		{`{"filesystem": {"disabled": true, "allowWrite": []}}`, "filesystem.disabled is not supported"},
		{`{"filesystem": {"disabled": false, "allowWrite": []}}`, ""},
	}
	for _, tt := range tests {
		_, err := ParseSandboxSettings([]byte(tt.in))
		if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%s: err = %v, want %q", tt.in, err, tt.wantErr)
		}
	}
}

// TestSandboxKernelSeesOnlyItsOwnFolder: two sandboxed kernels of one
// server (a spare, a subagent's) each see their own private folder in the
// runtime folder and nothing of the other's, nor the server's or the
// other kernel's sandbox settings; a plain kernel's folder is 0700.
func TestSandboxKernelSeesOnlyItsOwnFolder(t *testing.T) {
	runtime, ws := shortDir(t), t.TempDir()
	py, srt := newPython(t), testSrt(t)
	srv, err := StartServer(context.Background(), ServerOptions{Python: py, Dir: t.TempDir(), Root: ws, Sandbox: &Sandbox{Srt: srt}, RuntimeDir: runtime})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	k1 := startKernel(t, srv, KernelOptions{Workspace: ws})
	k2 := startKernel(t, srv, KernelOptions{Workspace: ws})
	folders, _ := filepath.Glob(filepath.Join(runtime, "k-*"))
	if len(folders) != 2 {
		t.Fatalf("kernel folders: %v", folders)
	}
	for _, k := range []*Kernel{k1, k2} {
		code := fmt.Sprintf(`import os
from ipykernel.kernelapp import IPKernelApp
own = os.path.dirname(IPKernelApp.instance().ip)
seen = []
for d, dirs, files in os.walk(%q):
    seen += [os.path.join(d, f) for f in dirs + files if not os.path.join(d, f).startswith(own)]
def readable(p):
    try:
        return 'filesystem' in open(p).read()
    except OSError:
        return False
settings = [p for p in %s if readable(p)]
print('OWN', own, 'SEEN', seen, 'SETTINGS', settings)`, runtime, jsonList(srv.sandbox.settings, k1.c.z.settings, k2.c.z.settings))
		res := run(t, k, code)
		if res.Error != nil || !strings.Contains(res.Text, "SEEN [] SETTINGS []") || !strings.Contains(res.Text, "OWN "+runtime+"/k-") {
			t.Errorf("kernel saw: %q %v", res.Text, res.Error)
		}
	}
	plain, err := StartServer(context.Background(), ServerOptions{Python: py, Dir: t.TempDir(), RuntimeDir: runtime})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	k3 := startKernel(t, plain, KernelOptions{})
	if fi, err := os.Stat(k3.c.z.dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("a plain kernel's folder: %v %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(k3.c.z.dir, "kernel-"+k3.c.id+".json")); err == nil {
		t.Error("the connection file is still there once the kernel has connected")
	}
}

// jsonList is a JSON list of strings (a Python list literal too).
func jsonList(s ...string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestSandboxBehindJupyterServer: kernels a local jupyter_server starts
// run in the sandbox too, their sockets in a folder of the hidden runtime
// folder that the sandbox gives back.
func TestSandboxBehindJupyterServer(t *testing.T) {
	runtime, ws := shortDir(t), t.TempDir()
	srv, err := StartServer(context.Background(), ServerOptions{Python: newPython(t), Dir: t.TempDir(), Root: ws,
		Sandbox: &Sandbox{Srt: testSrt(t)}, RuntimeDir: runtime, JupyterServer: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	k := startKernel(t, srv, KernelOptions{Workspace: ws})
	if res := run(t, k, "print(6*7)"); res.Error != nil || !strings.Contains(res.Text, "42") {
		t.Fatalf("cell: %q %v", res.Text, res.Error)
	}
	if !strings.HasPrefix(srv.sandbox.ipc, runtime+string(filepath.Separator)) {
		t.Errorf("the sockets are in %s, not in the runtime folder %s", srv.sandbox.ipc, runtime)
	}
}
