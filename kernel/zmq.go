package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/freeact/desktop/internal/atomicfile"
	"github.com/freeact/desktop/kernel/zmqwire"
)

// This file launches a local kernel process (`python -m ipykernel_launcher
// -f CONNECTION_FILE`), in its sandbox when there is one, and runs a
// session over its ZeroMQ channels (kernel/zmqwire) with no Jupyter server
// between us and it.

// kernelSpec is how a local kernel is started: its command ({connection_file}
// stands for the connection file), the variables added to its environment
// and how it is interrupted ("signal" or "message").
type kernelSpec struct {
	Argv          []string          `json:"argv"`
	Env           map[string]string `json:"env"`
	InterruptMode string            `json:"interrupt_mode"`
}

// newKernelSpec is the kernel command for opts: the chosen interpreter,
// the environment, the sandbox around it.
func newKernelSpec(opts ServerOptions, sandbox *sandboxPaths) kernelSpec {
	env := map[string]string{}
	for k, v := range opts.KernelEnv {
		env[k] = v
	}
	if len(opts.PythonPath) > 0 {
		parts := append([]string{}, opts.PythonPath...)
		if pp := env["PYTHONPATH"]; pp != "" {
			parts = append(parts, pp)
		} else if pp := os.Getenv("PYTHONPATH"); pp != "" {
			parts = append(parts, pp)
		}
		env["PYTHONPATH"] = strings.Join(parts, string(os.PathListSeparator))
	}
	// No IPython history database: kernels of one server would share and
	// lock one SQLite file, and the agent keeps its own record.
	argv := []string{opts.KernelPython, "-m", "ipykernel_launcher", "-f", "{connection_file}", "--HistoryManager.enabled=False"}
	interrupt := "signal"
	if sandbox != nil {
		// Launched directly, each kernel gets settings of its own
		// ({sandbox_settings}): its folder is the one it may reach.
		settings := sandboxSettingsArg
		if opts.JupyterServer {
			settings = sandbox.settings
		}
		argv = sandboxArgv(opts.Sandbox, *sandbox, settings, jupyterDirs(opts.Dir)["IPYTHONDIR"], argv)
		// Signals do not reach into bubblewrap's session: interrupt by a
		// message on the control channel.
		interrupt = "message"
	}
	return kernelSpec{Argv: argv, Env: env, InterruptMode: interrupt}
}

// connectionInfo is a kernel's connection file.
type connectionInfo = zmqwire.Info

// zmqKernel is a kernel process we launched and its channels.
type zmqKernel struct {
	ch        *zmqwire.Channels // nil until connected
	proc      *process
	dir       string // the kernel's private folder: connection file, sockets
	settings  string // the kernel's own sandbox settings; "" without a sandbox
	info      connectionInfo
	interrupt string        // the spec's interrupt mode
	done      chan struct{} // closed by watchLocal
	closeOnce sync.Once
}

