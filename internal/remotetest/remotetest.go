// Package remotetest starts the Jupyter servers the remote-kernel tests run
// against, the way a user's remote machine would run them: a Kernel
// Gateway, an Enterprise Gateway (local process-proxy mode) or a
// jupyter_server over TLS with a certificate from a CA of its own, each
// installed from PyPI by scripts/setup-remote.sh, run as another user
// (freeact-remote, created on first use) in a mount namespace where a
// folder of the test's machine, the local workspace's parent, is covered
// by an empty tmpfs: the server cannot see the local workspace at all.
//
// It needs Linux and root (useradd, unshare, mount, setpriv); elsewhere
// the tests skip, and fail under CI=true, as testenv.Missing does. It also
// has the TCP proxy with which tests cut the connection for a moment.
package remotetest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/testenv"
)

// Kind is a kind of Jupyter server.
type Kind string

const (
	KernelGateway     Kind = "kernel-gateway"
	EnterpriseGateway Kind = "enterprise-gateway"
	JupyterServer     Kind = "jupyter-server"
)

// Kinds are all kinds, in the order tests run them.
var Kinds = []Kind{KernelGateway, EnterpriseGateway, JupyterServer}

// User is the account the servers run as.
const User = "freeact-remote"

// NoDelay is the one line of server configuration (a jupyter_server,
// Kernel Gateway or Enterprise Gateway config file) that turns Nagle's
// algorithm off for the kernel websockets: tornado turns TCP_NODELAY off
// after each HTTP response, the websocket handshake included, and this
// keeps it on. docs/remote.md gives it to users.
const NoDelay = `import tornado.iostream as s; s.IOStream.set_nodelay = (lambda f: lambda self, value: f(self, True))(s.IOStream.set_nodelay)`

// Options adjust Start.
type Options struct {
	// Hide is a folder of this machine the server must not see (the
	// local workspace's parent): an empty tmpfs covers it in the server's
	// mount namespace.
	Hide string
	// NoDelay puts the NoDelay line into the server's configuration.
	NoDelay bool
	// Port to listen on; 0 picks a free one.
	Port int
}

// Server is a running Jupyter server of another user.
type Server struct {
	Kind  Kind
	URL   string // base URL, https for JupyterServer
	Token string
	// CAFile is the PEM certificate of the CA that signed the server's
	// certificate (JupyterServer only).
	CAFile string
	// Root is the folder kernels start in (the server's root), as the
	// server sees it; Home the server user's home.
	Root, Home string
	// Dir holds everything of this server (its root, home, runtime files,
	// log); it appears in the command line of the server and its kernels.
	Dir  string
	Port int

	t    testing.TB
	opts Options
	uid  int
	gid  int

	mu  sync.Mutex
	cmd *exec.Cmd
	log *os.File
}

// Venv returns the Python of kind's venv under .cache/remote.
func Venv(t testing.TB, kind Kind) string {
	t.Helper()
	testenv.Integration(t, "a "+string(kind))
	py := filepath.Join(testenv.RepoRoot(t), ".cache", "remote", string(kind), "bin", "python")
	if _, err := os.Stat(py); err != nil {
		testenv.Missing(t, "no "+string(kind)+" venv at "+py+": run scripts/setup-remote.sh (make test does)")
	}
	return py
}

