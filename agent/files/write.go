package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/freeact/desktop/internal/atomicfile"
)

// Write creates or overwrites a text file with the given content, creating
// missing parent folders. The file is replaced atomically and keeps the
// permissions of the file it replaces.
func (w *Workspace) Write(ctx context.Context, a WriteArgs, approved bool) (string, error) {
	p, err := w.resolve(a.Path, approved)
	if err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("write %s: %w", p.Display(), err)
	}
	defer w.lock(p.Abs)()
	created, err := writeFileAtomic(p, []byte(a.Content))
	if err != nil {
		return "", err
	}
	verb := "Overwrote"
	if created {
		verb = "Created"
	}
	return fmt.Sprintf("%s %s (%d bytes).", verb, p.Display(), len(a.Content)), nil
}

// writeFileAtomic replaces p's file with data in one step (atomicfile), so
// readers see the old or the new content, never a mix, and a failure leaves
// the old file as it was. An existing file's permission bits are kept; new
// files get 0644 and missing parent folders 0755 (both less the umask).
// created reports that no file existed before.
func writeFileAtomic(p Path, data []byte) (created bool, err error) {
	mode := fs.FileMode(0o644)
	info, statErr := os.Stat(p.Abs)
	switch {
	case statErr == nil && info.IsDir():
		return false, fmt.Errorf("%s is a directory; give the path of a file", p.Display())
	case statErr == nil && !info.Mode().IsRegular():
		return false, fmt.Errorf("%s is not a regular file (%s); refusing to replace it", p.Display(), info.Mode().Type())
	case statErr == nil:
		mode = info.Mode().Perm()
	case !errors.Is(statErr, fs.ErrNotExist) && !errors.Is(statErr, syscall.ENOTDIR):
		// ENOTDIR (a file where a folder should be) is left to MkdirAll,
		// whose error names the file.
		return false, fmt.Errorf("write %s: %w", p.Display(), statErr)
	}
	dir := filepath.Dir(p.Abs)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("write %s: create parent folders: %w", p.Display(), err)
	}
	if statErr == nil {
		// Replacing a file: keep its permissions exactly, whatever the umask.
		err = atomicfile.Write(p.Abs, data, mode)
	} else {
		err = atomicfile.WriteUmask(p.Abs, data, mode)
	}
	if err != nil {
		return false, fmt.Errorf("write %s: %w", p.Display(), err)
	}
	return statErr != nil, nil
}
