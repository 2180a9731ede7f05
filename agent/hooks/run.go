package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/freeact/desktop/internal/redact"
)

// MaxOutput is how much of a handler's stdout (and, apart, its stderr) is
// kept; a handler that prints more has failed (its answer is cut).
const MaxOutput = 256 << 10

// Func is a hook written in Go (the SDK): it gets the event and answers as
// a script would with exit 0 and JSON. An error is a failed handler.
type Func func(ctx context.Context, in Input) (Output, error)

// Runner runs the hooks of an agent's sets for each event.
type Runner struct {
	Sets []Set
	// Dir is the workspace: commands run there, with CLAUDE_PROJECT_DIR
	// and FREEACT_PROJECT_DIR set to it.
	Dir string
	// Env is the environment of commands; nil is this process's.
	Env []string
	// Client posts to HTTP handlers; nil is a client that follows no
	// redirects.
	Client *http.Client
	// MaxOutput overrides the package's MaxOutput (tests).
	MaxOutput int
	// Observe, when set, hears what each event's handlers did.
	Observe Observe
}

// Has reports whether any handler is set for ev.
func (r *Runner) Has(ev Event) bool {
	if r == nil {
		return false
	}
	for _, s := range r.Sets {
		if len(s.Settings.Hooks[ev]) > 0 {
			return true
		}
	}
	return false
}

type job struct {
	source string
	h      Handler
	// unverified says why the set may not run (Set.Verify).
	unverified error
}

// Run runs the handlers that match in for in.HookEventName, all at once,
// and combines their answers. Identical commands run once. A nil Runner
// runs nothing.
func (r *Runner) Run(ctx context.Context, in Input) Outcome {
	if r == nil {
		return Outcome{}
	}
	var jobs []job
	seen := map[string]bool{}
	for _, s := range r.Sets {
		var unverified error
		verified := s.Verify == nil
		for i := range s.Settings.Hooks[in.HookEventName] {
			m := &s.Settings.Hooks[in.HookEventName][i]
			if !m.Matches(in.subject()) {
				continue
			}
			for _, h := range m.Hooks {
				if !h.cond.matches(in, r.Dir) {
					continue
				}
				key := h.Type + "\x00" + h.Command + "\x00" + h.URL
				if h.Func == nil {
					if seen[key] {
						continue
					}
					seen[key] = true
				}
				if !verified {
					unverified, verified = s.Verify(), true
				}
				jobs = append(jobs, job{source: s.Source, h: h, unverified: unverified})
			}
		}
	}
	if len(jobs) == 0 {
		return Outcome{}
	}
	body, err := json.Marshal(in)
	if err != nil {
		// Input holds strings and raw JSON the agent made: this cannot fail
		// but for raw JSON that is not JSON.
		body, _ = json.Marshal(Input{SessionID: in.SessionID, Cwd: in.Cwd, HookEventName: in.HookEventName, ToolName: in.ToolName})
	}
	results := make([]Result, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = r.runOne(ctx, j, in, body)
		}()
	}
	wg.Wait()
	o := combine(in.HookEventName, results)
	if r.Observe != nil {
		r.Observe(in, o)
	}
	return o
}

func (r *Runner) limit() int {
	if r.MaxOutput > 0 {
		return r.MaxOutput
	}
	return MaxOutput
}

