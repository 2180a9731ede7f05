package kernel

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/freeact/desktop/internal/atomicfile"
)

// execution collects the output of one execute_request. handle runs on the
// reader goroutine; finish may also be called from elsewhere (kernel death).
type execution struct {
	msgID     string
	onChunk   func(Chunk)
	imagesDir string
	// imagesLink names saved images in the output (KernelOptions.ImagesLink).
	imagesLink string
	// imagesRoot, when set, is the folder image files must stay in (the
	// workspace of a sandboxed kernel, whose code can put links in it).
	imagesRoot string
	// ctx carries the values of Execute's context to the Host's methods
	// and ends when Execute returns.
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	pieces   []string // output text in order; joined once by result()
	size     int      // bytes in pieces
	errAt    int      // where the error's text starts in the output; -1 for none
	images   []string
	errv     *ExecError
	cwdReset string
	quiet    bool // drop the KeyboardInterrupt of our own timeout interrupt
	gotReply bool
	gotIdle  bool
	finished bool
	err      error
	done     chan struct{}
}

func newExecution(ctx context.Context, msgID string, onChunk func(Chunk), imagesDir string) *execution {
	e := &execution{msgID: msgID, onChunk: onChunk, imagesDir: imagesDir, errAt: -1, done: make(chan struct{})}
	e.ctx, e.cancel = context.WithCancel(context.WithoutCancel(ctx))
	return e
}

func (e *execution) finish(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.finished {
		return
	}
	e.finished = true
	e.err = err
	close(e.done)
}

func (e *execution) quietInterrupt() {
	e.mu.Lock()
	e.quiet = true
	e.mu.Unlock()
}

func (e *execution) result() *Result {
	e.mu.Lock()
	defer e.mu.Unlock()
	text := strings.Join(e.pieces, "")
	e.pieces = []string{text}
	r := &Result{Text: text, Images: append([]string(nil), e.images...), Error: e.errv, CwdReset: e.cwdReset}
	if e.errAt >= 0 {
		r.ErrorText = text[e.errAt:]
	}
	return r
}

// emit appends text and forwards it as a chunk.
func (e *execution) emit(kind ChunkKind, s string) {
	if s == "" {
		return
	}
	e.mu.Lock()
	if e.finished {
		e.mu.Unlock()
		return
	}
	if kind == ChunkError {
		// An error starts a line of its own, never glued to output that
		// did not end its line (a KeyboardInterrupt in a print loop).
		if e.size > 0 && !strings.HasSuffix(e.pieces[len(e.pieces)-1], "\n") {
			s = "\n" + s
		}
		if e.errAt < 0 {
			e.errAt = e.size + len(s) - len(strings.TrimLeft(s, "\n"))
		}
	}
	e.pieces = append(e.pieces, s)
	e.size += len(s)
	e.mu.Unlock()
	if e.onChunk != nil {
		e.onChunk(Chunk{Kind: kind, Text: s})
	}
}

// notice appends a line of our own to the text (the timeout message),
// which is part of the error.
func (e *execution) notice(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if n := len(e.pieces); n > 0 && !strings.HasSuffix(e.pieces[n-1], "\n") {
		e.pieces = append(e.pieces, "\n")
		e.size++
	}
	if e.errAt < 0 {
		e.errAt = e.size
	}
	e.pieces = append(e.pieces, s+"\n")
	e.size += len(s) + 1
}

const cwdResetMIME = "application/x.freeact.cwd-reset+json"

func (e *execution) handle(m *received) {
	c := &m.Content
	switch m.Header.MsgType {
	case "stream":
		kind := ChunkStdout
		if c.Name == "stderr" {
			kind = ChunkStderr
		}
		e.emit(kind, c.Text)
	case "execute_result", "display_data":
		e.display(c.Data)
	case "error":
		xe := &ExecError{Name: c.EName, Message: c.EValue, Traceback: cleanTraceback(c.Traceback)}
		e.mu.Lock()
		quiet := e.quiet && c.EName == "KeyboardInterrupt"
		if !quiet {
			e.errv = xe
		}
		e.mu.Unlock()
		if !quiet {
			e.emit(ChunkError, formatError(xe))
		}
	case "execute_reply":
		if c.Status == "aborted" {
			e.emit(ChunkError, "The kernel aborted this execution without running it.\n")
		}
		e.arrived(&e.gotReply)
	case "status":
		if c.ExecutionState == "idle" {
			e.arrived(&e.gotIdle)
		}
	}
}

