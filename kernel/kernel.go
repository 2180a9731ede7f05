package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/freeact/desktop/kernel/wire"
)

// Host is what running code asks for. The caller of this package implements
// it (the agent turns each call into an approval request). Every method gets
// a context that carries the values of the context given to Execute for the
// cell the request comes from, and that ends when the request's deadline
// passes, when that cell ends, when Interrupt is called or when the kernel
// closes. Methods may be called concurrently (threads in the kernel can have
// several requests in flight). A request from code whose cell has ended (a
// thread, task or callback of an earlier cell) never reaches the Host: the
// kernel refuses it with an error the code sees (CellEnded).
type Host interface {
	// ApproveShell decides whether a shell command may run. For `!cmd`
	// lines req.Command is the command after variable expansion; for
	// %%bash/%%sh/%%script cells it is the whole cell and req.Interpreter
	// the program it is fed to; for a process IPython starts directly it
	// is the exact argv (req.Argv), shell-quoted.
	ApproveShell(ctx context.Context, req ShellRequest) (bool, error)
	// CallTool runs tool `tool` of MCP server `server` with JSON arguments
	// and returns its JSON result. Return an error wrapping ErrRejected when
	// the call was rejected; context.DeadlineExceeded is reported to the
	// code as a timeout; any other error as a tool error.
	CallTool(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error)
	// Input answers the code's input() (password false) or getpass()
	// (password true). An error makes input() raise EOFError.
	Input(ctx context.Context, prompt string, password bool) (string, error)
}

// ShellRequest is a shell command the code wants to run. What is approved
// is exactly what runs: `!` commands run with bash (whose grammar
// agent/shell parses), scripts with the Interpreter command shown.
type ShellRequest struct {
	Command string
	// Interpreter is "" for a `!` command; for a cell magic it is the
	// command line of the program the script is fed to on stdin, shell-quoted,
	// with the program found on PATH when asked ("/usr/bin/perl -w").
	Interpreter string
	// Argv is set for a process that IPython code starts by another route
	// (a pager, an editor hook, a reloaded original): the program and its
	// arguments exactly. No shell parses Command then, so it must be asked
	// as a whole and never allowed by a rule.
	Argv []string
	// Dir is the kernel's current folder when the command was asked for
	// (os.getcwd() in the kernel), where its relative paths lead; "" when
	// the kernel did not say.
	Dir string
}

// ErrRejected is what a Host returns (wrapped) for a rejected tool call.
var ErrRejected = errors.New("tool call rejected")

// ErrKernelDied is returned (wrapped) by Execute when the kernel process died
// during the execution.
var ErrKernelDied = wire.ErrKernelDied

// ErrConnectionLost is returned (wrapped) by Execute when the connection to
// the Jupyter server broke during the execution.
var ErrConnectionLost = wire.ErrConnectionLost

// KernelOptions configure one kernel.
type KernelOptions struct {
	// Workspace is the working directory each cell starts in; the cwd is
	// reset to it after every cell. Default: the kernel's start directory.
	Workspace string
	// ImagesDir receives image outputs; default <Workspace>/images (or a
	// temporary directory when Workspace is empty).
	ImagesDir string
	// ImagesLink, if set, is the folder the output and Result.Images name
	// saved images by instead of ImagesDir: where the caller puts a copy
	// (for a remote kernel, its workspace's images folder).
	ImagesLink string
	// Host answers shell approvals, tool calls and input. Nil rejects
	// everything.
	Host Host
	// ExecutionTimeout limits the time a cell runs, not counting time spent
	// waiting for the host. Zero means no limit.
	ExecutionTimeout time.Duration
	// CallbackTimeout is the deadline of each request from the kernel to the
	// host; default 24 h.
	CallbackTimeout time.Duration
	// Env is set in the kernel's os.environ (and so reaches shell commands)
	// when it starts; it works for remote kernels too. For variables the
	// interpreter reads at startup use ServerOptions.KernelEnv.
	Env map[string]string
	// PythonPath entries are put first on the kernel's sys.path.
	PythonPath []string
}

