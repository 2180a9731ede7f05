// Package agenttest is a scripted stand-in for the Jupyter kernels of an
// agent and its subagents (agent.WithExecutors), so that tests of the turn
// loop, approvals, cancellation, offloading, subagents and sessions run
// without Python.
//
// A cell runs the Go script registered for its code. The script does what
// the Python would: it prints, shows images, keeps variables, asks the host
// about shell commands, tool calls and input through the same kernel.Host
// callbacks the real kernel uses, waits until it is interrupted, raises, or
// dies like a kernel process. What a script does after an interrupt is cut
// short, as a KeyboardInterrupt cuts Python short. The behaviour follows
// *kernel.Kernel: a cancelled context interrupts the cell and Execute
// returns the partial result with the error; a dead kernel fails its cell
// with kernel.ErrKernelDied and the next cell starts a fresh one; Restart
// and Close end a running cell and its host requests.
//
// The agent's integration tests run the same test bodies against real
// kernels, which holds the fake to the real behaviour.
package agenttest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/freeact/desktop/agent/executor"
	"github.com/freeact/desktop/kernel"
)

// Script is what a cell does. It runs on a goroutine of its own; the Cell's
// methods are its only way to the outside.
type Script func(c *Cell)

// Kernels start fake kernels that run the registered scripts. Use it with
// agent.WithExecutors. It is safe for concurrent use.
type Kernels struct {
	mu        sync.Mutex
	scripts   map[string]Script
	started   []*Kernel
	startErrs []error
}

// New returns Kernels without scripts: every cell raises NameError until
// On registers one for its code.
func New() *Kernels { return &Kernels{scripts: map[string]Script{}} }

// On makes every cell whose code is code (exactly) run script, and returns
// ks.
func (ks *Kernels) On(code string, script Script) *Kernels {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	ks.scripts[code] = script
	return ks
}

// FailStarts makes the next starts fail with errs, one each, as a Jupyter
// server that cannot start a kernel.
func (ks *Kernels) FailStarts(errs ...error) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	ks.startErrs = append(ks.startErrs, errs...)
}

// StartExecutor starts a fake kernel with opts (implements executor.Executors).
func (ks *Kernels) StartExecutor(ctx context.Context, opts kernel.KernelOptions) (executor.Executor, error) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if len(ks.startErrs) > 0 {
		err := ks.startErrs[0]
		ks.startErrs = ks.startErrs[1:]
		return nil, fmt.Errorf("start kernel: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("start kernel: %w", err)
	}
	if opts.ImagesDir == "" && opts.Workspace != "" {
		opts.ImagesDir = filepath.Join(opts.Workspace, "images")
	}
	k := &Kernel{ks: ks, opts: opts, vars: map[string]string{}}
	ks.started = append(ks.started, k)
	return k, nil
}

// Started returns the kernels started so far, in order: the main agent's
// first, then one per subagent.
func (ks *Kernels) Started() []*Kernel {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return append([]*Kernel(nil), ks.started...)
}

func (ks *Kernels) script(code string) Script {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if s, ok := ks.scripts[code]; ok {
		return s
	}
	return func(c *Cell) {
		c.Raise("NameError", fmt.Sprintf("agenttest: no script for the code %q (register one with On)", code))
	}
}

// Kernel is one fake kernel: its variables live from cell to cell until a
// restart or a death.
type Kernel struct {
	ks   *Kernels
	opts kernel.KernelOptions

	execMu sync.Mutex // one cell (or restart) at a time

	mu         sync.Mutex
	vars       map[string]string
	cur        *Cell
	closed     bool
	ran        []string
	interrupts int
	restarts   int
}

// Options returns the options the kernel was started with.
func (k *Kernel) Options() kernel.KernelOptions { return k.opts }

// Ran returns the code of every cell the kernel ran, in order.
func (k *Kernel) Ran() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.ran...)
}

// Var returns a variable a cell set with Set.
func (k *Kernel) Var(name string) (string, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.vars[name]
	return v, ok
}

// Interrupts counts the calls of Interrupt.
func (k *Kernel) Interrupts() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.interrupts
}

// Restarts counts the calls of Restart.
func (k *Kernel) Restarts() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.restarts
}

// Closed reports whether Close was called.
func (k *Kernel) Closed() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.closed
}

// Execute runs the script of code (implements executor.Executor).
func (k *Kernel) Execute(ctx context.Context, code string, onChunk func(kernel.Chunk)) (*kernel.Result, error) {
	k.execMu.Lock()
	defer k.execMu.Unlock()
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		return nil, errors.New("execute: kernel is closed")
	}
	c := newCell(ctx, k, code, onChunk)
	k.cur = c
	k.ran = append(k.ran, code)
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.cur = nil
		k.mu.Unlock()
	}()

	go c.run(k.ks.script(code))
	var err error
	select {
	case <-c.done:
	case <-ctx.Done():
		c.interrupt(nil)
		<-c.done
		err = ctx.Err()
	}
	c.mu.Lock()
	if c.err != nil {
		err = c.err
	}
	c.mu.Unlock()
	res := c.result()
	if err != nil {
		return res, fmt.Errorf("execute: %w", err)
	}
	return res, nil
}

