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
	t.Helper()
	py, srt := newPython(t), testSrt(t)
	sb := &sandboxed{ws: t.TempDir(), outside: t.TempDir()}
	if err := os.WriteFile(filepath.Join(sb.ws, ".env"), []byte("API_KEY=secret-value\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := &Sandbox{Srt: srt}
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
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- struct{}{}
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
		escaped func() bool // the host's own check that nothing happened
	}{
		{"read .env", `open(".env").read()`, nil},
		{"read nested .env", `open("sub/.env").read()`, nil},
		{"write to home", fmt.Sprintf("open(%q, 'w').write('x')", homeFile), func() bool { return exists(homeFile) }},
		{"write to /tmp", fmt.Sprintf("open(%q, 'w').write('x')", filepath.Join(sb.outside, "tmp.txt")), func() bool { return exists(filepath.Join(sb.outside, "tmp.txt")) }},
		{"write through a symlink", `open("link/via-link.txt", "w").write("x")`, func() bool { return exists(filepath.Join(sb.outside, "via-link.txt")) }},
		{"os.system", fmt.Sprintf("import os\nassert os.system('echo x > %s') == 0", filepath.Join(sb.outside, "system.txt")), func() bool { return exists(filepath.Join(sb.outside, "system.txt")) }},
		{"subprocess", fmt.Sprintf("import subprocess\nsubprocess.run(['touch', %q], check=True)", filepath.Join(sb.outside, "sub.txt")), func() bool { return exists(filepath.Join(sb.outside, "sub.txt")) }},
		{"shell command", fmt.Sprintf("r = !touch %s 2>&1; echo rc=$?\nassert 'rc=0' in str(r), r", filepath.Join(sb.outside, "bang.txt")), func() bool { return exists(filepath.Join(sb.outside, "bang.txt")) }},
		{"loopback TCP", fmt.Sprintf("import socket\nsocket.create_connection(('127.0.0.1', %d), timeout=3)", port), func() bool {
			select {
			case <-accepted:
				return true
			case <-time.After(200 * time.Millisecond):
				return false
			}
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
			if tt.escaped != nil && tt.escaped() {
				t.Error("the host sees the effect: the sandbox did not hold")
			}
		})
	}
}

// blockedError matches the errors the sandbox causes: denied or read-only
// paths, no network, and the assertions the cells make on exit statuses.
var blockedError = regexp.MustCompile(`PermissionError|Read-only file system|Errno 1[^0-9]|Network is unreachable|Temporary failure in name resolution|No address associated|Name or service not known|URLError|HTTP Error 403|Connection refused|AssertionError|CalledProcessError|FileNotFoundError: .*'/run'`)

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

// TestSandboxStillWorks checks what a sandboxed kernel must still do.
func TestSandboxStillWorks(t *testing.T) {
	sb := startSandboxed(t, nil)
	h := &testHost{requests: make(chan string, 16)}
	k := startKernel(t, sb.srv, KernelOptions{Workspace: sb.ws, Host: h, ExecutionTimeout: 2 * time.Second})

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
	// A timeout interrupts a busy cell: interrupts reach the kernel as
	// messages, since signals do not cross into bubblewrap's session.
	if r := run(t, k, "kept = 1\nwhile True: pass"); !r.TimedOut {
		t.Errorf("timeout: %+v", r)
	}
	done := make(chan *Result, 1)
	go func() {
		res, _ := k.Execute(context.Background(), "import time\nprint('sleeping', flush=True)\ntime.sleep(60)", nil)
		done <- res
	}()
	time.Sleep(time.Second)
	if err := k.Interrupt(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if res == nil || res.Error == nil || res.Error.Name != "KeyboardInterrupt" {
			t.Errorf("interrupt: %+v", res)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("interrupt did not stop the sleeping cell")
	}
	if r := run(t, k, "print(kept)"); strings.TrimSpace(r.Text) != "1" {
		t.Errorf("state after interrupt: %q", r.Text)
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
	srv, err := StartServer(ctx, ServerOptions{Python: py, Dir: dir, Root: t.TempDir(), Sandbox: &Sandbox{Srt: srt}})
	if err != nil {
		t.Fatal(err)
	}
	k := startKernel(t, srv, KernelOptions{})
	run(t, k, "x = 1")
	ipc := srv.sandbox.ipc
	if entries, _ := os.ReadDir(ipc); len(entries) == 0 {
		t.Fatalf("no kernel sockets in %s", ipc)
	}
	srv.Close()
	// Every process that ran with the server's directory in its command
	// line or environment is gone, and so are srt's leftovers.
	deadline := time.Now().Add(5 * time.Second)
	for len(processesMentioning(dir)) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if p := processesMentioning(dir); len(p) > 0 {
		t.Errorf("processes left: %v", p)
	}
	for _, d := range []string{srv.sandbox.srtTmp, ipc} {
		if exists(d) {
			t.Errorf("%s is still there", d)
		}
	}
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
	}
	for _, tt := range tests {
		_, err := ParseSandboxSettings([]byte(tt.in))
		if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%s: err = %v, want %q", tt.in, err, tt.wantErr)
		}
	}
}
