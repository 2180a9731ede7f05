package kernel

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freeact/desktop/internal/appdirs"
	"github.com/freeact/desktop/internal/atomicfile"
)

// kernelName is the kernelspec the local server gets; it runs the kernel
// with the chosen interpreter and environment.
const kernelName = "freeact"

// ServerOptions configure a local Jupyter server.
type ServerOptions struct {
	// Python runs jupyter_server (an Env's interpreter).
	Python string
	// KernelPython runs the kernels; default Python.
	KernelPython string
	// Dir holds the server's config, data and runtime files (JUPYTER_*_DIR,
	// IPYTHONDIR, the kernelspec, sandbox settings); it must be the app's
	// own directory, never ~/.jupyter.
	Dir string
	// Isolate keeps that state in a new directory of this server's own
	// under Dir, locked while the server runs and removed by Close; the
	// ones of servers whose process is gone are removed at start. Set it
	// when Dir is shared (the app's state directory): otherwise a second
	// server writing its kernelspec there changes how the first one starts
	// its next kernel (its Python, its environment, its sandbox).
	Isolate bool
	// Root is the server's root directory: kernels start there. Default Dir.
	Root string
	// RuntimeDir holds each kernel's private folder (mode 0700): its
	// connection file, which holds the key that signs its messages, and,
	// in sandbox mode, its Unix sockets. Keep it short: a socket's path
	// has at most 107 bytes. In sandbox mode every kernel's sandbox hides
	// it but for that kernel's own folder. Default: the user's
	// (appdirs.Dirs.Kernels), which every freeact sandbox hides.
	RuntimeDir string
	// KernelEnv is added to the kernels' environment.
	KernelEnv map[string]string
	// PythonPath entries are prepended to the kernels' PYTHONPATH.
	PythonPath []string
	// WarmPool keeps one spare kernel started, so StartKernel returns at once.
	WarmPool bool
	// WarmAfter, with WarmPool, holds the first spare back (a kernel is
	// some 50 MB): it is started when Warm is called, or once the server
	// has started no kernel and run no cell for this long, whichever comes
	// first; until then StartKernel starts its kernel directly. 0 starts
	// the spare with the server.
	WarmAfter time.Duration
	// Log, if set, receives the server's output.
	Log io.Writer
	// Sandbox, if set, runs every kernel under sandbox-runtime (srt);
	// StartServer fails when the sandbox cannot run.
	Sandbox *Sandbox
	// JupyterServer runs the kernels behind a local jupyter_server, reached
	// over REST and websockets as a remote one is. By default kernels are
	// launched directly and reached over ZeroMQ (zmq.go): no server process,
	// and no relay between us and the kernel.
	JupyterServer bool
}

// Server is a Jupyter server: one we started (local) or one we connect to
// (remote). Kernels are started from it.
type Server struct {
	http       *http.Client
	tls        *tls.Config
	kernelName string
	warm       bool
	warmAfter  time.Duration
	lastUse    atomic.Int64   // unix ns of the last kernel start or cell, for WarmAfter
	maxMessage int64          // largest message the server accepts on a websocket
	local      *ServerOptions // nil for a remote server
	sandbox    *sandboxPaths  // set when kernels run under srt
	remote     *remote        // set for a server we connect to (remote.go)
	private    *stateDir      // set with ServerOptions.Isolate
	spec       *kernelSpec    // set when local kernels are launched directly (zmq.go)

	ep atomic.Pointer[endpoint] // replaced when a dead local server is relaunched

	mu       sync.Mutex
	launchMu sync.Mutex       // one relaunch at a time
	spare    chan spareKernel // at most one spare kernel (warm pool)
	warmed   bool             // the pool has started its first spare
	idle     *time.Timer      // WarmAfter's timer while the pool is not warmed
	closed   bool
	live     map[string]*Kernel
	wg       sync.WaitGroup
}

// endpoint is where the server answers; for a local server also its process.
type endpoint struct {
	base  *url.URL
	token string
	proc  *process // nil for a remote server
	// header is sent with every request (jupyter_headers); an
	// Authorization in it replaces the token.
	header http.Header
}

// process is a running local jupyter_server.
type process struct {
	cmd     *exec.Cmd
	exited  chan struct{}
	logTail *tailBuffer
}

type spareKernel struct {
	c   *conn
	err error
}

// URL is the server's base URL; "" when local kernels are reached directly.
func (s *Server) URL() string {
	if ep := s.ep.Load(); ep != nil {
		return ep.base.String()
	}
	return ""
}