// startLocal launches a kernel process with a new connection file and
// connects its channels; id names it.
func (s *Server) startLocal(ctx context.Context, id string) (_ *conn, err error) {
	opts := s.local
	// The connection file holds the key, and the sockets take commands
	// from whoever holds it: a folder of the kernel's own, 0700, that
	// goes with the kernel, in the runtime folder every sandbox hides
	// (only this kernel's sandbox has this folder back).
	dir, err := os.MkdirTemp(opts.RuntimeDir, "k-")
	if err != nil {
		return nil, fmt.Errorf("make the kernel's private folder: %w", err)
	}
	z := &zmqKernel{dir: dir, interrupt: s.spec.InterruptMode, done: make(chan struct{})}
	defer func() {
		if err != nil {
			z.close()
		}
	}()
	ci := connectionInfo{Transport: "tcp", IP: "127.0.0.1", Key: randomHex(32), SignatureScheme: "hmac-sha256", KernelName: kernelName}
	if s.sandbox != nil {
		// No network in the sandbox: Unix sockets, in the kernel's folder.
		ci.Transport, ci.IP = "ipc", filepath.Join(dir, "k")
		ci.ShellPort, ci.IOPubPort, ci.StdinPort, ci.ControlPort, ci.HBPort = 1, 2, 3, 4, 5
		if len(ci.Endpoint(5)) > len("ipc://")+maxSocketPath {
			return nil, fmt.Errorf("the kernel's socket path %s is longer than %d bytes: set a shorter runtime folder (XDG_RUNTIME_DIR)", ci.Endpoint(5), maxSocketPath)
		}
		z.settings = filepath.Join(s.sandbox.kernels, filepath.Base(dir)+".json")
		if err := writeKernelSettings(*s.sandbox, z.settings, dir); err != nil {
			return nil, err
		}
	}
	// Over TCP the ports are 0: the kernel binds free ones itself and
	// writes them into the file (ports picked here would be free only
	// until another process, or another kernel, took one first).
	z.info = ci
	b, err := json.Marshal(ci)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "kernel-"+id+".json")
	if err := atomicfile.Write(file, b, 0o600); err != nil {
		return nil, fmt.Errorf("write the kernel's connection file: %w", err)
	}
	if z.proc, err = s.launchKernel(file, z.settings); err != nil {
		return nil, err
	}
	if ci.Transport == "tcp" {
		if z.info, err = boundPorts(ctx, file, ci, z.proc); err != nil {
			return nil, err
		}
	}
	session := randomHex(16)
	c := &conn{srv: s, id: id, session: session, z: z, waiters: map[string]chan *received{}, done: z.done}
	if err := c.connectLocal(ctx); err != nil {
		return nil, err
	}
	// The kernel has read its key: off the disk with it, where code in a
	// sandbox (which reads the runtime folder) could find it.
	if err := os.Remove(file); err != nil {
		c.shutdown(context.Background())
		return nil, fmt.Errorf("remove the kernel's connection file: %w", err)
	}
	return c, nil
}

// startLocalHooked starts a local kernel and loads the hooks.
func (s *Server) startLocalHooked(ctx context.Context, id string) (*conn, error) {
	c, err := s.startLocal(ctx, id)
	if err != nil {
		if strings.Contains(err.Error(), "No module named") {
			err = fmt.Errorf("%w\nfix: run: %s -m pip install %s", err, s.local.KernelPython, strings.Join(provisionPackages(), " "))
		}
		return nil, fmt.Errorf("start kernel: %w", err)
	}
	if err := c.loadHooks(ctx); err != nil {
		c.shutdown(context.Background())
		return nil, fmt.Errorf("start kernel: %w", err)
	}
	return c, nil
}

// errExitedStarting is why a local kernel did not start when its process
// exited before it answered.
var errExitedStarting = zmqwire.ErrExited

// startLocalRetried is startLocalHooked, tried once more when the kernel
// died while it started (its process exited, or stopped answering while
// the hooks loaded): a kernel that dies at every start still fails, with
// the second death's reason, but one that died once (on a machine short
// of memory or processors) does not fail the agent's start.
func (s *Server) startLocalRetried(ctx context.Context, id string) (*conn, error) {
	c, err := s.startLocalHooked(ctx, id)
	if err == nil || !(errors.Is(err, ErrKernelDied) || errors.Is(err, errExitedStarting)) || ctx.Err() != nil {
		return c, err
	}
	if s.local.Log != nil {
		fmt.Fprintf(s.local.Log, "freeact: the kernel died while it started, starting another: %v\n", err)
	}
	// The same id: the first kernel's folder and sockets went with it.
	return s.startLocalHooked(ctx, id)
}

