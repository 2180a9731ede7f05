package files

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// ErrOutsideWorkspace is wrapped by errors for paths that leave the workspace
// in a call that was not approved.
var ErrOutsideWorkspace = errors.New("path is outside the workspace")

// Workspace executes file tool calls relative to one workspace directory.
// It is safe for concurrent use: writes and edits of the same file are
// serialised, so parallel edits from one model reply never lose each other.
// Share one Workspace between an agent and its subagents for that to hold
// across them.
type Workspace struct {
	root  string // absolute, cleaned, symlinks resolved
	fs    Backend
	locks [64]sync.Mutex

	// AcceptMedia says which media besides images the model reads
	// (application/pdf, audio/..., video/...), for ReadMedia; nil means
	// images only. Set it before the workspace is used.
	AcceptMedia func(mimeType string) bool
}

// lock locks the stripe of the file at abs and returns its unlock function.
func (w *Workspace) lock(abs string) func() {
	h := fnv.New32a()
	h.Write([]byte(abs))
	mu := &w.locks[h.Sum32()%uint32(len(w.locks))]
	mu.Lock()
	return mu.Unlock
}

// NewWorkspace returns a Workspace rooted at dir, which must be an existing
// directory.
func NewWorkspace(dir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open workspace %q: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace %q: %w", dir, err)
	}
	info, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("open workspace %q: %w", dir, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("open workspace %q: not a directory", dir)
	}
	return &Workspace{root: real, fs: localFS{}}, nil
}

// NewWorkspaceOn returns a Workspace rooted at root on the filesystem b (a
// remote workspace: kernel.Files): root is absolute, with its links
// resolved, and exists there.
func NewWorkspaceOn(root string, b Backend) *Workspace {
	return &Workspace{root: filepath.Clean(root), fs: b}
}

// FS is the filesystem the workspace is on.
func (w *Workspace) FS() Backend { return w.fs }

// Root returns the workspace directory (absolute, symlinks resolved).
func (w *Workspace) Root() string { return w.root }

// Path is a path the model sent, resolved against the workspace.
type Path struct {
	// Abs is the absolute, cleaned path with symlinks resolved as far as the
	// path exists. File operations use it, and approval requests for paths
	// outside the workspace show it.
	Abs string
	// Rel is Abs relative to the workspace root, slash-separated ("." for the
	// root itself); empty when Inside is false. Permission rules match it.
	Rel string
	// Inside reports whether Abs is the workspace root or lies beneath it.
	Inside bool
}

// Display returns the form of the path to show to users and the model:
// workspace-relative inside the workspace, absolute outside it.
func (p Path) Display() string {
	if p.Inside {
		return p.Rel
	}
	return p.Abs
}

// Resolve resolves path as the model sent it: relative paths against the
// workspace root, "~" and "~/..." against the user's home directory (on
// the workspace's filesystem). Symlinks are followed for the part of the
// path that exists, so a link inside the workspace that points elsewhere
// resolves to a path outside it.
func (w *Workspace) Resolve(ctx context.Context, path string) (Path, error) {
	if strings.TrimSpace(path) == "" {
		return Path{}, errors.New("path is empty: pass a file path relative to the workspace")
	}
	if strings.ContainsRune(path, 0) {
		return Path{}, fmt.Errorf("path %q contains a NUL byte", path)
	}
	if path == "~" || strings.HasPrefix(path, "~/") || strings.HasPrefix(path, "~"+string(filepath.Separator)) {
		home := w.fs.Home()
		if home == "" {
			return Path{}, fmt.Errorf("resolve %q: the home folder is not known", path)
		}
		path = filepath.Join(home, path[1:])
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(w.root, abs)
	}
	real, err := w.fs.Resolve(ctx, filepath.Clean(abs))
	if err != nil {
		return Path{}, fmt.Errorf("resolve %q: %w", path, err)
	}
	p := Path{Abs: real}
	if rel, ok := within(w.root, real); ok {
		p.Rel, p.Inside = rel, true
	}
	return p, nil
}

// resolve resolves path and refuses it when it leaves the workspace and the
// call was not approved.
func (w *Workspace) resolve(ctx context.Context, path string, approved bool) (Path, error) {
	p, err := w.Resolve(ctx, path)
	if err != nil {
		return Path{}, err
	}
	if !p.Inside && !approved {
		return Path{}, fmt.Errorf("%s: %w %s; such paths need an approved call", p.Abs, ErrOutsideWorkspace, w.root)
	}
	return p, nil
}

// resolveExisting resolves symlinks in the longest existing prefix of the
// clean absolute path abs and appends the part that does not exist yet.
func resolveExisting(abs string) (string, error) {
	var missing []string
	cur := abs
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			for i := len(missing) - 1; i >= 0; i-- {
				real = filepath.Join(real, missing[i])
			}
			return real, nil
		}
		// ENOTDIR: a file stands where a folder should; the operation
		// itself reports that with the path it tried.
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		missing = append(missing, filepath.Base(cur))
		cur = parent
	}
}

// within reports whether path is root or beneath it and returns the
// slash-separated relative path.
func within(root, path string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