// Variables lists the variables cells set with Set (implements
// variables.Inspector): each a str whose repr is its value, sorted by name.
func (k *Kernel) Variables(ctx context.Context) (*kernel.Namespace, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return nil, errors.New("the kernel is closed")
	}
	ns := &kernel.Namespace{Variables: []kernel.Variable{}}
	for name, v := range k.vars {
		ns.Variables = append(ns.Variables, variable(name, v))
	}
	sort.Slice(ns.Variables, func(i, j int) bool { return ns.Variables[i].Name < ns.Variables[j].Name })
	ns.Total = len(ns.Variables)
	return ns, ctx.Err()
}

// Describe describes a variable a cell set (implements variables.Inspector).
func (k *Kernel) Describe(ctx context.Context, name string) (*kernel.VariableDetail, error) {
	v, ok := k.Var(name)
	if !ok {
		return nil, fmt.Errorf("describe %s: %w", name, kernel.ErrNoVariable)
	}
	return &kernel.VariableDetail{Variable: variable(name, v)}, ctx.Err()
}

func variable(name, value string) kernel.Variable {
	n := len(value)
	return kernel.Variable{Name: name, Type: "str", Len: &n, Bytes: int64(49 + n), Repr: fmt.Sprintf("%q", value)}
}

// Interrupt interrupts the running cell, if any, and ends its host
// requests (implements executor.Executor).
func (k *Kernel) Interrupt(context.Context) error {
	k.mu.Lock()
	k.interrupts++
	c := k.cur
	k.mu.Unlock()
	if c != nil {
		c.interrupt(nil)
	}
	return nil
}

// Restart interrupts a running cell, waits for it and forgets every
// variable (implements executor.Executor).
func (k *Kernel) Restart(ctx context.Context) error {
	k.mu.Lock()
	c := k.cur
	k.mu.Unlock()
	if c != nil {
		c.interrupt(nil)
	}
	k.execMu.Lock()
	defer k.execMu.Unlock()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return errors.New("restart kernel: kernel is closed")
	}
	k.restarts++
	k.vars = map[string]string{}
	return ctx.Err()
}

// Close ends a running cell with an error and refuses further cells
// (implements executor.Executor).
func (k *Kernel) Close() error {
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		return nil
	}
	k.closed = true
	c := k.cur
	k.mu.Unlock()
	if c != nil {
		c.interrupt(errors.New("the kernel was closed during the execution"))
	}
	return nil
}

// Cell is a running cell, as its script sees it.
type Cell struct {
	k       *Kernel
	code    string
	onChunk func(kernel.Chunk)
	// ctx is the context of the cell's host requests: it carries the
	// values of Execute's context, as the real kernel's do, and ends when
	// the cell is interrupted or ends.
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	pieces  []string
	images  []string
	errv    *kernel.ExecError
	stopped bool  // interrupted: the script is cut short at its next step
	err     error // set when the cell ended by an error around it (death, close)
}

func newCell(execCtx context.Context, k *Kernel, code string, onChunk func(kernel.Chunk)) *Cell {
	ctx, cancel := context.WithCancel(context.WithoutCancel(execCtx))
	return &Cell{k: k, code: code, onChunk: onChunk, ctx: ctx, cancel: cancel, done: make(chan struct{})}
}

// Signals a script's goroutine unwinds with.
type (
	interrupted struct{}
	raised      struct{ e *kernel.ExecError }
	died        struct{}
)

func (c *Cell) run(s Script) {
	defer close(c.done)
	defer c.cancel()
	defer func() {
		switch v := recover().(type) {
		case nil:
		case interrupted:
			c.fail(&kernel.ExecError{Name: "KeyboardInterrupt"})
		case raised:
			c.fail(v.e)
		case died:
			c.k.mu.Lock()
			// The variables die with the process; the next cell runs in
			// a fresh kernel.
			c.k.vars = map[string]string{}
			c.k.mu.Unlock()
			c.mu.Lock()
			c.err = kernel.ErrKernelDied
			c.mu.Unlock()
		default:
			panic(v)
		}
	}()
	s(c)
	c.check()
}

// interrupt stops the cell at its script's next step; cause, when not nil,
// becomes the error around the cell (as for a closed kernel).
func (c *Cell) interrupt(cause error) {
	c.mu.Lock()
	c.stopped = true
	if cause != nil && c.err == nil {
		c.err = cause
	}
	c.mu.Unlock()
	c.cancel()
}

// check unwinds the script when the cell was interrupted.
func (c *Cell) check() {
	c.mu.Lock()
	stopped := c.stopped
	c.mu.Unlock()
	if stopped {
		panic(interrupted{})
	}
}

func (c *Cell) fail(e *kernel.ExecError) {
	c.mu.Lock()
	c.errv = e
	c.mu.Unlock()
	text := e.Name
	if e.Message != "" {
		text = e.Error()
	}
	c.emit(kernel.ChunkError, text+"\n")
}