// ChunkKind tells what a Chunk holds.
type ChunkKind string

const (
	ChunkStdout ChunkKind = "stdout"
	ChunkStderr ChunkKind = "stderr"
	ChunkResult ChunkKind = "result" // an execute_result / display_data text
	ChunkImage  ChunkKind = "image"  // Text is the saved image's path
	ChunkError  ChunkKind = "error"  // Text is the formatted error
)

// Chunk is a piece of output as it arrives.
type Chunk struct {
	Kind ChunkKind
	Text string
}

// Result is the complete output of one execution.
type Result struct {
	// Text is all output in order: streams, results, the error, and notices
	// (timeout, cwd reset).
	Text string
	// Images are the paths of saved image outputs.
	Images []string
	// Error is set when the cell raised.
	Error *ExecError
	// ErrorText is the end of Text from where the error's own text starts
	// (the traceback, an abort, the timeout notice), to tell it apart from
	// the cell's output; "" when there is none.
	ErrorText string
	// TimedOut is set when the execution timeout interrupted the cell.
	TimedOut bool
	// CwdReset is the directory the cell had changed to before the working
	// directory was reset to the workspace ("" if it was not changed).
	CwdReset string
}

// ExecError is an exception raised by a cell.
type ExecError struct {
	Name      string
	Message   string
	Traceback string // ANSI codes and freeact's hook frames removed
}

func (e *ExecError) Error() string { return e.Name + ": " + e.Message }

// Kernel is a stateful IPython kernel. Executions run one at a time;
// Interrupt, Restart and Close may be called from any goroutine.
type Kernel struct {
	srv  *Server
	opts KernelOptions

	execMu sync.Mutex // one execution (or restart) at a time

	mu   sync.Mutex
	c    *conn
	dead error // set when c is unusable; the next Execute replaces it
	// unseen is set when the kernel died while no cell ran (a server that
	// went away while idle), so that no cell's error told of it; lostIdle
	// counts the kernels Execute replaced for such a death.
	unseen   bool
	lostIdle int
	cur      *execution
	closed   bool
	cbCount  int           // host requests in flight
	cbChange chan struct{} // signalled when cbCount changes
	cbCtx    context.Context
	cbCancel context.CancelFunc
	// inspecting is the connection whose kernel process has the inspector
	// module (inspect.go); a restart or replacement needs it again.
	inspecting *conn
}

// StartKernel starts a kernel (from the warm pool when there is one) and
// configures it.
func (s *Server) StartKernel(ctx context.Context, opts KernelOptions) (*Kernel, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("start kernel: server is closed")
	}
	s.mu.Unlock()
	if opts.CallbackTimeout <= 0 {
		opts.CallbackTimeout = 24 * time.Hour
	}
	if opts.ImagesDir == "" && opts.Workspace != "" {
		opts.ImagesDir = filepath.Join(opts.Workspace, "images")
	}
	k := &Kernel{srv: s, opts: opts, cbChange: make(chan struct{}, 1)}
	k.cbCtx, k.cbCancel = context.WithCancel(context.Background())
	c, err := s.takeConn(ctx)
	if err != nil {
		return nil, err
	}
	if err := k.attach(ctx, c); err != nil {
		c.shutdown(context.Background())
		return nil, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		c.shutdown(context.Background())
		return nil, errors.New("start kernel: server is closed")
	}
	s.live[c.id] = k
	s.mu.Unlock()
	return k, nil
}