// Token is the server's auth token; "" when local kernels are reached directly.
func (s *Server) Token() string {
	if ep := s.ep.Load(); ep != nil {
		return ep.token
	}
	return ""
}

// PID is the local jupyter_server's process id, or 0 for a remote server
// or local kernels reached directly.
func (s *Server) PID() int {
	if ep := s.ep.Load(); ep != nil && ep.proc != nil {
		return ep.proc.cmd.Process.Pid
	}
	return 0
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// serverConfig is loaded by jupyter_server from our own config dir. TCP_NODELAY
// is kept on for every accepted connection (the kernel websocket otherwise
// runs with Nagle on: 40 ms a message); the websocket message limit is
// raised so large callback replies fit; the iopub rate limits are off so big
// outputs are not dropped; a dead kernel is noticed within half a second and
// reported dead instead of being restarted (the client starts a fresh one:
// a restarted sandboxed kernel took the ipc socket paths the fresh one had
// been given); a kernel that does not exit half a second after a shutdown
// request (ipykernel 7 sometimes hangs there) gets SIGTERM instead of
// waiting 2.5 s.
const serverConfig = `
import tornado.httpserver as _hs
import tornado.iostream as _ios

_orig_handle_stream = _hs.HTTPServer.handle_stream
def _handle_stream(self, stream, address):
    try:
        stream.set_nodelay(True)
    except Exception:
        pass
    return _orig_handle_stream(self, stream, address)
_hs.HTTPServer.handle_stream = _handle_stream

# tornado's HTTP/1 connection turns no-delay off again after each response,
# which is the state a websocket is left in after its handshake.
_orig_set_nodelay = _ios.IOStream.set_nodelay
def _set_nodelay(self, value):
    return _orig_set_nodelay(self, True)
_ios.IOStream.set_nodelay = _set_nodelay

c.ServerApp.open_browser = False
c.ServerApp.ip = "127.0.0.1"
c.ServerApp.port_retries = 0
c.ServerApp.tornado_settings = {"websocket_max_message_size": 1 << 30}
c.ServerApp.iopub_data_rate_limit = 0
c.ServerApp.iopub_msg_rate_limit = 0
c.ZMQChannelsWebsocketConnection.iopub_data_rate_limit = 0
c.ZMQChannelsWebsocketConnection.iopub_msg_rate_limit = 0
c.ZMQChannelsWebsocketConnection.limit_rate = False
c.ServerApp.allow_root = True
c.ServerApp.terminals_enabled = False
c.ServerApp.jpserver_extensions = {"jupyter_server_terminals": False}
c.MultiKernelManager.default_kernel_name = "freeact"
c.KernelRestarter.time_to_dead = 0.5
c.KernelRestarter.restart_limit = 0
c.KernelManager.shutdown_wait_time = 1.0
`

// noCwdImports starts every script the app runs with python -c outside
// the sandbox: -c puts the working directory (the workspace) first on
// sys.path, and a module there (json.py, jupyter_server/) would shadow the
// real one. In sandbox mode code writes the workspace, so such a module
// would run unconfined at the next start. Nothing is imported before it
// but what the interpreter loads at startup, which never looks there.
const noCwdImports = `import sys
if sys.path[:1] == [""]:
    del sys.path[0]
`

// serverBootstrap is what `python -m jupyter_server` runs, minus the
// optional rfc3987_syntax validator, whose import alone takes about a second
// (it builds a grammar); jsonschema works without it.
//
// The token comes as the first line on stdin and goes into the server's
// configuration in memory, never into its environment (which its kernels
// inherit, and which code can read from /proc/<ppid>/environ) or a file:
// the server info and browser-open files, which would hold it in the
// runtime folder the kernels read, are not written. Nor is the cookie
// secret (with which login cookies can be forged): it is made in memory.
// Code holding the token could start kernels through the REST API that
// have no hooks and, in sandbox mode, no sandbox.
const serverBootstrap = noCwdImports + `sys.modules.setdefault("rfc3987_syntax", None)
token = sys.stdin.readline().strip()
import os
from jupyter_server.serverapp import ServerApp
from traitlets.config import Config
config = Config()
try:
    from jupyter_server.auth.identity import IdentityProvider  # jupyter_server 2
    config.IdentityProvider.token = token
except ImportError:
    config.ServerApp.token = token
del token
config.ServerApp.cookie_secret = os.urandom(32)
ServerApp.write_server_info_file = lambda self: None
ServerApp.write_browser_open_files = lambda self: None
sys.exit(ServerApp.launch_instance(config=config))
`

// StartServer makes the Server that starts local kernels: by default it
// launches each kernel itself and talks to it over ZeroMQ; with
// opts.JupyterServer it starts `python -m jupyter_server` on 127.0.0.1 and
// a free port with a random token, and waits until its status API answers.
func StartServer(ctx context.Context, opts ServerOptions) (*Server, error) {
	what := "prepare local kernels"
	if opts.JupyterServer {
		what = "start jupyter server"
	}
	if opts.Python == "" {
		return nil, fmt.Errorf("%s: no Python interpreter given (resolve one with ResolveEnv)", what)
	}
	if opts.Dir == "" {
		return nil, fmt.Errorf("%s: no state directory given (ServerOptions.Dir)", what)
	}
	if opts.KernelPython == "" {
		opts.KernelPython = opts.Python
	}
	if opts.RuntimeDir == "" {
		opts.RuntimeDir = appdirs.FromXDG().Kernels()
	}
	if err := appdirs.MakePrivate(opts.RuntimeDir); err != nil {
		return nil, fmt.Errorf("%s: the kernels' runtime folder: %w", what, err)
	}
	var private *stateDir
	if opts.Isolate {
		var err error
		if private, err = newStateDir(opts.Dir); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		opts.Dir = private.path
	}
	s, err := startServer(ctx, opts, private, what)
	if err != nil && private != nil {
		_ = private.remove()
	}
	return s, err
}

func startServer(ctx context.Context, opts ServerOptions, private *stateDir, what string) (_ *Server, err error) {
	if opts.Root == "" {
		opts.Root = opts.Dir
	}
	dirs := jupyterDirs(opts.Dir)
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	config := serverConfig
	var sandbox *sandboxPaths
	if opts.Sandbox != nil {
		sb := *opts.Sandbox
		opts.Sandbox = &sb
		p, perr := prepareSandbox(ctx, &opts)
		if perr != nil {
			return nil, perr
		}
		sandbox = &p
		defer func() { // err is the result
			if err != nil {
				_ = cleanSandbox(p)
			}
		}()
		// Kernels in the sandbox have no network namespace of their own:
		// they reach the server (or us) over Unix sockets.
		config += fmt.Sprintf("c.KernelManager.transport = \"ipc\"\nc.KernelManager.ip = %q\n", filepath.Join(p.ipc, "k"))
	}
	if !opts.JupyterServer {
		spec := newKernelSpec(opts, sandbox)
		s := &Server{kernelName: kernelName, warm: opts.WarmPool, warmAfter: opts.WarmAfter, maxMessage: 1 << 62,
			local: &opts, sandbox: sandbox, private: private, spec: &spec, live: map[string]*Kernel{}}
		s.initPool()
		return s, nil
	}
	if err := atomicfile.Write(filepath.Join(dirs["JUPYTER_CONFIG_DIR"], "jupyter_server_config.py"), []byte(config), 0o600); err != nil {
		return nil, fmt.Errorf("start jupyter server: write config: %w", err)
	}
	if err := writeKernelSpec(filepath.Join(dirs["JUPYTER_DATA_DIR"], "kernels", kernelName), opts, sandbox); err != nil {
		return nil, fmt.Errorf("start jupyter server: write kernelspec: %w", err)
	}

	s := &Server{
		http:       &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}},
		kernelName: kernelName,
		warm:       opts.WarmPool,
		warmAfter:  opts.WarmAfter,
		maxMessage: 1 << 30, // websocket_max_message_size in serverConfig
		local:      &opts,
		sandbox:    sandbox,
		private:    private,
		live:       map[string]*Kernel{},
	}
	ep, err := s.launch(ctx)
	if err != nil {
		return nil, fmt.Errorf("start jupyter server: %w", err)
	}
	s.ep.Store(ep)
	s.initPool()
	return s, nil
}