func (r *Runner) runOne(ctx context.Context, j job, in Input, body []byte) Result {
	h := j.h
	timeout := DefaultTimeout
	if h.Timeout > 0 {
		timeout = time.Duration(h.Timeout * float64(time.Second))
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res := Result{Source: j.source}
	if j.unverified != nil {
		res.Handler, res.Failed = h.Command+h.URL+h.Name, j.unverified.Error()
		return res
	}
	var (
		stdout []byte
		err    error
	)
	switch {
	case h.Func != nil:
		res.Handler = h.Name
		if res.Handler == "" {
			res.Handler = "(Go function)"
		}
		out, ferr := callFunc(ctx, h.Func, in)
		if ferr != nil {
			res.Failed = ferr.Error()
			return res
		}
		res.Output, res.Answered = out, true
		return res
	case h.Type == TypeHTTP:
		res.Handler = redact.URL(h.URL)
		stdout, err = r.post(ctx, h, body)
	default:
		res.Handler = h.Command
		var stderr []byte
		stdout, stderr, res.Exit, err = r.command(ctx, h.Command, body)
		res.Stderr = string(stderr)
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.Failed = fmt.Sprintf("no answer within %s", timeout)
		return res
	case err != nil:
		res.Failed = err.Error()
		return res
	case res.Exit == 2:
		res.Blocked = true
		return res
	case res.Exit != 0:
		res.Failed = fmt.Sprintf("exit status %d", res.Exit)
		if s := firstLine(res.Stderr); s != "" {
			res.Failed += ": " + s
		}
		return res
	}
	out, ok, perr := ParseOutput(in.HookEventName, stdout)
	if perr != nil {
		res.Failed = perr.Error()
		return res
	}
	res.Output, res.Answered = out, ok
	if !ok {
		res.Text = string(bytes.TrimSpace(stdout))
	}
	return res
}

func callFunc(ctx context.Context, fn Func, in Input) (out Output, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panicked: %v", p)
		}
	}()
	type answer struct {
		out Output
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- answer{err: fmt.Errorf("panicked: %v", p)}
			}
		}()
		o, e := fn(ctx, in)
		ch <- answer{o, e}
	}()
	select {
	case a := <-ch:
		return a.out, a.err
	case <-ctx.Done():
		return Output{}, ctx.Err()
	}
}

func firstLine(s string) string {
	s = string(bytes.TrimSpace([]byte(s)))
	if i := bytes.IndexByte([]byte(s), '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// capped keeps the first n bytes written and notes that more came.
type capped struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	n    int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.n - c.buf.Len(); room > 0 {
		if len(p) > room {
			c.buf.Write(p[:room])
			c.over = true
		} else {
			c.buf.Write(p)
		}
	} else if len(p) > 0 {
		c.over = true
	}
	return len(p), nil
}

func (r *Runner) command(ctx context.Context, command string, body []byte) (stdout, stderr []byte, exit int, err error) {
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir = r.Dir
	env := r.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(append([]string(nil), env...), "CLAUDE_PROJECT_DIR="+r.Dir, "FREEACT_PROJECT_DIR="+r.Dir)
	cmd.Stdin = bytes.NewReader(body)
	out, errOut := &capped{n: r.limit()}, &capped{n: r.limit()}
	cmd.Stdout, cmd.Stderr = out, errOut
	ownGroup(cmd)
	// A child the command leaves running with the pipes open does not
	// keep the handler waiting.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, nil, -1, fmt.Errorf("could not start: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-ctx.Done():
		killGroup(cmd)
		werr = <-done
	}
	// A child the command left running may still hold the pipes: its
	// group is ended with the command.
	killGroup(cmd)
	out.mu.Lock()
	defer out.mu.Unlock()
	if out.over {
		return nil, nil, -1, fmt.Errorf("printed more than %d bytes: its answer was cut", r.limit())
	}
	exit = cmd.ProcessState.ExitCode()
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		return nil, nil, -1, fmt.Errorf("run: %w", werr)
	}
	errOut.mu.Lock()
	defer errOut.mu.Unlock()
	return bytes.Clone(out.buf.Bytes()), bytes.Clone(errOut.buf.Bytes()), exit, nil
}

func (r *Runner) post(ctx context.Context, h Handler, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("bad url %s: %w", redact.URL(h.URL), redact.Err(err))
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range h.Headers {
		req.Header.Set(k, v)
	}
	client := r.Client
	if client == nil {
		client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("post: %w", redact.Err(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(r.limit())+1))
	if err != nil {
		return nil, fmt.Errorf("read answer: %w", redact.Err(err))
	}
	if len(data) > r.limit() {
		return nil, fmt.Errorf("answered more than %d bytes", r.limit())
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("answered HTTP %d", resp.StatusCode)
	}
	return data, nil
}