// attach makes c the kernel's connection and configures its hooks.
func (k *Kernel) attach(ctx context.Context, c *conn) error {
	c.setHandler(k)
	cfg, err := json.Marshal(map[string]any{
		"workspace":   k.opts.Workspace,
		"timeout":     k.opts.CallbackTimeout.Seconds(),
		"env":         k.opts.Env,
		"python_path": k.opts.PythonPath,
	})
	if err != nil {
		return fmt.Errorf("configure kernel: %w", err)
	}
	lit, _ := json.Marshal(string(cfg)) // a JSON string is a Python string literal
	code := fmt.Sprintf("__import__('freeact_kernel').configure(**__import__('json').loads(%s))", lit)
	if err := c.executeSilent(ctx, code); err != nil {
		return fmt.Errorf("configure kernel: %w", err)
	}
	k.mu.Lock()
	k.c, k.dead = c, nil
	k.mu.Unlock()
	return nil
}

// ID is the kernel id on the server (it changes when a dead kernel is replaced).
func (k *Kernel) ID() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.c.id
}

// Execute runs code and waits until it is done. onChunk (may be nil) gets
// output as it arrives, on the connection's reader goroutine; it must not
// block for long. A cell that raises is not an error: see Result.Error. The
// error is for failures around the cell (kernel died, connection lost,
// context cancelled — then the cell is interrupted); a partial Result comes
// with it.
func (k *Kernel) Execute(ctx context.Context, code string, onChunk func(Chunk)) (*Result, error) {
	k.execMu.Lock()
	defer k.execMu.Unlock()
	k.srv.touch()
	if err := k.ensureAlive(ctx); err != nil {
		return nil, err
	}
	k.mu.Lock()
	c := k.c
	k.mu.Unlock()

	m, err := c.newMessage("shell", "execute_request", map[string]any{
		"code": code, "silent": false, "store_history": true,
		// stop_on_error would make ipykernel abort requests arriving shortly
		// after an error (the next cell); we never queue cells anyway.
		"user_expressions": map[string]any{}, "allow_stdin": true, "stop_on_error": false,
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("execute: %w", err)
	}
	e := newExecution(ctx, m.Header.MsgID, onChunk, k.opts.ImagesDir)
	e.imagesLink = k.opts.ImagesLink
	e.imagesRoot = k.imagesRoot()
	k.mu.Lock()
	k.cur = e
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.cur = nil
		k.mu.Unlock()
		e.cancel() // requests of this cell still waiting for the Host end
	}()
	if err := c.send(m); err != nil {
		k.markDead(c, fmt.Errorf("%w: %v", ErrConnectionLost, err))
		return nil, fmt.Errorf("execute: %w", err)
	}

	timedOut, waitErr := k.wait(ctx, c, e)
	if timedOut {
		e.notice(fmt.Sprintf("Execution timed out after %s (time waiting for approvals not counted); the cell was interrupted.", k.opts.ExecutionTimeout))
	}
	res := e.result()
	res.TimedOut = timedOut
	if waitErr != nil {
		return res, fmt.Errorf("execute: %w", waitErr)
	}
	return res, nil
}

// wait blocks until e is done, running the execution timeout (paused while
// host requests are in flight) and interrupting on ctx cancellation.
func (k *Kernel) wait(ctx context.Context, c *conn, e *execution) (timedOut bool, err error) {
	limit := k.opts.ExecutionTimeout
	var timer *time.Timer
	var timerC <-chan time.Time
	var started time.Time
	remaining := limit
	update := func() {
		k.mu.Lock()
		paused := k.cbCount > 0
		k.mu.Unlock()
		if limit <= 0 {
			return
		}
		if paused && timer != nil {
			timer.Stop()
			remaining -= time.Since(started)
			timer, timerC = nil, nil
		} else if !paused && timer == nil {
			started = time.Now()
			timer = time.NewTimer(max(remaining, 0))
			timerC = timer.C
		}
	}
	update()
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case <-e.done:
			return false, e.err
		case <-c.done:
			// The reader reports a broken connection before it stops, so
			// e is normally finished already; this covers a connection
			// that broke before the execution was registered.
			select {
			case <-e.done:
				return false, e.err
			default:
				k.markDead(c, ErrConnectionLost)
				return false, ErrConnectionLost
			}
		case <-k.cbChange:
			update()
		case <-timerC:
			e.quietInterrupt()
			k.interruptConn(c)
			return true, k.waitAfterInterrupt(c, e)
		case <-ctx.Done():
			k.interruptConn(c)
			if err := k.waitAfterInterrupt(c, e); err != nil {
				return false, err
			}
			return false, ctx.Err()
		}
	}
}

