package kernel

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/testenv"
	"github.com/freeact/desktop/kernel/wswire"
)

// processesMentioning lists pids whose command line contains s (our server
// dir appears in the server's and every kernel's command line).
func processesMentioning(s string) []int {
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(d + "/cmdline")
		if err != nil || !strings.Contains(string(b), s) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(d))
		if pid != os.Getpid() && alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitNoProcesses waits until no process mentions marker (a safety net of
// a minute: on a loaded machine ending and reaping them can take a while).
func waitNoProcesses(t *testing.T, marker string) {
	t.Helper()
	testenv.Eventually(t, time.Minute, func() error {
		if pids := processesMentioning(marker); len(pids) > 0 {
			return fmt.Errorf("processes mentioning %s still running: %v", marker, pids)
		}
		return nil
	})
}

func TestLocalServer(t *testing.T) {
	py := newPython(t)
	for _, viaServer := range []bool{false, true} {
		t.Run(map[bool]string{false: "zeromq", true: "jupyter_server"}[viaServer], func(t *testing.T) { testLocalServer(t, py, viaServer) })
	}
}

func testLocalServer(t *testing.T, py string, viaServer bool) {
	dir := t.TempDir()
	s, err := StartServer(context.Background(), ServerOptions{
		// The kernels' folders in dir: their command lines mention it.
		Python: py, Dir: dir, RuntimeDir: filepath.Join(dir, "run"), WarmPool: true, JupyterServer: viaServer,
		KernelEnv: map[string]string{"FREEACT_TEST_VAR": "from-env"}, PythonPath: []string{"/opt/gen"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if viaServer && (!strings.HasPrefix(s.URL(), "http://127.0.0.1:") || len(s.Token()) < 32) {
		t.Fatalf("url %s token %q", s.URL(), s.Token())
	}
	k1 := startKernel(t, s, KernelOptions{Env: map[string]string{"PER_KERNEL": "yes"}, PythonPath: []string{"/opt/per-kernel"}})
	k2 := startKernel(t, s, KernelOptions{})
	res := run(t, k1, `import os, sys
for v in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR", "FREEACT_TEST_VAR", "PER_KERNEL"):
    print(v, os.environ.get(v))
print("PYTHONPATH", sys.path)
a = 1`)
	for _, want := range []string{
		"JUPYTER_CONFIG_DIR " + filepath.Join(dir, "config"),
		"JUPYTER_DATA_DIR " + filepath.Join(dir, "data"),
		"JUPYTER_RUNTIME_DIR " + filepath.Join(dir, "runtime"),
		"IPYTHONDIR " + filepath.Join(dir, "ipython"),
		"FREEACT_TEST_VAR from-env", "/opt/gen", "PER_KERNEL yes", "'/opt/per-kernel'",
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("kernel environment lacks %q:\n%s", want, res.Text)
		}
	}
	if pidOf(t, k1) == pidOf(t, k2) {
		t.Fatal("two kernels share a process")
	}
	if res := run(t, k2, "a"); res.Error == nil {
		t.Fatal("kernels share state")
	}
	if res := run(t, k2, "import os; print(os.environ.get('PER_KERNEL'))"); !strings.Contains(res.Text, "None") {
		t.Fatalf("per-kernel env leaked into another kernel: %q", res.Text)
	}
	// Close leaves nothing: server (if any), both kernels and the warm spare.
	if len(processesMentioning(dir)) < 3 {
		t.Fatalf("expected server and kernels to mention %s: %v", dir, processesMentioning(dir))
	}
	s.Close()
	waitNoProcesses(t, dir)
}

// A second server is told to use a busy port? We choose the port, so check
// that two servers do not collide and use different tokens.
func TestTwoServers(t *testing.T) {
	py := newPython(t)
	var servers [2]*Server
	for i := range servers {
		s, err := StartServer(context.Background(), ServerOptions{Python: py, Dir: t.TempDir(), JupyterServer: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		servers[i] = s
	}
	a, b := servers[0], servers[1]
	if a.URL() == b.URL() || a.Token() == b.Token() {
		t.Fatalf("servers share %s / token", a.URL())
	}
}

func TestStartServerErrors(t *testing.T) {
	bare := bareVenv(t)
	cases := []struct {
		name string
		opts ServerOptions
		want string
	}{
		{"no python", ServerOptions{Dir: t.TempDir()}, "no Python interpreter given"},
		{"no dir", ServerOptions{Python: bare}, "no state directory"},
		{"python without jupyter_server", ServerOptions{Python: bare, Dir: t.TempDir(), JupyterServer: true}, "No module named 'jupyter_server'\nfix: run: " + bare + " -m pip install ipykernel jupyter_server"},
		// Local kernels over ZeroMQ need no server: the kernel says it.
		{"python without ipykernel", ServerOptions{Python: bare, Dir: t.TempDir()}, "No module named ipykernel_launcher\nfix: run: " + bare + " -m pip install ipykernel jupyter_server"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := StartServer(context.Background(), c.opts)
			if err == nil {
				defer s.Close()
				_, err = s.StartKernel(context.Background(), KernelOptions{})
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

// TestOwnerKilled: when the process owning the server is SIGKILLed (no
// Close), the server (if any) and its kernels still go away.
func TestOwnerKilled(t *testing.T) {
	if os.Getenv("FREEACT_KERNEL_HELPER") == "1" {
		ownerHelper()
		return
	}
	py := newPython(t)
	for _, viaServer := range []bool{false, true} {
		t.Run(map[bool]string{false: "zeromq", true: "jupyter_server"}[viaServer], func(t *testing.T) { testOwnerKilled(t, py, viaServer) })
	}
}

func testOwnerKilled(t *testing.T, py string, viaServer bool) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestOwnerKilled$")
	cmd.Env = append(os.Environ(), "FREEACT_KERNEL_HELPER=1", "FREEACT_HELPER_PYTHON="+py, "FREEACT_HELPER_DIR="+dir,
		"FREEACT_HELPER_VIA_SERVER="+strconv.FormatBool(viaServer))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "READY") {
		t.Fatalf("helper: %q %v", line, err)
	}
	if n, want := len(processesMentioning(dir)), map[bool]int{false: 1, true: 2}[viaServer]; n < want {
		t.Fatalf("want %d processes (server and kernel, or kernel) running, found %d", want, n)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	waitNoProcesses(t, dir)
}

func ownerHelper() {
	ctx := context.Background()
	s, err := StartServer(ctx, ServerOptions{Python: os.Getenv("FREEACT_HELPER_PYTHON"), Dir: os.Getenv("FREEACT_HELPER_DIR"),
		RuntimeDir: filepath.Join(os.Getenv("FREEACT_HELPER_DIR"), "run"), JupyterServer: os.Getenv("FREEACT_HELPER_VIA_SERVER") == "true"})
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(1)
	}
	k, err := s.StartKernel(ctx, KernelOptions{})
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(1)
	}
	if _, err := k.Execute(ctx, "1", nil); err != nil {
		fmt.Println("ERR", err)
		os.Exit(1)
	}
	fmt.Println("READY")
	time.Sleep(time.Minute)
	os.Exit(0)
}

// selfSignedCert writes a certificate for 127.0.0.1 and returns its pool.
func selfSignedCert(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestRemoteServer starts an independent Jupyter server over TLS the way a
// user would and connects to it by URL and token.
func TestRemoteServer(t *testing.T) {
	py := newPython(t)
	home := t.TempDir()
	certFile, keyFile, pool := selfSignedCert(t, home)
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	token := "user-chosen-token"
	cmd := exec.Command(py, "-m", "jupyter_server", "--no-browser", "--allow-root",
		"--ip=127.0.0.1", "--port="+strconv.Itoa(port), "--ServerApp.token="+token,
		"--certfile="+certFile, "--keyfile="+keyFile, "--ServerApp.root_dir="+home)
	cmd.Env = append(os.Environ(), "HOME="+home, "JUPYTER_CONFIG_DIR="+home+"/.jupyter",
		"JUPYTER_DATA_DIR="+home+"/.local/share/jupyter", "JUPYTER_RUNTIME_DIR="+home+"/runtime")
	cmd.SysProcAttr = ownGroupAttr()
	logf, _ := os.Create(filepath.Join(home, "server.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		signal(-cmd.Process.Pid, sigKill)
		cmd.Wait()
	})
	url := fmt.Sprintf("https://127.0.0.1:%d/", port)
	tlsConf := &tls.Config{RootCAs: pool}
	ctx := context.Background()
	var s *Server
	testenv.Eventually(t, 2*time.Minute, func() error { // the server is starting
		if s, err = ConnectServer(ctx, url, token, RemoteOptions{TLS: tlsConf}); err != nil {
			b, _ := os.ReadFile(filepath.Join(home, "server.log"))
			return fmt.Errorf("connect: %v\nserver log:\n%s", err, b)
		}
		return nil
	})
	defer s.Close()

	t.Run("wrong token", func(t *testing.T) {
		_, err := ConnectServer(ctx, url, "wrong", RemoteOptions{TLS: tlsConf})
		if err == nil || !strings.Contains(err.Error(), "authentication failed: check the server token") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("untrusted certificate", func(t *testing.T) {
		_, err := ConnectServer(ctx, url, token, RemoteOptions{})
		if err == nil || !strings.Contains(err.Error(), "certificate") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("bad url", func(t *testing.T) {
		_, err := ConnectServer(ctx, "ftp://x", token, RemoteOptions{})
		if err == nil || !strings.Contains(err.Error(), "not an http(s) URL") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("execute with hooks", func(t *testing.T) {
		h := &testHost{}
		images := t.TempDir()
		k := startKernel(t, s, KernelOptions{Host: h, ImagesDir: images})
		res := run(t, k, "from freeact_runtime import call_tool\nv = 'remote'\n!echo {v}\nprint(call_tool('s', 't', {'x': 1}))\nfrom IPython.display import SVG, display\ndisplay(SVG('<svg xmlns=\"http://www.w3.org/2000/svg\"/>'))")
		if res.Error != nil || !strings.Contains(res.Text, "remote") || !strings.Contains(res.Text, "{'echo': {'x': 1}}") {
			t.Fatalf("%q %v", res.Text, res.Error)
		}
		if cmds := h.commands(); len(cmds) != 1 || cmds[0].Command != "echo remote" {
			t.Fatalf("host saw %+v", cmds)
		}
		if len(res.Images) != 1 || filepath.Dir(res.Images[0]) != images {
			t.Fatalf("images %v", res.Images)
		}
		// Over the remote server's (default) websocket limit: an error in
		// the cell, and the connection survives.
		h.tool = func(context.Context, string, string, json.RawMessage) (json.RawMessage, error) {
			return json.Marshal(strings.Repeat("z", 11<<20))
		}
		res = run(t, k, "from freeact_runtime import ToolFailed\ntry:\n    call_tool('s', 'huge')\nexcept ToolFailed as e:\n    print('failed:', e)")
		if !strings.Contains(res.Text, "failed: s.huge:") || !strings.Contains(res.Text, "websocket message limit") {
			t.Fatalf("oversized reply: %q %v", res.Text, res.Error)
		}
		pid := pidOf(t, k)
		k.Close()
		waitGone(t, "remote kernel after Close", pid)
	})
}

// TestWorkspaceModulesNotImported: the Jupyter server and the interpreter
// check run outside the sandbox, with the workspace (or the folder the app
// was started in) as their working directory. Python modules there are
// not imported by them: in sandbox mode code writes the workspace, and
// such a module would run unconfined at the next start.
func TestWorkspaceModulesNotImported(t *testing.T) {
	py := newPython(t)
	ws := t.TempDir()
	marker := filepath.Join(t.TempDir(), "imported")
	plant := fmt.Sprintf("open(%q, 'a').write(__name__ + '\\n')\n", marker)
	for _, f := range []string{"json.py", "ipykernel.py", "jupyter_server/__init__.py", "tornado/__init__.py"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, f), []byte(plant), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(ws)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if _, err := ResolveEnv(ctx, EnvOptions{Python: py}); err != nil {
		t.Errorf("resolve: %v", err)
	}
	srv, err := StartServer(ctx, ServerOptions{Python: py, Dir: t.TempDir(), Root: ws})
	if err != nil {
		t.Fatalf("start server: %v", err)
	}
	defer srv.Close()
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("modules of the workspace were imported: %s", b)
	}
}

// tokenSearch is a cell that looks for the local server's token everywhere
// a kernel could read it: its environment, the environment and command
// line of every process it can see (its parent's among them), and the
// files of the Jupyter folders it knows of, plus the server's state
// directory. It prints every string shaped like the token (48 hex
// digits), and what it could read.
const tokenSearch = `import os, re, sys
shaped = re.compile(rb"[0-9a-f]{48,}")
found, seen = set(), []
def scan(name, data):
    seen.append(name)
    found.update(m.decode() for m in shaped.findall(data))
scan("os.environ", "\n".join(f"{k}={v}" for k, v in os.environ.items()).encode())
for pid in ["self", str(os.getppid())] + [p for p in os.listdir("/proc") if p.isdigit()]:
    for what in ("environ", "cmdline"):
        try:
            with open(f"/proc/{pid}/{what}", "rb") as f:
                who = {"self": "self", str(os.getppid()): "parent"}.get(pid, "other")
                scan(f"{who} {what}", f.read())
        except OSError:
            pass
roots = [os.environ.get(v) for v in ("JUPYTER_RUNTIME_DIR", "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "IPYTHONDIR")] + STATE
for root in filter(None, roots):
    for d, _, files in os.walk(root):
        for n in files:
            try:
                with open(os.path.join(d, n), "rb") as f:
                    scan("file " + n, f.read(1 << 20))
            except OSError:
                pass
print("seen:", ", ".join(sorted(set(seen))))
print("found:", " ".join(sorted(found)))
`

// checkTokenHidden runs tokenSearch in k and fails when the server's
// token is among what it found, or when it could not look where it must.
// Local kernels reached over ZeroMQ have no server and no token: there
// the secret is the key of another kernel of the server.
func checkTokenHidden(t *testing.T, srv *Server, k *Kernel) {
	t.Helper()
	secret, where := srv.Token(), []string{"os.environ", "self environ", "parent environ", "file kernel.json"}
	if secret == "" {
		secret, where = startKernel(t, srv, KernelOptions{Workspace: k.opts.Workspace}).c.z.info.Key, where[:3]
	}
	// The state folder, and the kernels' runtime folder, where the other
	// kernel's connection file was until it connected.
	roots := []string{srv.StateDir()}
	if srv.local != nil {
		roots = append(roots, srv.local.RuntimeDir)
	}
	list, _ := json.Marshal(roots)
	r := run(t, k, strings.Replace(tokenSearch, "STATE", string(list), 1))
	if r.Error != nil {
		t.Fatalf("search: %s: %s", r.Error.Name, r.Error.Message)
	}
	for _, w := range where {
		if !strings.Contains(r.Text, w) {
			t.Errorf("the search could not read %s: %s", w, r.Text)
		}
	}
	if len(secret) < 48 || strings.Contains(r.Text, secret) {
		t.Errorf("the kernel can read the secret %q: %s", secret, r.Text)
	}
	// Nor the cookie secret, which signs login cookies.
	if strings.Contains(r.Text, "file jupyter_cookie_secret") {
		t.Errorf("the kernel can read the server's cookie secret: %s", r.Text)
	}
}

// TestKernelCannotReadToken: code in a kernel cannot learn the local
// server's token, with which it could start kernels through the server's
// REST API that have no hooks (and, in sandbox mode, no sandbox).
func TestKernelCannotReadToken(t *testing.T) {
	// A token of the user's own environment is not passed on either.
	t.Setenv("JUPYTER_TOKEN", "0123456789abcdef0123456789abcdef0123456789abcdef")
	for name, python := range map[string]func(testing.TB) string{"jupyter_server 2": newPython, "jupyter_server 1": oldPython} {
		t.Run(name, func(t *testing.T) {
			srv, err := StartServer(context.Background(), ServerOptions{Python: python(t), Dir: t.TempDir(), Root: t.TempDir(), JupyterServer: true})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			if srv.Token() == os.Getenv("JUPYTER_TOKEN") {
				t.Error("the server took the token of the environment")
			}
			k := startKernel(t, srv, KernelOptions{})
			checkTokenHidden(t, srv, k)
			if r := run(t, k, "import os; print(os.environ.get('JUPYTER_TOKEN', 'unset'))"); strings.TrimSpace(r.Text) != "unset" {
				t.Errorf("JUPYTER_TOKEN in the kernel: %q", r.Text)
			}
		})
	}
}

// The local servers of both test interpreters (jupyter_server 2, and
// Debian's 1.23) speak the binary protocol with the host; the JSON form is
// left to servers without it.
func TestServerProtocol(t *testing.T) {
	for name, py := range pythons(t) {
		t.Run(name, func(t *testing.T) {
			want := wswire.ProtocolV1
			s, err := StartServer(context.Background(), ServerOptions{Python: py, Dir: t.TempDir(), JupyterServer: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			k := startKernel(t, s, KernelOptions{})
			if got := k.c.socket().Subprotocol(); got != want {
				t.Fatalf("protocol %q, want %q", got, want)
			}
			if got := run(t, k, "print(6 * 7)"); strings.TrimSpace(got.Text) != "42" {
				t.Fatalf("output %q", got.Text)
			}
		})
	}
}
