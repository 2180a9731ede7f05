package kernel

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
	"syscall"

	"github.com/freeact/desktop/internal/nofollow"
)

//go:embed hooks/freeact_files.py
var filesSource string

// Files reaches the files of a workspace on a remote server, where its
// kernels run: through the server's Contents API where it has one and will
// serve the path, else by running code in a kernel (silent executions; on
// a busy kernel they wait until the running cell ends).
//
// Paths are absolute paths on the server. Through the kernel the file tools
// keep their promises: links are resolved before a path is checked, files
// are opened without following a link swapped in since, and writes replace
// a file atomically (internal/nofollow and internal/atomicfile do the same
// locally). Through the Contents API the server follows links itself and
// does not say so: paths are taken as they are, and a write is the
// server's own safe save (the old content kept aside until the new one is
// written), not a rename.
type Files struct {
	k    *Kernel
	root string // the workspace: absolute, links resolved
	home string
	// contents is the server's root folder as the kernel sees it, when
	// the server has a Contents API and the workspace lies in that root.
	contents string
	// hidden: the Contents API serves hidden files (.freeact/...);
	// jupyter_server refuses them unless ContentsManager.allow_hidden.
	hidden bool
}

// remoteChunk is how much one operation through the kernel moves: well
// below the 10 MiB a server accepts in a websocket message by default.
const remoteChunk = 4 << 20

// maxContentsRead bounds a file read through the Contents API, which sends
// whole files; larger ones are read through the kernel in pieces.
const maxContentsRead = 64 << 20

// OpenFiles prepares the workspace workdir on the server, through the
// kernel k (started on s): workdir is made when missing; relative, it is
// taken from the folder kernels start in (the server's root, or the
// gateway's working directory); empty, it is that folder. k keeps serving
// file operations, and is replaced like any dead kernel when it dies.
func (s *Server) OpenFiles(ctx context.Context, k *Kernel, workdir string) (*Files, error) {
	var info struct {
		Cwd  string `json:"cwd"`
		Home string `json:"home"`
		Root string `json:"root"`
	}
	if err := k.files(ctx, map[string]any{"op": "info", "workdir": workdir}, &info); err != nil {
		return nil, fmt.Errorf("open the remote workspace %s: %w", workdir, err)
	}
	f := &Files{k: k, root: info.Root, home: info.Home}
	if s.HasContents() {
		// Kernels start in the server's root (startBody asks for it).
		if _, ok := within(info.Cwd, f.root); ok {
			f.contents = info.Cwd
		}
	}
	if f.contents != "" {
		if err := f.MkdirAll(ctx, path.Join(f.root, ".freeact")); err != nil {
			return nil, fmt.Errorf("open the remote workspace %s: %w", f.root, err)
		}
		rel, _ := within(f.contents, path.Join(f.root, ".freeact"))
		var m contentsModel
		f.hidden = f.contentsGet(ctx, rel, "content=0", &m) == nil
	}
	return f, nil
}

// Root is the workspace on the server.
func (f *Files) Root() string { return f.root }

// Home is the home folder of the server's user ("~").
func (f *Files) Home() string { return f.home }

// Contents reports whether the server's Contents API serves files of the
// workspace (hidden ones only when the server allows them).
func (f *Files) Contents() bool { return f.contents != "" }

// within returns p relative to dir ("" for dir itself) when p is dir or
// lies below it.
func within(dir, p string) (string, bool) {
	if p == dir {
		return "", true
	}
	prefix := strings.TrimSuffix(dir, "/") + "/"
	if strings.HasPrefix(p, prefix) {
		return p[len(prefix):], true
	}
	return "", false
}

// viaContents returns the Contents API path of abs when the Contents API
// is to be used for it.
func (f *Files) viaContents(abs string) (string, bool) {
	if f.contents == "" {
		return "", false
	}
	rel, ok := within(f.contents, abs)
	if !ok {
		return "", false
	}
	if !f.hidden {
		for _, part := range strings.Split(rel, "/") {
			if strings.HasPrefix(part, ".") {
				return "", false
			}
		}
	}
	return rel, true
}

// Resolve returns abs with its links resolved as far as it exists. Paths
// the Contents API serves are returned as they are: it cannot tell a link
// from what it leads to.
func (f *Files) Resolve(ctx context.Context, abs string) (string, error) {
	abs = path.Clean(abs)
	if _, ok := f.viaContents(abs); ok {
		return abs, nil
	}
	var r struct {
		Path string `json:"path"`
	}
	if err := f.k.files(ctx, map[string]any{"op": "resolve", "path": abs}, &r); err != nil {
		return "", err
	}
	return r.Path, nil
}