// interruptGrace is how long an interrupted cell gets to stop.
const interruptGrace = 3 * time.Second

// waitAfterInterrupt gives an interrupted cell a few seconds to finish; a
// kernel that ignores SIGINT (stuck in native code) is replaced.
func (k *Kernel) waitAfterInterrupt(c *conn, e *execution) error {
	k.settle(context.Background()) // a connection being restored is not a stuck kernel
	select {
	case <-e.done:
		return e.err
	case <-time.After(interruptGrace):
	}
	err := fmt.Errorf("%w (it did not respond to an interrupt and was shut down)", ErrKernelDied)
	k.markDead(c, err)
	e.finish(err)
	return err
}

// interruptConn signals the kernel, then ends pending host requests. In
// this order the cell sees the KeyboardInterrupt, not a failed request.
func (k *Kernel) interruptConn(c *conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = c.interrupt(ctx)
	k.cancelCallbacks()
}

// cancelCallbacks ends the contexts of host requests in flight.
func (k *Kernel) cancelCallbacks() {
	k.mu.Lock()
	k.cbCancel()
	k.cbCtx, k.cbCancel = context.WithCancel(context.Background())
	k.mu.Unlock()
}

// Interrupt interrupts the running cell (like Ctrl-C), including one that
// waits for the host: pending host requests are cancelled.
func (k *Kernel) Interrupt(ctx context.Context) error {
	k.mu.Lock()
	c := k.c
	k.mu.Unlock()
	err := c.interrupt(ctx)
	k.cancelCallbacks()
	return err
}

// Restart restarts the kernel process: all state is lost. The kernel id stays.
func (k *Kernel) Restart(ctx context.Context) error {
	k.cancelCallbacks()
	// Interrupt a running cell so the restart does not wait behind it.
	k.mu.Lock()
	c, running := k.c, k.cur != nil
	k.mu.Unlock()
	if running {
		_ = c.interrupt(ctx)
	}
	k.execMu.Lock()
	defer k.execMu.Unlock()
	k.mu.Lock()
	dead := k.dead
	k.mu.Unlock()
	if dead != nil {
		return k.replace(ctx)
	}
	if c.z != nil {
		return k.restartLocal(ctx, c)
	}
	c.mu.Lock()
	c.closing = true // the old websocket sees "restarting": not a death
	c.mu.Unlock()
	if err := k.srv.retried(ctx, http.MethodPost, "api/kernels/"+c.id+"/restart", k.srv.window(), false); err != nil {
		k.markDead(c, err)
		return fmt.Errorf("restart kernel: %w", err)
	}
	_ = c.socket().Close()
	nc, err := k.srv.dial(ctx, c.id)
	if err == nil {
		err = nc.loadHooks(ctx)
		if err == nil {
			err = k.attach(ctx, nc)
		}
	}
	if err != nil {
		if nc != nil {
			_ = nc.socket().Close()
		}
		k.markDead(c, err)
		return fmt.Errorf("restart kernel: %w", err)
	}
	return nil
}

// restartLocal replaces the process of a local kernel with a new one of
// the same id, as a server's restart does.
func (k *Kernel) restartLocal(ctx context.Context, c *conn) error {
	c.mu.Lock()
	c.closing = true // its exit is not a death
	c.mu.Unlock()
	c.shutdown(ctx)
	nc, err := k.srv.startLocalRetried(ctx, c.id)
	if err == nil {
		if err = k.attach(ctx, nc); err != nil {
			nc.shutdown(context.Background())
		}
	}
	if err != nil {
		k.markDead(c, err)
		return fmt.Errorf("restart kernel: %w", err)
	}
	return nil
}