// launchKernel starts the kernel process for connection file file, in
// sandbox mode under the sandbox settings file settings.
func (s *Server) launchKernel(file, settings string) (*process, error) {
	opts := s.local
	argv := slices.Clone(s.spec.Argv)
	for i, a := range argv {
		argv[i] = strings.ReplaceAll(a, "{connection_file}", file)
		if a == sandboxSettingsArg {
			argv[i] = settings
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = opts.Root
	// A token of the user's environment (another server's) is not passed on.
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "JUPYTER_TOKEN=") || strings.HasPrefix(kv, "JUPYTER_TOKEN_FILE=")
	})
	for k, v := range jupyterDirs(opts.Dir) {
		env = append(env, k+"="+v)
	}
	// JPY_PARENT_PID: the kernel exits when we are gone (ipykernel polls it).
	env = append(env, "JUPYTER_PLATFORM_DIRS=1", "PYDEVD_DISABLE_FILE_VALIDATION=1", "JPY_PARENT_PID="+strconv.Itoa(os.Getpid()))
	for k, v := range s.spec.Env {
		env = append(env, k+"="+v)
	}
	cmd.Env = env
	tail := &tailBuffer{max: 64 << 10}
	var out io.Writer = tail
	if opts.Log != nil {
		out = io.MultiWriter(tail, opts.Log)
	}
	cmd.Stdout, cmd.Stderr = out, out
	// Own process group (signalled as a whole for an interrupt, killed as
	// a whole on shutdown) and SIGKILL when our process dies.
	cmd.SysProcAttr = serverProcAttr()
	cmd.WaitDelay = 200 * time.Millisecond
	p := &process{cmd: cmd, exited: make(chan struct{}), logTail: tail}
	if err := p.start(); err != nil {
		return nil, fmt.Errorf("run %s (ipykernel): %w", argv[0], err)
	}
	return p, nil
}

// boundPorts waits until the kernel started with connection file file
// (whose ports are 0) has written the ports it bound into it, and returns
// ci with them. The kernel rewrites the file in place: a read may find it
// empty or half written, and is tried again.
func boundPorts(ctx context.Context, file string, ci connectionInfo, proc *process) (connectionInfo, error) {
	deadline := time.Now().Add(60 * time.Second)
	for delay := 2 * time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		if b, err := os.ReadFile(file); err == nil {
			var got connectionInfo
			if json.Unmarshal(b, &got) == nil && got.ShellPort > 0 && got.IOPubPort > 0 && got.StdinPort > 0 && got.ControlPort > 0 && got.HBPort > 0 {
				ci.ShellPort, ci.IOPubPort, ci.StdinPort, ci.ControlPort, ci.HBPort = got.ShellPort, got.IOPubPort, got.StdinPort, got.ControlPort, got.HBPort
				return ci, nil
			}
		}
		select {
		case <-proc.exited:
			return ci, fmt.Errorf("%w: %s", errExitedStarting, proc.tail(12))
		case <-ctx.Done():
			return ci, ctx.Err()
		case <-time.After(delay):
		}
		if time.Now().After(deadline) {
			return ci, fmt.Errorf("the kernel did not write the ports it bound within 60 s: %s", proc.tail(12))
		}
	}
}

// connectLocal connects the channels of c's kernel, starts their readers
// and the watch on its life, and waits until the kernel answers with its
// iopub subscription in place.
func (c *conn) connectLocal(ctx context.Context) error {
	z := c.z
	deadline := time.Now().Add(60 * time.Second)
	tail := func() string { return z.proc.tail(12) }
	ch, err := zmqwire.Dial(ctx, z.info, c.session, z.proc.exited, deadline, tail)
	if err != nil {
		return err
	}
	z.ch, c.link = ch, ch
	ready := readyWatch{iopub: make(chan struct{}, 1), shell: make(chan struct{}, 64)}
	c.setHandler(ready)
	ch.Start(c.dispatch)
	go c.watchLocal()
	// A subscription takes effect a moment after it is sent, and what the
	// kernel publishes before is lost: ask for kernel_info until its status
	// message arrives on iopub. A kernel that answers on shell while iopub
	// stays silent has not got the subscription: it is sent again.
	answered := 0
	for delay := 20 * time.Millisecond; ; delay = min(2*delay, 500*time.Millisecond) {
		m, err := c.newMessage("shell", "kernel_info_request", map[string]any{}, nil)
		if err != nil {
			return err
		}
		if err := c.send(m); err != nil {
			return err
		}
		timeout := time.After(delay)
	wait:
		for {
			select {
			case <-ready.iopub:
				c.setHandler(nil)
				return nil
			case <-ready.shell:
				answered++
				if answered > 1 {
					if err := ch.Subscribe(); err != nil {
						return fmt.Errorf("subscribe to the kernel's iopub channel again: %w", err)
					}
				}
			case <-c.done:
				return fmt.Errorf("%w: %s", errExitedStarting, z.proc.tail(12))
			case <-ctx.Done():
				return fmt.Errorf("%w: the kernel answered %d of the requests for its info, and nothing came on its iopub channel", ctx.Err(), answered)
			case <-timeout:
				break wait
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the kernel did not answer within 60 s (it answered %d of the requests for its info, and nothing came on its iopub channel): %s",
				answered, z.proc.tail(12))
		}
	}
}