// launch starts the local server process on a free port with a new token
// and waits until it answers.
func (s *Server) launch(ctx context.Context) (*endpoint, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		ep, err := s.launchOn(ctx, port, randomHex(24))
		if err == nil {
			return ep, nil
		}
		lastErr = err
		if ctx.Err() != nil || !strings.Contains(err.Error(), "address already in use") {
			break
		}
	}
	return nil, lastErr
}

func (s *Server) launchOn(ctx context.Context, port int, token string) (*endpoint, error) {
	opts := s.local
	cmd := exec.Command(opts.Python, "-c", serverBootstrap,
		"--no-browser", "--ip=127.0.0.1", "--port="+strconv.Itoa(port),
		"--ServerApp.root_dir="+opts.Root)
	cmd.Dir = opts.Root
	// The server's environment is its kernels': a token of the user's
	// environment (another server's) is not passed on. Ours goes on stdin.
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "JUPYTER_TOKEN=") || strings.HasPrefix(kv, "JUPYTER_TOKEN_FILE=")
	})
	for k, v := range jupyterDirs(opts.Dir) {
		env = append(env, k+"="+v)
	}
	env = append(env, "JUPYTER_PLATFORM_DIRS=1", "PYDEVD_DISABLE_FILE_VALIDATION=1")
	cmd.Env = env
	cmd.Stdin = strings.NewReader(token + "\n")
	tail := &tailBuffer{max: 64 << 10}
	var out io.Writer = tail
	if opts.Log != nil {
		out = io.MultiWriter(tail, opts.Log)
	}
	cmd.Stdout, cmd.Stderr = out, out
	// Own process group (killed as a whole on Close) and, on Linux, SIGKILL
	// when our process dies. Kernels watch the server (JPY_PARENT_PID) and
	// exit within a second after it is gone.
	cmd.SysProcAttr = serverProcAttr()
	// Kernels inherit the output pipes; do not wait for them after the
	// server itself has exited.
	cmd.WaitDelay = 200 * time.Millisecond
	p := &process{cmd: cmd, exited: make(chan struct{}), logTail: tail}
	if err := p.start(); err != nil {
		return nil, fmt.Errorf("run %s (jupyter_server): %w", opts.Python, err)
	}
	ep := &endpoint{base: &url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(port), Path: "/"}, token: token, proc: p}
	if err := s.waitReady(ctx, ep); err != nil {
		p.kill()
		if strings.Contains(err.Error(), "No module named") {
			err = fmt.Errorf("%w\nfix: run: %s -m pip install %s", err, opts.Python, strings.Join(provisionPackages(), " "))
		}
		return nil, err
	}
	return ep, nil
}