// ensureAlive replaces a dead kernel with a fresh one.
func (k *Kernel) ensureAlive(ctx context.Context) error {
	k.settle(ctx)
	k.mu.Lock()
	closed, dead := k.closed, k.dead
	k.mu.Unlock()
	if closed {
		return errors.New("execute: kernel is closed")
	}
	if dead == nil {
		return nil
	}
	k.mu.Lock()
	unseen := k.unseen
	k.mu.Unlock()
	if err := k.replace(ctx); err != nil {
		return err
	}
	if unseen {
		k.mu.Lock()
		k.lostIdle++
		k.mu.Unlock()
	}
	return nil
}

// LostWhileIdle counts the kernels that died while no cell ran (no cell's
// error told of it) and were replaced by a fresh one as the next cell
// started: a caller that sees it grow across an Execute knows that the
// state of earlier cells is gone.
func (k *Kernel) LostWhileIdle() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.lostIdle
}

// replace starts a fresh kernel in place of the dead one.
func (k *Kernel) replace(ctx context.Context) error {
	k.mu.Lock()
	old := k.c
	k.mu.Unlock()
	k.srv.shutdownLater(old)
	c, err := k.srv.takeConn(ctx)
	if err != nil && k.srv.exitedWithin(time.Second) {
		if rerr := k.srv.relaunch(ctx); rerr != nil {
			return fmt.Errorf("start fresh kernel: %w", rerr)
		}
		c, err = k.srv.takeConn(ctx)
	}
	if err != nil && k.srv.remote != nil && k.srv.remote.revive != nil {
		if rerr := k.srv.remote.revive(ctx); rerr != nil {
			return fmt.Errorf("start fresh kernel: %w; bring the server back: %w", k.srv.redact(err), rerr)
		}
		c, err = k.srv.takeConn(ctx)
	}
	if err != nil {
		return fmt.Errorf("start fresh kernel: %w", err)
	}
	if err := k.attach(ctx, c); err != nil {
		c.shutdown(context.Background())
		return fmt.Errorf("start fresh kernel: %w", err)
	}
	k.srv.mu.Lock()
	delete(k.srv.live, old.id)
	k.srv.live[c.id] = k
	k.srv.mu.Unlock()
	return nil
}

// Close shuts the kernel down on the server.
func (k *Kernel) Close() error {
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		return nil
	}
	k.closed = true
	c, e := k.c, k.cur
	k.cbCancel()
	k.mu.Unlock()
	if e != nil {
		e.finish(errors.New("the kernel was closed during the execution"))
	}
	c.shutdown(context.Background())
	k.srv.mu.Lock()
	delete(k.srv.live, c.id)
	k.srv.mu.Unlock()
	return nil
}

// markDead records that c can no longer be used and fails the running cell.
func (k *Kernel) markDead(c *conn, err error) {
	k.mu.Lock()
	if k.c != c {
		k.mu.Unlock()
		return
	}
	if k.dead == nil {
		k.dead = err
		k.unseen = k.cur == nil
	}
	e := k.cur
	k.mu.Unlock()
	if e != nil {
		e.finish(err)
	}
}

// onClosed is called when the websocket breaks.
func (k *Kernel) onClosed(c *conn, err error) {
	if !errors.Is(err, ErrKernelDied) && !errors.Is(err, ErrConnectionLost) {
		err = fmt.Errorf("%w: %v", ErrConnectionLost, err)
	}
	k.markDead(c, err)
}

// onMessage routes one message from the kernel.
func (k *Kernel) onMessage(c *conn, m *received) {
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	if closing {
		return
	}
	switch m.Channel {
	case "stdin":
		if m.Header.MsgType == "input_request" {
			k.startCallback(c, m)
		}
		return
	case "iopub":
		if m.Header.MsgType == "status" {
			if st := m.Content.ExecutionState; st == "restarting" || st == "dead" {
				k.markDead(c, ErrKernelDied)
				return
			}
		}
	}
	k.mu.Lock()
	e := k.cur
	k.mu.Unlock()
	if e != nil && m.ParentHeader.MsgID == e.msgID {
		e.handle(m)
	}
}

