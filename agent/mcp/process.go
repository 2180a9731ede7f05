package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp/oauth"
)

// errConnectTimeout is the cause of a connection attempt that took longer
// than the connect timeout.
var errConnectTimeout = errors.New("connect timeout")

// process is a stdio server's process: its pipes, what it printed that was
// not a protocol message, and its exit. The manager runs it itself (not
// mcp-go) to keep what a broken server printed for the error message.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File // the read end; the server holds the write end
	out    *record  // stdout lines that are not JSON
	errOut *record  // the end of stderr
	exited chan struct{}
	err    error // Wait's error, set when exited closes
}

// startProcess starts cfg's command in a process group of its own, its
// stderr logged line by line.
func startProcess(cfg config.Server, log *slog.Logger) (*process, error) {
	env := os.Environ()
	for _, k := range slices.Sorted(maps.Keys(cfg.Env)) {
		env = append(env, k+"="+cfg.Env[k])
	}
	// Not CommandContext: the process outlives the call that started it.
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = env
	cmd.Dir = cfg.Cwd
	p := &process{cmd: cmd, out: newRecord(false, true), errOut: newRecord(true, false), exited: make(chan struct{})}
	cmd.Stderr = io.MultiWriter(newLineLogger(log), p.errOut)
	ownGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// An *os.File, so that Wait does not close it while the client still
	// reads what the server wrote before it exited.
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	w.Close()
	p.stdin, p.stdout = stdin, r
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// reader is the stdout the client reads, recorded on the way.
func (p *process) reader() io.Reader { return io.TeeReader(p.stdout, p.out) }

// exitedWithin reports how the process ended, if it did within d.
func (p *process) exitedWithin(d time.Duration) (error, bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return p.err, true
	case <-t.C:
		return nil, false
	}
}

// printed says what the server printed besides protocol messages.
func (p *process) printed() string {
	out, errOut := p.out.String(), p.errOut.String()
	switch {
	case out == "" && errOut == "":
		return "it printed nothing on stdout or stderr"
	case errOut == "":
		return fmt.Sprintf("it printed on stdout: %q", out)
	case out == "":
		return fmt.Sprintf("it printed on stderr: %q", errOut)
	}
	return fmt.Sprintf("it printed on stdout: %q; on stderr: %q", out, errOut)
}

// startFailure explains why connecting failed: a timeout, an exit, or err;
// for a local server followed by what it printed.
func (s *server) startFailure(ctx context.Context, c *conn, err error) error {
	// A failed sign-in is the cause, whatever else the transport says
	// around it: kept as it is, for Error to show its step.
	var si *oauth.SignInError
	if errors.As(err, &si) {
		return si
	}
	var need *oauth.NeedSignInError
	if errors.As(err, &need) {
		return need
	}
	var why string
	switch {
	case errors.Is(context.Cause(ctx), errConnectTimeout):
		why = fmt.Sprintf(`no answer within %s (a server that is slow to start needs a higher "connect_timeout" in seconds in its entry of agent.json)`, s.connectTimeout())
	case ctx.Err() != nil:
		// The caller gave up: what the server printed is not the cause.
		return fmt.Errorf("cancelled while connecting: %w", context.Cause(ctx))
	default:
		why = err.Error()
		if c.proc != nil {
			if exit, ok := c.proc.exitedWithin(time.Second); ok {
				why = "the server exited"
				if exit != nil {
					why += " (" + exit.Error() + ")"
				}
			}
		}
	}
	if c.proc != nil {
		why += "; " + c.proc.printed()
	}
	return errors.New(why)
}

// connectTimeout is the server's connect_timeout, or the manager's.
func (s *server) connectTimeout() time.Duration {
	if t := s.cfg.ConnectTimeout; t != nil && *t > 0 {
		return time.Duration(*t * float64(time.Second))
	}
	return s.m.opts.ConnectTimeout
}

// maxRecord bounds what a record keeps.
const maxRecord = 1 << 10

// record keeps some of what a server printed, for error messages: the
// first maxRecord bytes, or with tail the last ones; with skipJSON only
// lines that are not JSON (protocol messages are not what went wrong).
type record struct {
	skipJSON bool
	tail     bool
	lines    lines
	kept     []byte // guarded by lines.mu
	cut      bool
}

func newRecord(tail, skipJSON bool) *record {
	r := &record{tail: tail, skipJSON: skipJSON}
	r.lines = lines{max: maxRecord, emit: r.keep}
	return r
}

func (r *record) Write(p []byte) (int, error) { return r.lines.Write(p) }

func (r *record) keep(line []byte) {
	if r.skipJSON && isJSON(line) {
		return
	}
	if !r.tail && len(r.kept) >= maxRecord {
		r.cut = true
		return
	}
	r.kept = append(r.kept, line...)
	if len(r.kept) > maxRecord {
		r.cut = true
		if r.tail {
			r.kept = r.kept[len(r.kept)-maxRecord:]
		} else {
			r.kept = r.kept[:maxRecord]
		}
	}
}

func isJSON(line []byte) bool {
	line = bytes.TrimSpace(line)
	return len(line) > 0 && json.Valid(line)
}

// String returns what was kept (with a line still open), marking a cut
// with "…".
func (r *record) String() string {
	r.lines.mu.Lock()
	defer r.lines.mu.Unlock()
	s := string(r.kept)
	if open := r.lines.buf; len(open) > 0 && !(r.skipJSON && isJSON(open)) {
		s += string(open)
	}
	s = strings.TrimRight(s, "\n")
	switch {
	case !r.cut:
		return s
	case r.tail:
		return "…" + s
	default:
		return s + "…"
	}
}