// relaunch starts a new local server process when the current one has
// exited (crashed or killed), so kernels can be replaced on it.
func (s *Server) relaunch(ctx context.Context) error {
	s.launchMu.Lock()
	defer s.launchMu.Unlock()
	old := s.ep.Load()
	if old == nil {
		return nil // no server: kernels are launched directly
	}
	if old.proc == nil {
		return errors.New("the remote Jupyter server is not reachable")
	}
	select {
	case <-old.proc.exited:
	default:
		return nil // still running (or already relaunched)
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return errors.New("server is closed")
	}
	ep, err := s.launch(ctx)
	if err != nil {
		return fmt.Errorf("restart the local Jupyter server (it had exited): %w", err)
	}
	s.ep.Store(ep)
	return nil
}

func jupyterDirs(dir string) map[string]string {
	return map[string]string{
		"JUPYTER_CONFIG_DIR":  filepath.Join(dir, "config"),
		"JUPYTER_DATA_DIR":    filepath.Join(dir, "data"),
		"JUPYTER_RUNTIME_DIR": filepath.Join(dir, "runtime"),
		"IPYTHONDIR":          filepath.Join(dir, "ipython"),
	}
}

func (s *Server) waitReady(ctx context.Context, ep *endpoint) error {
	deadline := time.Now().Add(60 * time.Second)
	delay := 5 * time.Millisecond
	for {
		select {
		case <-ep.proc.exited:
			return fmt.Errorf("jupyter server exited during startup: %s", ep.proc.tail(12))
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		rctx, cancel := context.WithTimeout(ctx, time.Second)
		err := s.restTo(rctx, ep, http.MethodGet, "api/status", nil, nil)
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("jupyter server not ready after 60 s: %v: %s", err, ep.proc.tail(12))
		}
		time.Sleep(delay)
		if delay < 50*time.Millisecond {
			delay += 5 * time.Millisecond
		}
	}
}

func writeKernelSpec(dir string, opts ServerOptions, sandbox *sandboxPaths) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ks := newKernelSpec(opts, sandbox)
	spec := map[string]any{
		"argv":           ks.Argv,
		"display_name":   "freeact",
		"language":       "python",
		"env":            ks.Env,
		"interrupt_mode": ks.InterruptMode,
	}
	b, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "kernel.json"), b, 0o600)
}