// startCallback answers an input_request from the kernel in its own
// goroutine: marker requests go to the Host as approvals/tool calls, others
// are the user's input(). A request whose parent is not the running cell
// (it comes from a thread, task or callback of a cell that has ended) is
// refused without asking the Host.
func (k *Kernel) startCallback(c *conn, m *received) {
	req := &m.Content
	k.mu.Lock()
	e := k.cur
	if e == nil || m.ParentHeader.MsgID != e.msgID {
		k.mu.Unlock()
		go func() { _ = c.reply(m, refusal(req.Prompt, errCellEnded)) }()
		return
	}
	k.cbCount++
	base := k.cbCtx
	k.mu.Unlock()
	k.signalCallbacks()
	go func() {
		defer func() {
			k.mu.Lock()
			k.cbCount--
			k.mu.Unlock()
			k.signalCallbacks()
		}()
		ctx, cancel := context.WithCancel(e.ctx)
		defer cancel()
		defer context.AfterFunc(base, cancel)()
		value, late := k.answer(ctx, e.ctx, req.Prompt, req.Password)
		if late {
			// The code stopped waiting at the same deadline, which it
			// started counting before we did, and raised CallbackTimeout: a
			// late "yes" must not reach it on a loaded machine.
			return
		}
		err := c.reply(m, value)
		if errors.Is(err, errTooBig) {
			// Too big for the server: tell the code instead of breaking
			// the connection.
			value = "\x04"
			if strings.HasPrefix(req.Prompt, marker) {
				value = encodeReply(callbackReply{Error: &callbackError{Kind: "too_large", Message: err.Error()}})
			}
			_ = c.reply(m, value)
		}
	}()
}

// cellEndedKind is the error kind of a request refused because its cell
// has ended; the hooks raise CellEnded for it.
const cellEndedKind = "cell_ended"

var (
	errCellEnded = errors.New("the cell this request comes from has ended: it was made by a thread, task or callback " +
		"that an earlier cell started; make shell commands, tool calls and input() from the running cell, and wait for " +
		"threads to finish (join them) before their cell ends")
	errCellEndedWhileAsking = errors.New("the cell this request comes from ended before the request was answered; " +
		"wait for threads to finish (join them) before their cell ends")
)

// refusal is the reply value that refuses a request with err: an error
// reply for marker requests, the marker and an error reply for input().
func refusal(prompt string, err error) string {
	r := encodeReply(callbackReply{Error: &callbackError{Kind: cellEndedKind, Message: err.Error()}})
	if strings.HasPrefix(prompt, marker) {
		return r
	}
	return marker + r
}

// reply answers input_request m with value.
func (c *conn) reply(m *received, value string) error {
	r, err := c.newMessage("stdin", "input_reply", map[string]any{"status": "ok", "value": value}, &m.Header)
	if err != nil {
		return err
	}
	return c.send(r)
}

func (k *Kernel) signalCallbacks() {
	select {
	case k.cbChange <- struct{}{}:
	default:
	}
}

// marker starts the prompt of a request from the hooks (see freeact_kernel.py).
const marker = "\x1dfreeact:"

type callbackRequest struct {
	Kind        string          `json:"kind"`
	Timeout     float64         `json:"timeout"`
	Command     string          `json:"command"`
	Interpreter string          `json:"interpreter"`
	Argv        []string        `json:"argv"`
	Cwd         string          `json:"cwd"`
	Server      string          `json:"server"`
	Tool        string          `json:"tool"`
	Args        json.RawMessage `json:"args"`
}

type callbackError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