// Lstat returns the type and permission bits of abs, not following a
// final link (where the Contents API serves abs it does follow it, and the
// permission bits are 0644 for a file it may write, 0444 for one it may not).
func (f *Files) Lstat(ctx context.Context, abs string) (fs.FileMode, error) {
	if rel, ok := f.viaContents(abs); ok {
		var m contentsModel
		if err := f.contentsGet(ctx, rel, "content=0", &m); err != nil {
			return 0, contentsErr(abs, err)
		}
		return m.mode(), nil
	}
	var st struct {
		Mode uint32 `json:"mode"`
	}
	if err := f.k.files(ctx, map[string]any{"op": "stat", "path": abs}, &st); err != nil {
		return 0, err
	}
	return nofollow.FileMode(st.Mode), nil
}

// Open opens the regular file abs for reading. Through the kernel it reads
// the file in pieces as the reader is read, without following a link.
func (f *Files) Open(ctx context.Context, abs string) (io.ReadCloser, error) {
	if rel, ok := f.viaContents(abs); ok {
		var m contentsModel
		err := f.contentsGet(ctx, rel, "content=0", &m)
		if err == nil && m.Type == "file" && m.Size <= maxContentsRead {
			if err = f.contentsGet(ctx, rel, "type=file&format=base64", &m); err == nil {
				data, derr := base64.StdEncoding.DecodeString(strings.ReplaceAll(m.Content, "\n", ""))
				if derr != nil {
					return nil, fmt.Errorf("read %s: the server sent bad base64: %w", abs, derr)
				}
				return io.NopCloser(bytes.NewReader(data)), nil
			}
		}
		if err != nil {
			return nil, contentsErr(abs, err)
		}
		if m.Type == "directory" {
			return nil, &fs.PathError{Op: "open", Path: abs, Err: syscall.EISDIR}
		}
		// Too large to send whole: read it through the kernel.
	}
	r := &remoteReader{ctx: ctx, f: f, path: abs}
	if err := r.fill(); err != nil {
		return nil, err
	}
	return r, nil
}

// remoteReader reads a file through the kernel, a piece at a time.
type remoteReader struct {
	ctx  context.Context
	f    *Files
	path string
	off  int64
	buf  []byte
	eof  bool
}

func (r *remoteReader) fill() error {
	var out struct {
		Data string `json:"data"`
		Size int64  `json:"size"`
	}
	if err := r.f.k.files(r.ctx, map[string]any{"op": "read", "path": r.path, "offset": r.off, "size": remoteChunk}, &out); err != nil {
		return err
	}
	data, err := base64.StdEncoding.DecodeString(out.Data)
	if err != nil {
		return fmt.Errorf("read %s: bad base64 from the kernel: %w", r.path, err)
	}
	r.buf, r.off = data, r.off+int64(len(data))
	r.eof = len(data) < remoteChunk
	return nil
}

func (r *remoteReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.eof {
			return 0, io.EOF
		}
		if err := r.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

func (r *remoteReader) Close() error { return nil }

// WriteFile replaces the file abs with data, making missing folders; an
// existing file keeps its permission bits. created reports that there was
// no file before. Through the kernel the file is replaced atomically and a
// link at abs, or in its folder's path, is refused.
func (f *Files) WriteFile(ctx context.Context, abs string, data []byte) (created bool, err error) {
	if rel, ok := f.viaContents(abs); ok {
		return f.contentsWrite(ctx, abs, rel, data)
	}
	var tmp *string
	for off := 0; ; {
		end := min(off+remoteChunk, len(data))
		var out struct {
			Tmp     *string `json:"tmp"`
			Created bool    `json:"created"`
		}
		req := map[string]any{"op": "write", "path": abs, "data": base64.StdEncoding.EncodeToString(data[off:end]), "last": end == len(data)}
		if tmp != nil {
			req["tmp"] = *tmp
		}
		if err := f.k.files(ctx, req, &out); err != nil {
			if tmp != nil {
				_ = f.k.files(context.WithoutCancel(ctx), map[string]any{"op": "abort", "path": abs, "tmp": *tmp}, nil)
			}
			return false, err
		}
		if off == 0 {
			created = out.Created
		}
		tmp, off = out.Tmp, end
		if off == len(data) {
			return created, nil
		}
	}
}

// MkdirAll makes the folder abs and its missing parents.
func (f *Files) MkdirAll(ctx context.Context, abs string) error {
	return f.k.files(ctx, map[string]any{"op": "mkdirs", "path": abs}, nil)
}

// Hashes returns the SHA-256 (hex) of every regular file below the folder
// dir, by path relative to it; an empty map when dir does not exist.
func (f *Files) Hashes(ctx context.Context, dir string) (map[string]string, error) {
	var out struct {
		Files map[string]string `json:"files"`
	}
	if err := f.k.files(ctx, map[string]any{"op": "tree", "path": dir}, &out); err != nil {
		return nil, err
	}
	return out.Files, nil
}

// Put writes several files (absolute path: content), each atomically,
// in as few round trips as their size allows.
func (f *Files) Put(ctx context.Context, files map[string][]byte) error {
	batch, size := map[string]string{}, 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := f.k.files(ctx, map[string]any{"op": "put", "files": batch}, nil)
		batch, size = map[string]string{}, 0
		return err
	}
	for p, data := range files {
		if len(data) > remoteChunk {
			if _, err := f.WriteFile(ctx, p, data); err != nil {
				return err
			}
			continue
		}
		if size+len(data) > remoteChunk {
			if err := flush(); err != nil {
				return err
			}
		}
		batch[p] = base64.StdEncoding.EncodeToString(data)
		size += len(data)
	}
	return flush()
}