// HTTPError is a failed REST call.
type HTTPError struct {
	Method, Path string
	Status       int
	Body         string
}

func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("%s %s: HTTP %d", e.Method, e.Path, e.Status)
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		msg += " (authentication failed: check the server token, or the Authorization header)"
	case http.StatusNotFound:
		msg += " (not found)"
	}
	if b := strings.TrimSpace(e.Body); b != "" {
		if len(b) > 300 {
			b = b[:300] + "..."
		}
		msg += ": " + b
	}
	return msg
}

// rest does one authenticated JSON request.
func (s *Server) rest(ctx context.Context, method, path string, body, out any) error {
	return s.restTo(ctx, s.ep.Load(), method, path, body, out)
}

func (s *Server) restTo(ctx context.Context, ep *endpoint, method, path string, body, out any) error {
	if ep == nil {
		return fmt.Errorf("%s /%s: no Jupyter server (local kernels are reached over ZeroMQ)", method, path)
	}
	ref := &url.URL{}
	ref.Path, ref.RawQuery, _ = strings.Cut(path, "?")
	return s.request(ctx, ep, method, ref, body, out, 8<<20)
}

// request does one authenticated JSON request to ref (relative to the
// server's base URL) and decodes a reply of at most limit bytes into out.
func (s *Server) request(ctx context.Context, ep *endpoint, method string, ref *url.URL, body, out any, limit int64) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	u := ep.base.ResolveReference(ref)
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return err
	}
	ep.authorize(req.Header)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return s.redact(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return s.redact(err)
	}
	path := ref.EscapedPath()
	if resp.StatusCode/100 != 2 {
		return s.redact(&HTTPError{Method: method, Path: "/" + path, Status: resp.StatusCode, Body: string(data)})
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("%s /%s: bad JSON reply: %w", method, path, err)
		}
	}
	return nil
}

// Close shuts down every kernel started from this server and, for a local
// server, stops the server process group. Nothing started by it survives.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	kernels := make([]*Kernel, 0, len(s.live))
	for _, k := range s.live {
		kernels = append(kernels, k)
	}
	spare := s.spare
	if s.idle != nil {
		s.idle.Stop()
	}
	s.mu.Unlock()

	var wg sync.WaitGroup
	for _, k := range kernels {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = k.Close()
		}()
	}
	wg.Wait()
	// A spare kernel being started shuts itself down when it sees closed.
	s.wg.Wait()
	if spare != nil {
		select {
		case sk := <-spare:
			if sk.c != nil {
				sk.c.shutdown(context.Background())
			}
		default:
		}
	}
	s.launchMu.Lock() // wait for a relaunch in progress
	if ep := s.ep.Load(); ep != nil && ep.proc != nil {
		ep.proc.kill()
	}
	s.launchMu.Unlock()
	var errs []error
	if s.sandbox != nil {
		errs = append(errs, cleanSandbox(*s.sandbox))
	}
	if s.private != nil {
		errs = append(errs, s.private.remove())
	}
	return errors.Join(errs...)
}

// StateDir is the directory holding a local server's state (Dir, or with
// Isolate its private directory); "" for a remote server.
func (s *Server) StateDir() string {
	if s.local == nil {
		return ""
	}
	return s.local.Dir
}

// start runs the process from a goroutine locked to its OS thread until the
// process exits: Pdeathsig fires when the *thread* that started the child
// ends, and Go ends threads whose locked goroutine returns.
func (p *process) start() error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := p.cmd.Start(); err != nil {
			errc <- err
			return
		}
		errc <- nil
		_ = p.cmd.Wait()
		close(p.exited)
	}()
	return <-errc
}

// kill stops the process group: SIGTERM, then SIGKILL (the process alone
// where there are no process groups).
func (p *process) kill() {
	pgid := p.cmd.Process.Pid
	if termGroup(pgid) == nil {
		select {
		case <-p.exited:
		case <-time.After(3 * time.Second):
		}
	}
	_ = killGroup(pgid)
	<-p.exited
}

// exitedWithin reports whether the local server process exits within d
// (false at once for a remote server).
func (s *Server) exitedWithin(d time.Duration) bool {
	ep := s.ep.Load()
	if ep == nil || ep.proc == nil {
		return false
	}
	p := ep.proc
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max/2:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.buf...)
}
