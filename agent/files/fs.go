package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/freeact/desktop/internal/atomicfile"
	"github.com/freeact/desktop/internal/nofollow"
)

// Backend is the filesystem a Workspace's files are on: the local disk
// (NewWorkspace), or the machine of a remote Jupyter server
// (kernel.Files, with NewWorkspaceOn). Paths are absolute and clean.
//
// Errors wrap fs.ErrNotExist for a missing file (or a file where a folder
// should be), syscall.EISDIR for a folder where a file should be,
// nofollow.ErrNotRegular for another kind of file, and
// nofollow.ErrLinkSwapped for a symbolic link met where the path had none
// when it was resolved; the Workspace turns them into messages for the
// model. Other errors are shown as they are.
type Backend interface {
	// Home is the user's home folder there ("~" in paths); "" when unknown.
	Home() string
	// Resolve returns abs with the symbolic links of its existing part
	// resolved, the rest appended.
	Resolve(ctx context.Context, abs string) (string, error)
	// Lstat returns the type and permission bits of abs, not following a
	// final link.
	Lstat(ctx context.Context, abs string) (fs.FileMode, error)
	// Open opens the regular file abs for reading, following no link.
	Open(ctx context.Context, abs string) (io.ReadCloser, error)
	// WriteFile replaces the file abs with data in one step, making
	// missing folders; an existing file keeps its permission bits. It
	// refuses a folder, another kind of file, and a link at abs or in its
	// folder's path. created reports that no file was there.
	WriteFile(ctx context.Context, abs string, data []byte) (created bool, err error)
}

// localFS is the local disk: folders are opened without following links
// (internal/nofollow) and files written with internal/atomicfile.
type localFS struct{}

func (localFS) Home() string {
	home, _ := os.UserHomeDir()
	return home
}

func (localFS) Resolve(_ context.Context, abs string) (string, error) { return resolveExisting(abs) }

func (localFS) Lstat(_ context.Context, abs string) (fs.FileMode, error) {
	dir, err := nofollow.OpenDir(filepath.Dir(abs), false)
	if err != nil {
		return 0, err
	}
	defer dir.Close()
	return nofollow.Mode(dir, filepath.Base(abs))
}

func (localFS) Open(_ context.Context, abs string) (io.ReadCloser, error) {
	dir, err := nofollow.OpenDir(filepath.Dir(abs), false)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	f, err := nofollow.Open(dir, filepath.Base(abs), os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	// The file may have been swapped for another kind since it was checked.
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: abs, Err: nofollow.ErrNotRegular}
	}
	return f, nil
}

// WriteFile replaces abs through a folder opened one component at a time
// without following links: a link swapped into the folder's path after
// it was resolved is an error, and one at the target is refused, not
// followed. New files get 0644 and missing folders 0755 (less the umask).
func (localFS) WriteFile(_ context.Context, abs string, data []byte) (bool, error) {
	dir, err := nofollow.OpenDir(filepath.Dir(abs), true)
	if errors.Is(err, nofollow.ErrLinkSwapped) {
		return false, err
	}
	if err != nil {
		return false, fmt.Errorf("create parent folders: %w", err)
	}
	defer dir.Close()
	base := filepath.Base(abs)
	mode := fs.FileMode(0o644)
	cur, statErr := nofollow.Mode(dir, base)
	switch {
	case statErr == nil && cur&fs.ModeSymlink != 0:
		return false, nofollow.ErrLinkSwapped
	case statErr == nil && cur.IsDir():
		return false, syscall.EISDIR
	case statErr == nil && !cur.IsRegular():
		return false, fmt.Errorf("%w (%s)", nofollow.ErrNotRegular, cur.Type())
	case statErr == nil:
		mode = cur.Perm()
	case !errors.Is(statErr, fs.ErrNotExist):
		return false, statErr
	}
	// Replacing a file keeps its permissions exactly, whatever the umask.
	if err := atomicfile.WriteIn(dir, base, data, mode, statErr == nil); err != nil {
		return false, err
	}
	return statErr != nil, nil
}

// openRegular opens p for reading, refusing what is not a regular file.
// It follows no symbolic link: p.Abs has them resolved already, and one
// swapped in since is refused.
func (w *Workspace) openRegular(ctx context.Context, p Path) (io.ReadCloser, error) {
	mode, err := w.fs.Lstat(ctx, p.Abs)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return nil, fmt.Errorf("%s does not exist: %w", p.Display(), fs.ErrNotExist)
	case err != nil:
		return nil, fmt.Errorf("open %s: %w", p.Display(), err)
	case mode&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("open %s: %w", p.Display(), nofollow.ErrLinkSwapped)
	case mode.IsDir():
		return nil, fmt.Errorf("%s is a directory, not a file; list directories with a code action (for example !ls)", p.Display())
	case !mode.IsRegular():
		return nil, fmt.Errorf("%s is not a regular file (%s)", p.Display(), mode.Type())
	}
	f, err := w.fs.Open(ctx, p.Abs)
	switch {
	case errors.Is(err, nofollow.ErrNotRegular):
		return nil, fmt.Errorf("%s is not a regular file", p.Display())
	case err != nil:
		return nil, fmt.Errorf("open %s: %w", p.Display(), err)
	}
	return f, nil
}

// writeFile replaces p's file with data in one step, so readers see the
// old or the new content, never a mix, and a failure leaves the old file
// as it was (on a remote server through its Contents API: see
// kernel.Files). created reports that no file existed before.
func (w *Workspace) writeFile(ctx context.Context, p Path, data []byte) (created bool, err error) {
	created, err = w.fs.WriteFile(ctx, p.Abs, data)
	switch {
	case err == nil:
		return created, nil
	case errors.Is(err, syscall.EISDIR):
		return false, fmt.Errorf("%s is a directory; give the path of a file", p.Display())
	case errors.Is(err, nofollow.ErrNotRegular):
		return false, fmt.Errorf("%s: %w; refusing to replace it", p.Display(), err)
	}
	return false, fmt.Errorf("write %s: %w", p.Display(), err)
}