// files runs one operation of freeact_files in the kernel and decodes its
// result into out (nil to drop it). The module is installed when missing
// (a new or restarted kernel).
func (k *Kernel) files(ctx context.Context, req map[string]any, out any) error {
	op, _ := req["op"].(string)
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	lit, _ := json.Marshal(string(b)) // a JSON string is a Python string literal
	expr := "__import__('freeact_files').call(" + string(lit) + ")"
	var text string
	for installed := false; ; installed = true {
		c, err := k.liveConn(ctx)
		if err != nil {
			return fmt.Errorf("%s on the server: %w", op, err)
		}
		text, err = c.evaluate(ctx, expr)
		if err == nil {
			break
		}
		if installed || !strings.Contains(err.Error(), "ModuleNotFoundError") {
			return fmt.Errorf("%s on the server: %w", op, err)
		}
		if err := c.executeSilent(ctx, moduleCode("freeact_files", filesSource)); err != nil {
			return fmt.Errorf("install file operations in the kernel: %w", err)
		}
	}
	raw, err := base64.StdEncoding.DecodeString(strings.Trim(text, `'"`))
	if err != nil {
		return fmt.Errorf("%s on the server: bad reply %.80q", op, text)
	}
	var reply struct {
		OK      bool            `json:"ok"`
		Result  json.RawMessage `json:"result"`
		Kind    string          `json:"kind"`
		Message string          `json:"message"`
	}
	if err := json.Unmarshal(raw, &reply); err != nil {
		return fmt.Errorf("%s on the server: bad reply: %w", op, err)
	}
	if !reply.OK {
		p, _ := req["path"].(string)
		return remoteErr(op, p, reply.Kind, reply.Message)
	}
	if out != nil {
		return json.Unmarshal(reply.Result, out)
	}
	return nil
}

// remoteErr turns a failure the kernel reported into an error the callers
// can test with errors.Is: fs.ErrNotExist, syscall.EISDIR,
// nofollow.ErrNotRegular, nofollow.ErrLinkSwapped.
func remoteErr(op, p, kind, msg string) error {
	var err error
	switch kind {
	case "not_exist":
		err = fs.ErrNotExist
	case "is_dir":
		err = syscall.EISDIR
	case "not_regular":
		return &fs.PathError{Op: op, Path: p, Err: fmt.Errorf("%w (%s)", nofollow.ErrNotRegular, msg)}
	case "link_swapped":
		err = nofollow.ErrLinkSwapped
	default:
		return fmt.Errorf("%s %s on the server: %s", op, p, msg)
	}
	return &fs.PathError{Op: op, Path: p, Err: err}
}

// liveConn is the kernel's connection, after replacing a dead kernel
// (which waits for a running cell to end).
func (k *Kernel) liveConn(ctx context.Context) (*conn, error) {
	k.mu.Lock()
	c, dead, closed := k.c, k.dead, k.closed
	k.mu.Unlock()
	if closed {
		return nil, errors.New("the kernel is closed")
	}
	if dead == nil {
		return c, nil
	}
	k.execMu.Lock()
	defer k.execMu.Unlock()
	if err := k.ensureAlive(ctx); err != nil {
		return nil, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.c, nil
}

// moduleCode is a silent execution that makes source the module name.
func moduleCode(name, source string) string {
	src, _ := json.Marshal(source)
	return `def __freeact_module():
    import sys, types
    m = types.ModuleType("` + name + `")
    m.__file__ = "<` + name + `>"
    exec(compile(` + string(src) + `, "<` + name + `>", "exec"), m.__dict__)
    sys.modules["` + name + `"] = m
__freeact_module()
del __freeact_module
`
}

// evaluate evaluates the Python expression expr in the kernel (as a user
// expression of a silent execution) and returns its text/plain form.
func (c *conn) evaluate(ctx context.Context, expr string) (string, error) {
	rep, err := c.silent(ctx, "", map[string]any{"r": expr})
	if err != nil {
		return "", err
	}
	v, ok := rep.UserExpressions["r"]
	switch {
	case !ok:
		return "", errors.New("the kernel returned no value")
	case v.Status != "ok":
		return "", fmt.Errorf("%s: %s", v.EName, v.EValue)
	}
	var text string
	if err := json.Unmarshal(v.Data["text/plain"], &text); err != nil {
		return "", fmt.Errorf("bad execute_reply: %w", err)
	}
	return text, nil
}

// await sends the shell request m and waits for its reply.
func (c *conn) await(ctx context.Context, m *message) (*received, error) {
	ch := make(chan *received, 1)
	c.mu.Lock()
	c.waiters[m.Header.MsgID] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waiters, m.Header.MsgID)
		c.mu.Unlock()
	}()
	if err := c.send(m); err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		return r, nil
	case <-c.done:
		return nil, c.closedError()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// contentsModel is the part of a Contents API model that is used.
