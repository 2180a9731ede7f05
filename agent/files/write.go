package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// errLinkSwapped is wrapped by errors for a path in which a symbolic link
// turned up after the path was resolved (and approved).
var errLinkSwapped = errors.New("a symbolic link replaced part of the path after it was checked; nothing was done")

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

// writeFileAtomic replaces p's file with data: it writes a temporary file in
// the same folder, syncs it and renames it over the target, so readers see
// the old or the new content, never a mix, and a failure leaves the old file
// as it was. An existing file's permission bits are kept; new files get 0644
// and missing parent folders 0755 (both less the umask). created reports
// that no file existed before.
//
// p.Abs has its links resolved. The folder is opened one component at a
// time without following links, and the target is replaced, not followed,
// so a symbolic link swapped in after p was resolved (and approved) cannot
// redirect the write: a link in the folder path is an error, a link at the
// target is refused.
func writeFileAtomic(p Path, data []byte) (created bool, err error) {
	dir, err := openDir(filepath.Dir(p.Abs), true)
	if errors.Is(err, errLinkSwapped) {
		return false, fmt.Errorf("write %s: %w", p.Display(), err)
	}
	if err != nil {
		return false, fmt.Errorf("write %s: create parent folders: %w", p.Display(), err)
	}
	defer dir.Close()
	base := filepath.Base(p.Abs)
	mode := fs.FileMode(0o644)
	cur, statErr := modeIn(dir, base)
	switch {
	case statErr == nil && cur&fs.ModeSymlink != 0:
		return false, fmt.Errorf("write %s: %w", p.Display(), errLinkSwapped)
	case statErr == nil && cur.IsDir():
		return false, fmt.Errorf("%s is a directory; give the path of a file", p.Display())
	case statErr == nil && !cur.IsRegular():
		return false, fmt.Errorf("%s is not a regular file (%s); refusing to replace it", p.Display(), cur.Type())
	case statErr == nil:
		mode = cur.Perm()
	case !errors.Is(statErr, fs.ErrNotExist):
		return false, fmt.Errorf("write %s: %w", p.Display(), statErr)
	}
	tmp, tmpName, err := createTemp(dir, base, mode)
	if err != nil {
		return false, fmt.Errorf("write %s: %w", p.Display(), err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			_ = removeIn(dir, tmpName)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return false, fmt.Errorf("write %s: %w", p.Display(), err)
	}
	if statErr == nil {
		// Replacing a file: keep its permissions exactly, whatever the umask.
		if err := tmp.Chmod(mode); err != nil {
			return false, fmt.Errorf("write %s: set permissions: %w", p.Display(), err)
		}
	}
	if err := tmp.Sync(); err != nil {
		return false, fmt.Errorf("write %s: %w", p.Display(), err)
	}
	if err := tmp.Close(); err != nil {
		return false, fmt.Errorf("write %s: %w", p.Display(), err)
	}
	if err := renameIn(dir, tmpName, base); err != nil {
		return false, fmt.Errorf("write %s: %w", p.Display(), err)
	}
	// Make the rename durable where the platform supports it; failure only
	// weakens durability.
	_ = dir.Sync()
	return statErr != nil, nil
}

// createTemp creates a new hidden file next to the target in dir. Unlike
// os.CreateTemp it takes the mode, so a new file's permissions come out as
// os.WriteFile's would (mode less the umask).
func createTemp(dir *os.File, base string, mode fs.FileMode) (*os.File, string, error) {
	for range 100 {
		name := fmt.Sprintf(".%s.%08x.tmp", base, rand.Uint32())
		f, err := openIn(dir, name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if !errors.Is(err, fs.ErrExist) {
			return f, name, err
		}
	}
	return nil, "", fmt.Errorf("create a temporary file in %s: too many name collisions", dir.Name())
}