// arrived sets got (e.gotReply or e.gotIdle) and finishes the execution
// once both the reply and the idle status have come.
func (e *execution) arrived(got *bool) {
	e.mu.Lock()
	*got = true
	both := e.gotReply && e.gotIdle
	e.mu.Unlock()
	if both {
		e.finish(nil)
	}
}

var imageTypes = []struct{ mime, ext string }{
	{"image/png", ".png"},
	{"image/jpeg", ".jpg"},
	{"image/svg+xml", ".svg"},
}

// display saves images and forwards text/plain of a result or display.
func (e *execution) display(data map[string]json.RawMessage) {
	if raw, ok := data[cwdResetMIME]; ok {
		var v struct {
			From string `json:"from"`
			To   string `json:"to"`
		}
		if json.Unmarshal(raw, &v) == nil {
			e.mu.Lock()
			e.cwdReset = v.From
			e.mu.Unlock()
		}
		return
	}
	for _, it := range imageTypes {
		raw, ok := data[it.mime]
		if !ok {
			continue
		}
		path, err := e.saveImage(raw, it.mime, it.ext)
		if err != nil {
			e.emit(ChunkStderr, fmt.Sprintf("[could not save %s output: %v]\n", it.mime, err))
			return
		}
		e.mu.Lock()
		e.images = append(e.images, path)
		e.mu.Unlock()
		e.emit(ChunkImage, fmt.Sprintf("![image](%s)\n", path))
		return
	}
	if raw, ok := data["text/plain"]; ok {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			e.emit(ChunkResult, s+"\n")
		}
	}
}

func (e *execution) saveImage(raw json.RawMessage, mime, ext string) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		// svg may come as a list of lines in old outputs
		var lines []string
		if json.Unmarshal(raw, &lines) != nil {
			return "", fmt.Errorf("unexpected %s payload", mime)
		}
		s = strings.Join(lines, "")
	}
	var data []byte
	if mime == "image/svg+xml" {
		data = []byte(s)
	} else {
		var err error
		data, err = base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
		if err != nil {
			return "", fmt.Errorf("decode base64: %w", err)
		}
	}
	dir := e.imagesDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "freeact-images")
	}
	name := randomHex(4) + ext
	path := filepath.Join(dir, name)
	if e.imagesRoot != "" {
		if err := saveInRoot(e.imagesRoot, dir, name, data); err != nil {
			return "", err
		}
	} else {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		if err := atomicfile.Write(path, data, 0o600); err != nil {
			return "", err
		}
	}
	if e.imagesLink != "" {
		return filepath.Join(e.imagesLink, name), nil
	}
	return path, nil
}

// saveInRoot writes a new file name with data in dir, a folder inside
// root, made when missing, without following a symbolic link out of root.
func saveInRoot(root, dir, name string, data []byte) error {
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return err
	}
	err = r.MkdirAll(rel, 0o755)
	var d *os.File
	if err == nil {
		d, err = r.Open(rel)
	}
	if err != nil {
		return fmt.Errorf("the images folder %s does not stay in %s (a symbolic link out of it?): %w", dir, root, err)
	}
	defer d.Close()
	return atomicfile.WriteIn(d, name, data, 0o600, true)
}

// formatError is the error as the text of a result: the traceback, ending
// with the "Name: message" line.
func formatError(xe *ExecError) string {
	tb := strings.Trim(xe.Traceback, "\n")
	lines := strings.Split(tb, "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if tb == "" || last != strings.TrimSpace(xe.Error()) {
		tb = strings.TrimLeft(tb+"\n"+xe.Error(), "\n")
	}
	return tb + "\n"
}

var ansiRE = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-Z\\-_]`)

func stripANSI(s string) string { return ansiRE.ReplaceAllString(s, "") }

// cleanTraceback strips ANSI codes and drops frames of freeact's own hooks
// (and IPython's "skipping hidden frames" lines for them).
func cleanTraceback(tb []string) string {
	var keep []string
	for _, entry := range tb {
		entry = stripANSI(entry)
		var lines []string
		skipping := false
		for _, line := range strings.Split(entry, "\n") {
			t := strings.TrimSpace(line)
			switch {
			case strings.HasPrefix(t, "[... skipping hidden"):
				continue
			case strings.HasPrefix(t, "File ") || strings.HasPrefix(t, "Cell In[") || strings.HasPrefix(t, "Input In ["):
				skipping = strings.Contains(t, "freeact_kernel")
			case t == "":
				skipping = false
			}
			if !skipping {
				lines = append(lines, line)
			}
		}
		if s := strings.TrimRight(strings.Join(lines, "\n"), "\n "); strings.TrimSpace(s) != "" {
			keep = append(keep, s)
		}
	}
	return strings.Join(keep, "\n")
}