// Start starts a server of kind as User and waits until it answers. It is
// stopped when the test ends, with every kernel it started.
func Start(t testing.TB, kind Kind, opts Options) *Server {
	t.Helper()
	py := Venv(t, kind)
	if os.Geteuid() != 0 {
		testenv.Missing(t, "remote server tests run the server as another user in a mount namespace of its own, which needs root (CI runs as root)")
	}
	for _, tool := range []string{"unshare", "setpriv", "mount"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Missing(t, tool+" not found (util-linux)")
		}
	}
	uid, gid := ensureUser(t)
	dir, err := os.MkdirTemp("", "freeact-remote-")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Kind: kind, Token: randomHex(16), Dir: dir, t: t, opts: opts, uid: uid, gid: gid,
		Root: filepath.Join(dir, "root"), Home: filepath.Join(dir, "home")}
	t.Cleanup(func() {
		s.Stop()
		os.RemoveAll(dir)
	})
	for _, d := range []string{dir, s.Root, s.Home, filepath.Join(s.Home, "runtime"), filepath.Join(s.Home, "config"), filepath.Join(s.Home, "data")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if d != dir {
			if err := os.Chown(d, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The temporary folders above dir must let the server's user through.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s.Port = opts.Port
	if s.Port == 0 {
		s.Port = FreePort(t)
	}
	scheme := "http"
	if kind == JupyterServer {
		scheme = "https"
		s.CAFile = s.writeCerts()
	}
	if opts.NoDelay {
		name := map[Kind]string{
			KernelGateway:     "jupyter_kernel_gateway_config.py",
			EnterpriseGateway: "jupyter_enterprise_gateway_config.py",
			JupyterServer:     "jupyter_server_config.py",
		}[kind]
		if err := os.WriteFile(filepath.Join(s.Home, "config", name), []byte(NoDelay+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// FreePort's port is free only until something else takes it: another
	// package's test may bind it before the server does. Then the server
	// exits saying so, and it is started again on another free port.
	for attempt := 1; ; attempt++ {
		s.URL = fmt.Sprintf("%s://127.0.0.1:%d/", scheme, s.Port)
		if s.start(py) || opts.Port != 0 || attempt == 5 {
			break
		}
		s.Port = FreePort(t)
	}
	return s
}

// ensureUser creates User (a system account without login) when missing.
func ensureUser(t testing.TB) (uid, gid int) {
	t.Helper()
	u, err := user.Lookup(User)
	if err != nil {
		// Another test process may be creating it at the same moment.
		out, aerr := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", User).CombinedOutput()
		if u, err = user.Lookup(User); err != nil {
			t.Fatalf("create the user %s: %v: %s", User, aerr, out)
		}
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid
}

// start starts the server and waits until it answers. It reports false,
// with the server gone, when the server's port was taken by another process.
func (s *Server) start(py string) (started bool) {
	t := s.t
	t.Helper()
	bin := filepath.Dir(py)
	var args []string
	switch s.Kind {
	case KernelGateway:
		args = []string{"-m", "kernel_gateway", "--KernelGatewayApp.ip=127.0.0.1", "--KernelGatewayApp.port=" + strconv.Itoa(s.Port),
			"--KernelGatewayApp.port_retries=0", "--KernelGatewayApp.auth_token=" + s.Token, "--JupyterWebsocketPersonality.list_kernels=True"}
	case EnterpriseGateway:
		args = []string{filepath.Join(bin, "jupyter-enterprisegateway"), "--EnterpriseGatewayApp.ip=127.0.0.1", "--EnterpriseGatewayApp.port=" + strconv.Itoa(s.Port),
			"--EnterpriseGatewayApp.port_retries=0", "--EnterpriseGatewayApp.auth_token=" + s.Token, "--EnterpriseGatewayApp.list_kernels=True"}
	case JupyterServer:
		args = []string{"-m", "jupyter_server", "--no-browser", "--ServerApp.ip=127.0.0.1", "--ServerApp.port=" + strconv.Itoa(s.Port),
			"--ServerApp.port_retries=0", "--ServerApp.token=" + s.Token, "--ServerApp.root_dir=" + s.Root,
			"--ServerApp.certfile=" + filepath.Join(s.Dir, "tls", "server.pem"), "--ServerApp.keyfile=" + filepath.Join(s.Dir, "tls", "server-key.pem")}
	}
	env := []string{
		"HOME=" + s.Home, "PATH=" + bin + ":/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8",
		"JUPYTER_CONFIG_DIR=" + filepath.Join(s.Home, "config"), "JUPYTER_DATA_DIR=" + filepath.Join(s.Home, "data"),
		"JUPYTER_RUNTIME_DIR=" + filepath.Join(s.Home, "runtime"), "JUPYTER_PLATFORM_DIRS=1",
		"IPYTHONDIR=" + filepath.Join(s.Home, "ipython"), "PYDEVD_DISABLE_FILE_VALIDATION=1",
	}
	// unshare -m: a mount namespace of the server's own, where a tmpfs
	// covers the hidden folder; then setpriv drops to the server's user.
	script := `set -e; if [ -n "$1" ]; then mount -t tmpfs -o size=64k,mode=755 freeact-hidden "$1"; fi; shift; exec "$@"`
	cmdline := []string{"--mount", "--propagation", "private", "--", "/bin/sh", "-c", script, "sh", s.opts.Hide,
		"setpriv", "--reuid=" + strconv.Itoa(s.uid), "--regid=" + strconv.Itoa(s.gid), "--clear-groups", "--",
		"/usr/bin/env", "-i"}
	cmdline = append(cmdline, env...)
	cmdline = append(cmdline, py)
	cmdline = append(cmdline, args...)
	cmd := exec.Command("unshare", cmdline...)
	cmd.Dir = s.Root
	cmd.SysProcAttr = serverProcAttr()
	log, err := os.OpenFile(filepath.Join(s.Dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", s.Kind, err)
	}
	s.mu.Lock()
	s.cmd, s.log = cmd, log
	s.mu.Unlock()
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	// Ready when the kernelspecs answer to the token.
	client := s.Client()
	portTaken := false
	testenv.Eventually(t, 2*time.Minute, func() error {
		select {
		case <-exited:
			if log := s.Log(); strings.Contains(log, "is already in use") || strings.Contains(log, "Address already in use") {
				t.Logf("%s: port %d was taken by another process; trying another", s.Kind, s.Port)
				portTaken = true
				return nil
			}
			t.Fatalf("%s exited during startup:\n%s", s.Kind, s.Log())
		default:
		}
		req, _ := http.NewRequest(http.MethodGet, s.URL+"api/kernelspecs", nil)
		req.Header.Set("Authorization", "token "+s.Token)
		resp, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("%s not ready (%v):\n%s", s.Kind, err, s.Log())
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s not ready (%s):\n%s", s.Kind, resp.Status, s.Log())
		}
		return nil
	})
	if portTaken {
		s.Kill()
		s.mu.Lock()
		if s.log != nil {
			s.log.Close()
			s.log = nil
		}
		s.mu.Unlock()
		_ = os.Truncate(filepath.Join(s.Dir, "server.log"), 0)
		return false
	}
	return true
}

// Client is an HTTP client that trusts the server's CA.
func (s *Server) Client() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if s.CAFile != "" {
		pem, _ := os.ReadFile(s.CAFile)
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		tr.TLSClientConfig.RootCAs = pool
	}
	// A safety net, not a measurement: a loaded machine answers slowly.
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// Log is the server's output so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "server.log"))
	return string(b)
}

// Kill stops the server at once (SIGKILL), as a crash would; its kernels
// notice their parent is gone and exit. Kill waits until they have.
func (s *Server) Kill() {
	s.mu.Lock()
	cmd := s.cmd
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	killGroup(cmd.Process.Pid)
	s.killRest()
}

// Restart starts the server again, on the same port, after Kill.
func (s *Server) Restart() {
	s.t.Helper()
	if !s.start(Venv(s.t, s.Kind)) {
		s.t.Fatalf("%s: its port %d was taken by another process while it was down", s.Kind, s.Port)
	}
}

// Stop stops the server and every process it left (kernels).
func (s *Server) Stop() {
	s.Kill()
	s.mu.Lock()
	if s.log != nil {
		s.log.Close()
		s.log = nil
	}
	s.mu.Unlock()
}

// killRest kills the processes whose command line mentions the server's
// folder (its kernels: their connection files are in it), by pid.
func (s *Server) killRest() {
	testenv.Eventually(s.t, time.Minute, func() error {
		pids := s.Processes()
		for _, pid := range pids {
			kill(pid)
		}
		if len(pids) > 0 {
			return fmt.Errorf("%s processes still running after SIGKILL: %v", s.Kind, pids)
		}
		return nil
	})
}

// Processes lists the pids of the server and its kernels.
func (s *Server) Processes() []int { return processesMentioning(s.Dir) }

// processesMentioning lists the pids of live processes whose command line
// mentions dir (but not this one).
func processesMentioning(dir string) []int {
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(d + "/cmdline")
		if err != nil || !strings.Contains(string(b), dir) {
			continue
		}
		if st, err := os.ReadFile(d + "/stat"); err == nil {
			// A zombie has exited already.
			if f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:])); len(f) > 0 && f[0] == "Z" {
				continue
			}
		}
		pid, _ := strconv.Atoi(filepath.Base(d))
		if pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Kernels lists the ids of the kernels the server runs (GET api/kernels;
// the gateways are started with kernel listing on).
func (s *Server) Kernels() ([]string, error) {
	req, _ := http.NewRequest(http.MethodGet, s.URL+"api/kernels", nil)
	req.Header.Set("Authorization", "token "+s.Token)
	resp, err := s.Client().Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET api/kernels: HTTP %d", resp.StatusCode)
	}
	var list []struct {
		ID string `json:"id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		return nil, err
	}
	ids := make([]string, len(list))
	for i, k := range list {
		ids[i] = k.ID
	}
	return ids, nil
}

// writeCerts makes a CA and a certificate for 127.0.0.1 signed by it, in
// Dir/tls, and returns the CA's file.
func (s *Server) writeCerts() string {
	t := s.t
	dir := filepath.Join(s.Dir, "tls")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "freeact test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ = x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:   time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	caFile := filepath.Join(dir, "ca.pem")
	write := func(name string, block *pem.Block, mode os.FileMode) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(block), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, s.uid, s.gid); err != nil {
			t.Fatal(err)
		}
	}
	write("ca.pem", &pem.Block{Type: "CERTIFICATE", Bytes: caDER}, 0o644)
	write("server.pem", &pem.Block{Type: "CERTIFICATE", Bytes: leafDER}, 0o644)
	write("server-key.pem", &pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}, 0o600)
	return caFile
}

// FreePort returns a TCP port free on 127.0.0.1 now.
func FreePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