func (c *Cell) emit(kind kernel.ChunkKind, s string) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return // the cell already ended for its caller
	}
	c.pieces = append(c.pieces, s)
	c.mu.Unlock()
	if c.onChunk != nil && s != "" {
		c.onChunk(kernel.Chunk{Kind: kind, Text: s})
	}
}

func (c *Cell) result() *kernel.Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	return &kernel.Result{Text: strings.Join(c.pieces, ""), Images: append([]string(nil), c.images...), Error: c.errv}
}

// Code returns the cell's code.
func (c *Cell) Code() string { return c.code }

// Workspace returns the kernel's working directory (KernelOptions.Workspace).
func (c *Cell) Workspace() string { return c.k.opts.Workspace }

// Print writes its arguments and a newline to stdout, as Python's print.
func (c *Cell) Print(a ...any) {
	c.check()
	c.emit(kernel.ChunkStdout, fmt.Sprintln(a...))
}

// Result shows s as the value of the cell's last expression.
func (c *Cell) Result(s string) {
	c.check()
	c.emit(kernel.ChunkResult, s+"\n")
}

// Stderr writes s to stderr.
func (c *Cell) Stderr(s string) {
	c.check()
	c.emit(kernel.ChunkStderr, s)
}

// Image shows a PNG image: the kernel saves it under its images folder and
// reports the path, as the real kernel does for a figure.
func (c *Cell) Image(png []byte) {
	c.check()
	var b [4]byte
	_, _ = rand.Read(b[:])
	dir := c.k.opts.ImagesDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "freeact-images")
	}
	path := filepath.Join(dir, hex.EncodeToString(b[:])+".png")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		c.Raise("OSError", err.Error())
	}
	if err := os.WriteFile(path, png, 0o600); err != nil {
		c.Raise("OSError", err.Error())
	}
	c.mu.Lock()
	c.images = append(c.images, path)
	c.mu.Unlock()
	c.emit(kernel.ChunkImage, fmt.Sprintf("![image](%s)\n", path))
}

// Set keeps a variable in the kernel for later cells.
func (c *Cell) Set(name, value string) {
	c.check()
	c.k.mu.Lock()
	c.k.vars[name] = value
	c.k.mu.Unlock()
}

// Get returns a variable an earlier cell set.
func (c *Cell) Get(name string) (string, bool) {
	c.check()
	return c.k.Var(name)
}

// Shell runs a `!command` line: it asks the host and reports whether the
// command may run. A refused command prints what the kernel prints and is
// not run; running an approved one is up to the script.
func (c *Cell) Shell(command string) bool {
	return c.shell(kernel.ShellRequest{Command: command})
}

// ShellCell runs a %%bash (or %%sh, ...) cell magic: one request for the
// whole script.
func (c *Cell) ShellCell(interpreter, script string) bool {
	return c.shell(kernel.ShellRequest{Command: script, Interpreter: interpreter})
}

func (c *Cell) shell(req kernel.ShellRequest) bool {
	c.check()
	h := c.k.opts.Host
	ok := false
	if h != nil {
		var err error
		ok, err = h.ApproveShell(c.ctx, req)
		c.check()
		if err != nil {
			c.Raise("RuntimeError", "shell approval failed: "+err.Error())
		}
	}
	if !ok {
		c.emit(kernel.ChunkStderr, "Shell command rejected, not run: "+req.Command+"\n")
	}
	return ok
}

// CallTool calls an MCP tool through the host, as freeact_runtime's
// call_tool does, and returns its JSON result or the host's error (one
// wrapping kernel.ErrRejected when the call was rejected).
func (c *Cell) CallTool(server, tool string, args any) (json.RawMessage, error) {
	c.check()
	raw, err := json.Marshal(args)
	if err != nil {
		c.Raise("TypeError", err.Error())
	}
	h := c.k.opts.Host
	if h == nil {
		return nil, fmt.Errorf("%s.%s: %w", server, tool, kernel.ErrRejected)
	}
	res, err := h.CallTool(c.ctx, server, tool, raw)
	c.check()
	return res, err
}

// Input asks the user for a line, as input(prompt) does; an unanswered
// request raises EOFError.
func (c *Cell) Input(prompt string) string {
	c.check()
	h := c.k.opts.Host
	if h == nil {
		c.Raise("EOFError", "")
	}
	s, err := h.Input(c.ctx, prompt, false)
	c.check()
	if err != nil {
		c.Raise("EOFError", "")
	}
	return s
}

// Wait blocks until the cell is interrupted, like a long time.sleep.
func (c *Cell) Wait() {
	<-c.ctx.Done()
	c.check()
}

// Raise ends the cell with an exception: Result.Error is set and the
// error is the last output.
func (c *Cell) Raise(name, message string) {
	panic(raised{&kernel.ExecError{Name: name, Message: message}})
}

// Die ends the cell as a kernel whose process died: Execute fails with
// kernel.ErrKernelDied, and the next cell runs in a fresh kernel.
func (c *Cell) Die() {
	panic(died{})
}