type contentsModel struct {
	Type     string `json:"type"`
	Size     int64  `json:"size"`
	Writable bool   `json:"writable"`
	Content  string `json:"content"`
}

func (m contentsModel) mode() fs.FileMode {
	perm := fs.FileMode(0o444)
	if m.Writable {
		perm = 0o644
	}
	if m.Type == "directory" {
		return fs.ModeDir | perm | 0o111
	}
	return perm
}

// contentsRef is the URL of Contents API path rel with query.
func contentsRef(rel, query string) *url.URL {
	return &url.URL{Path: strings.TrimSuffix("api/contents/"+rel, "/"), RawQuery: query}
}

func (f *Files) contentsGet(ctx context.Context, rel, query string, m *contentsModel) error {
	s := f.k.srv
	return s.request(ctx, s.ep.Load(), http.MethodGet, contentsRef(rel, query), nil, m, 2*maxContentsRead)
}

func (f *Files) contentsPut(ctx context.Context, rel string, model map[string]any) error {
	s := f.k.srv
	return s.request(ctx, s.ep.Load(), http.MethodPut, contentsRef(rel, ""), model, nil, 1<<20)
}

// contentsWrite writes a file through the Contents API, making its
// missing folders first.
func (f *Files) contentsWrite(ctx context.Context, abs, rel string, data []byte) (bool, error) {
	var m contentsModel
	err := f.contentsGet(ctx, rel, "content=0", &m)
	var he *HTTPError
	switch {
	case err == nil && m.Type == "directory":
		return false, &fs.PathError{Op: "write", Path: abs, Err: syscall.EISDIR}
	case err != nil && !(errors.As(err, &he) && he.Status == http.StatusNotFound):
		return false, contentsErr(abs, err)
	}
	created := err != nil
	if created {
		// Make the missing folders, from the top.
		parts := strings.Split(rel, "/")
		for i := 1; i < len(parts); i++ {
			dir := strings.Join(parts[:i], "/")
			var dm contentsModel
			if err := f.contentsGet(ctx, dir, "content=0", &dm); err == nil {
				if dm.Type != "directory" {
					return false, fmt.Errorf("write %s: %s is not a folder", abs, path.Join(f.contents, dir))
				}
				continue
			}
			if err := f.contentsPut(ctx, dir, map[string]any{"type": "directory"}); err != nil {
				return false, contentsErr(path.Join(f.contents, dir), err)
			}
		}
	}
	model := map[string]any{"type": "file", "format": "base64", "content": base64.StdEncoding.EncodeToString(data)}
	if err := f.contentsPut(ctx, rel, model); err != nil {
		return false, contentsErr(abs, err)
	}
	return created, nil
}

// contentsErr makes a Contents API failure say what it was about.
func contentsErr(abs string, err error) error {
	var he *HTTPError
	if errors.As(err, &he) {
		switch he.Status {
		case http.StatusNotFound:
			return &fs.PathError{Op: "open", Path: abs, Err: fs.ErrNotExist}
		case http.StatusForbidden:
			return &fs.PathError{Op: "open", Path: abs, Err: fs.ErrPermission}
		}
	}
	return fmt.Errorf("%s through the Contents API: %w", abs, err)
}

// SetWorkspace makes dir the folder cells start in and return to, and
// puts pythonPath first on sys.path: in the running kernel now, and after
// each restart or replacement.
func (k *Kernel) SetWorkspace(ctx context.Context, dir string, pythonPath []string) error {
	k.execMu.Lock()
	defer k.execMu.Unlock()
	k.mu.Lock()
	k.opts.Workspace, k.opts.PythonPath = dir, pythonPath
	c, dead := k.c, k.dead
	k.mu.Unlock()
	if dead != nil {
		return nil // its replacement is configured so
	}
	return k.attach(ctx, c)
}
