package opener

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/freeact/desktop/internal/filemanager"
	"github.com/freeact/desktop/internal/redact"
)

// DefaultWait bounds how long Open waits for the program's exit status: a
// program still running then (a browser started in the foreground) is
// taken as having opened the target.
const DefaultWait = 5 * time.Second

// programs are the programs that open a target on Linux, tried in order:
// the desktop's opener, then the Debian browser alternatives.
var programs = []string{"xdg-open", "x-www-browser", "www-browser"}

// ErrNoProgram is wrapped by the error when no program to open files is
// installed.
var ErrNoProgram = errors.New("no program to open files is installed (xdg-open was not found): install xdg-utils, or copy the path")

// ErrNoBrowser is wrapped by the error when no browser can be started.
var ErrNoBrowser = errors.New("no browser is installed (neither $BROWSER nor xdg-open was found): set $BROWSER or install xdg-utils, or copy the link into a browser")

// What to do when a program failed, for a path and for a link.
const (
	copyPath = "copy the path and open it yourself"
	copyLink = "copy the link into a browser"
)

// Opener hands targets to the desktop. The zero value is ready to use.
type Opener struct {
	// Wait bounds the wait for the program's exit status; 0 means
	// DefaultWait.
	Wait time.Duration
}

// OpenURL opens raw in the user's browser once CheckURL allows it: each
// command of $BROWSER (a list separated by colons, each a command whose
// "%s" is replaced by the URL, else followed by it), else xdg-open. It
// returns the checked link.
func (o Opener) OpenURL(ctx context.Context, raw string) (Link, error) {
	link, err := CheckURL(raw)
	if err != nil {
		return Link{}, err
	}
	var cmds [][]string
	if b := os.Getenv("BROWSER"); b != "" {
		for _, c := range strings.Split(b, ":") {
			fields := strings.Fields(c)
			if len(fields) == 0 {
				continue
			}
			args := fields[1:]
			if !strings.Contains(c, "%s") {
				args = append(args, link.URL)
			} else {
				for i, a := range args {
					args[i] = strings.ReplaceAll(a, "%s", link.URL)
				}
			}
			cmds = append(cmds, append([]string{fields[0]}, args...))
		}
	}
	for _, p := range programs {
		cmds = append(cmds, []string{p, link.URL})
	}
	if err := o.run(ctx, link.URL, cmds, ErrNoBrowser, copyLink); err != nil {
		return link, fmt.Errorf("open %s in the browser: %w", redact.URL(link.URL), err)
	}
	return link, nil
}

// OpenFile opens path (relative to the workspace, roots[0], or absolute)
// with its default application once roots.File allows it.
func (o Opener) OpenFile(ctx context.Context, roots Roots, path string) error {
	abs, err := roots.File(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	if err := o.run(ctx, abs, programCmds(abs), ErrNoProgram, copyPath); err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	return nil
}

// ShowInFolder shows path (as OpenFile takes it) in the file manager:
// selected in its folder where a file manager answers on the session bus
// (FileManager1), else its folder opened with xdg-open.
func (o Opener) ShowInFolder(ctx context.Context, roots Roots, path string) error {
	abs, err := roots.Item(path)
	if err != nil {
		return fmt.Errorf("show %s in its folder: %w", path, err)
	}
	fmctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err = filemanager.ShowItem(fmctx, abs)
	if err == nil {
		return nil
	}
	if !errors.Is(err, filemanager.ErrNone) {
		return fmt.Errorf("show %s in its folder: %w", path, err)
	}
	dir := filepath.Dir(abs)
	if _, err := roots.Item(dir); err != nil {
		dir = abs // the root itself: open it
	}
	if err := o.run(ctx, dir, programCmds(dir), ErrNoProgram, copyPath); err != nil {
		if errors.Is(err, ErrNoProgram) {
			return fmt.Errorf("show %s in its folder: no file manager answers and no program to open folders is installed (xdg-open was not found): install a file manager or xdg-utils, or copy the path", path)
		}
		return fmt.Errorf("show %s in its folder: %w", path, err)
	}
	return nil
}

func programCmds(target string) [][]string {
	var cmds [][]string
	for _, p := range programs {
		cmds = append(cmds, []string{p, target})
	}
	return cmds
}

// run starts the commands (each ending in target) in turn until one
// opens target: it exits with status 0, or still runs after the wait. A
// command that is not installed is skipped; one that fails is reported,
// and the next is tried. none is the error when no command is installed,
// advice what to do when all failed.
func (o Opener) run(ctx context.Context, target string, cmds [][]string, none error, advice string) error {
	if !strings.HasPrefix(target, "/") && !strings.HasPrefix(target, "https://") && !strings.HasPrefix(target, "http://") {
		return fmt.Errorf("%q is neither an absolute path nor an http(s) URL: not handed over", redact.URL(target))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	wait := o.Wait
	if wait <= 0 {
		wait = DefaultWait
	}
	var errs []string
	found := false
	for _, c := range cmds {
		prog, err := exec.LookPath(c[0])
		if err != nil {
			continue
		}
		found = true
		err = start(ctx, prog, c[1:], wait)
		if err == nil {
			return nil
		}
		errs = append(errs, c[0]+": "+err.Error())
	}
	if !found {
		return none
	}
	return fmt.Errorf("it could not be opened (%s): %s", strings.Join(errs, "; "), advice)
}

// start runs prog with args (no shell, no input) and waits up to wait for
// its exit status: nil for status 0 or a program still running then (it
// is reaped when it ends), else its status and the last line it wrote.
func start(ctx context.Context, prog string, args []string, wait time.Duration) error {
	cmd := exec.Command(prog, args...)
	var out tail
	cmd.Stdout, cmd.Stderr = &out, &out
	// A program that leaves a child holding its output open (a browser
	// started by xdg-open) must not keep Wait from returning.
	cmd.WaitDelay = 200 * time.Millisecond
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case err := <-done:
		if err == nil || errors.Is(err, exec.ErrWaitDelay) {
			return nil
		}
		if msg := out.last(); msg != "" {
			return fmt.Errorf("%w: %s", err, redact.Text(msg))
		}
		return err
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return nil // started; the caller no longer waits for the answer
	}
}

// tail keeps the last bytes a program wrote.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailMax {
		t.buf = t.buf[len(t.buf)-tailMax:]
	}
	return len(p), nil
}

// last returns the last non-empty line written.
func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(bytes.ToValidUTF8(t.buf, nil))), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
