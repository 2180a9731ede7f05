package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/freeact/desktop/internal/atomicfile"
	"github.com/freeact/desktop/internal/nofollow"
)

// Write creates or overwrites a text file with the given content, creating
// missing parent folders. The file is replaced atomically and keeps the
// permissions of the file it replaces.
func (w *Workspace) Write(ctx context.Context, a WriteArgs, approved bool) (string, error) {
	p, err := w.resolve(a.Path, approved)
	if err != nil {
		return "", err
	}
	return w.write(ctx, a, p)
}

func (w *Workspace) write(ctx context.Context, a WriteArgs, p Path) (string, error) {
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
//
// p.Abs has its links resolved. The folder is opened one component at a
// time without following links (internal/nofollow), and the target is
// replaced, not followed, so a symbolic link swapped in after p was
// resolved (and approved) cannot redirect the write: a link in the folder
// path is an error, a link at the target is refused.
func writeFileAtomic(p Path, data []byte) (created bool, err error) {
	dir, err := nofollow.OpenDir(filepath.Dir(p.Abs), true)
	if errors.Is(err, nofollow.ErrLinkSwapped) {
		return false, fmt.Errorf("write %s: %w", p.Display(), err)
	}
	if err != nil {
		return false, fmt.Errorf("write %s: create parent folders: %w", p.Display(), err)
	}
	defer dir.Close()
	base := filepath.Base(p.Abs)
	mode := fs.FileMode(0o644)
	cur, statErr := nofollow.Mode(dir, base)
	switch {
	case statErr == nil && cur&fs.ModeSymlink != 0:
		return false, fmt.Errorf("write %s: %w", p.Display(), nofollow.ErrLinkSwapped)
	case statErr == nil && cur.IsDir():
		return false, fmt.Errorf("%s is a directory; give the path of a file", p.Display())
	case statErr == nil && !cur.IsRegular():
		return false, fmt.Errorf("%s is not a regular file (%s); refusing to replace it", p.Display(), cur.Type())
	case statErr == nil:
		mode = cur.Perm()
	case !errors.Is(statErr, fs.ErrNotExist):
		return false, fmt.Errorf("write %s: %w", p.Display(), statErr)
	}
	// Replacing a file keeps its permissions exactly, whatever the umask.
	if err := atomicfile.WriteIn(dir, base, data, mode, statErr == nil); err != nil {
		return false, fmt.Errorf("write %s: %w", p.Display(), err)
	}
	return statErr != nil, nil
}