// readyWatch is the handler of a kernel being connected: it signals the
// first message on iopub, and each reply on shell.
type readyWatch struct{ iopub, shell chan struct{} }

func (r readyWatch) onMessage(_ *conn, m *received) {
	ch := r.shell
	if m.Channel == "iopub" {
		ch = r.iopub
	} else if m.Channel != "shell" {
		return
	}
	select {
	case ch <- struct{}{}:
	default:
	}
}

func (r readyWatch) onClosed(*conn, error) {}

// watchLocal waits for the kernel process to exit or its heartbeat to
// stop, then reports it dead and ends the conn.
func (c *conn) watchLocal() {
	z := c.z
	var cause error
	if gone, silent := z.ch.Watch(z.proc.exited, z.proc.cmd.Process.Pid); gone {
		cause = fmt.Errorf("%w (its process exited: %s)", ErrKernelDied, z.proc.cmd.ProcessState)
		if tail := z.proc.tail(8); tail != "" {
			cause = fmt.Errorf("%w; it printed:\n%s", cause, tail)
		}
	} else {
		cause = fmt.Errorf("%w (its heartbeat stopped for %s)", ErrKernelDied, silent.Round(100*time.Millisecond))
	}
	c.mu.Lock()
	h, closing := c.h, c.closing
	if !closing {
		c.ended = cause
	}
	c.mu.Unlock()
	if h != nil && !closing {
		h.onClosed(c, cause)
	}
	z.close()
	close(z.done)
}

// interruptLocal interrupts the kernel as its spec says: SIGINT to its
// process group, or an interrupt_request on the control channel. Without
// process groups (Windows) a signal-mode kernel cannot be interrupted yet:
// interruptGroup says so.
func (c *conn) interruptLocal(ctx context.Context) error {
	if pid := c.z.proc.cmd.Process.Pid; c.z.interrupt != "message" && pid > 0 {
		if err := interruptGroup(pid); err != nil {
			return fmt.Errorf("interrupt kernel: %w", err)
		}
		return nil
	}
	m, err := c.newMessage("control", "interrupt_request", map[string]any{}, nil)
	if err == nil {
		_, err = c.await(ctx, m)
	}
	if err != nil {
		return fmt.Errorf("interrupt kernel: %w", err)
	}
	return nil
}

// shutdownLocal asks the kernel to shut down, and stops its process group
// when it has not exited half a second later.
func (c *conn) shutdownLocal() {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	select {
	case <-c.done:
	default:
		if m, err := c.newMessage("control", "shutdown_request", map[string]any{"restart": false}, nil); err == nil {
			_ = c.send(m)
		}
		select {
		case <-c.z.proc.exited:
		case <-time.After(500 * time.Millisecond):
		}
	}
	c.z.close()
	<-c.done
}

// close stops the process group, closes the channels and removes the
// connection folder and the kernel's Unix sockets.
func (z *zmqKernel) close() {
	z.closeOnce.Do(func() {
		if z.proc != nil {
			z.proc.kill()
		}
		if z.ch != nil {
			z.ch.Close()
		}
		_ = os.RemoveAll(z.dir)
		if z.settings != "" {
			_ = os.Remove(z.settings)
		}
		if z.info.Transport == "ipc" {
			for _, p := range []int{z.info.ShellPort, z.info.IOPubPort, z.info.StdinPort, z.info.ControlPort, z.info.HBPort} {
				_ = os.Remove(z.info.IP + "-" + strconv.Itoa(p))
			}
		}
	})
}