type callbackReply struct {
	OK     bool           `json:"ok"`
	Result any            `json:"result,omitempty"`
	Error  *callbackError `json:"error,omitempty"`
}

// answer computes the reply value for one input_request of the cell whose
// context is cellCtx; base ends with the cell or an interrupt. late reports
// that the request's deadline passed before the host answered, so no reply
// is due.
func (k *Kernel) answer(base, cellCtx context.Context, prompt string, password bool) (value string, late bool) {
	h := k.opts.Host
	if !strings.HasPrefix(prompt, marker) {
		if h == nil {
			return "\x04", false
		}
		v, err := h.Input(base, prompt, password)
		if err != nil {
			if cellCtx.Err() != nil {
				return refusal(prompt, errCellEndedWhileAsking), false
			}
			return "\x04", false
		}
		return v, false
	}
	var req callbackRequest
	if err := json.Unmarshal([]byte(prompt[len(marker):]), &req); err != nil {
		return encodeReply(callbackReply{Error: &callbackError{Kind: "protocol", Message: "bad request: " + err.Error()}}), false
	}
	ctx := base
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(base, time.Duration(req.Timeout*float64(time.Second)))
		defer cancel()
	}
	value = k.answerMarker(ctx, cellCtx, req)
	return value, errors.Is(ctx.Err(), context.DeadlineExceeded)
}

// answerMarker asks the host what a request from the hooks wants.
func (k *Kernel) answerMarker(ctx, cellCtx context.Context, req callbackRequest) string {
	h := k.opts.Host
	fail := func(kind string, err error) string {
		return encodeReply(callbackReply{Error: &callbackError{Kind: kind, Message: err.Error()}})
	}
	switch req.Kind {
	case "shell":
		if h == nil {
			return encodeReply(callbackReply{OK: true, Result: false})
		}
		ok, err := h.ApproveShell(ctx, ShellRequest{Command: req.Command, Interpreter: req.Interpreter, Argv: req.Argv, Dir: req.Cwd})
		if err != nil {
			if cellCtx.Err() != nil {
				return fail(cellEndedKind, errCellEndedWhileAsking)
			}
			return fail("host", err)
		}
		return encodeReply(callbackReply{OK: true, Result: ok})
	case "tool":
		if h == nil {
			return fail("rejected", ErrRejected)
		}
		args := req.Args
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		res, err := h.CallTool(ctx, req.Server, req.Tool, args)
		switch {
		case err != nil && cellCtx.Err() != nil:
			return fail(cellEndedKind, errCellEndedWhileAsking)
		case errors.Is(err, ErrRejected):
			return fail("rejected", err)
		case errors.Is(err, context.DeadlineExceeded):
			return fail("timeout", err)
		case err != nil:
			return fail("tool_error", err)
		}
		if len(res) == 0 {
			res = json.RawMessage("null")
		}
		return encodeReply(callbackReply{OK: true, Result: res})
	}
	return fail("protocol", fmt.Errorf("unknown request kind %q", req.Kind))
}

func encodeReply(r callbackReply) string {
	b, err := json.Marshal(r)
	if err != nil {
		b, _ = json.Marshal(callbackReply{Error: &callbackError{Kind: "protocol", Message: err.Error()}})
	}
	return string(b)
}

// imagesRoot is the folder a sandboxed kernel's images must be saved in:
// its workspace, when the images folder lies in it. The app saves them
// outside the sandbox, and code in it writes the workspace: a symbolic
// link it put on the way must not lead the write out. Without the sandbox
// code can write anywhere itself, and a user's own link is followed.
func (k *Kernel) imagesRoot() string {
	if k.srv.sandbox == nil || k.srv.local == nil || k.srv.local.Sandbox == nil {
		return ""
	}
	ws := k.srv.local.Sandbox.Workspace
	if rel, err := filepath.Rel(ws, k.opts.ImagesDir); err == nil && filepath.IsLocal(rel) {
		return ws
	}
	return ""
}
