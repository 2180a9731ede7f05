package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
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

// writeFileAtomic replaces p's file with data: it writes a temporary file in
// the same folder, syncs it and renames it over the target, so readers see
// the old or the new content, never a mix, and a failure leaves the old file
// as it was. An existing file's permission bits are kept; new files get 0644
// and missing parent folders 0755 (both less the umask). created reports
// that no file existed before.
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
	tmp, err := createTemp(dir, filepath.Base(p.Abs), mode)
	if err != nil {
		return false, fmt.Errorf("write %s: %w", p.Display(), err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
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
	if err := os.Rename(tmp.Name(), p.Abs); err != nil {
		return false, fmt.Errorf("write %s: %w", p.Display(), err)
	}
	syncDir(dir)
	return statErr != nil, nil
}

// createTemp creates a new hidden file next to the target. Unlike
// os.CreateTemp it takes the mode, so a new file's permissions come out as
// os.WriteFile's would (mode less the umask).
func createTemp(dir, base string, mode fs.FileMode) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, fmt.Sprintf(".%s.%08x.tmp", base, rand.Uint32()))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("create a temporary file in %s: too many name collisions", dir)
}

// syncDir makes a rename in dir durable where the platform supports it;
// failure only weakens durability, so it is ignored.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
