// Package atomicfile owns replacing a file's content in one step: the data
// goes to a unique temporary file in the same folder, which is synced and
// renamed over the target, and then the folder is synced. A reader sees the
// old content or the new, never a mix, and a failure or a crash leaves no
// half-written file under the target's name.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// Write replaces name's content with data, creating name and its missing
// parent folders (0755 less the umask). The file ends up with exactly perm,
// whatever the umask: use it for files the program owns (settings,
// credentials).
func Write(name string, data []byte, perm fs.FileMode) error {
	return write(name, data, perm, exactMode|durable)
}

// WriteUmask is Write for files a user owns: a new file gets perm less the
// umask, as os.WriteFile gives it. To keep an existing file's mode, pass
// that mode to Write instead.
func WriteUmask(name string, data []byte, perm fs.FileMode) error {
	return write(name, data, perm, durable)
}

// WriteCache is Write without the syncs, for a cache whose loss in a crash
// costs only time: readers still see the old or the new content, and a
// failed write leaves the old file. Syncing costs milliseconds a file.
func WriteCache(name string, data []byte, perm fs.FileMode) error {
	return write(name, data, perm, exactMode)
}

type flags int

const (
	exactMode flags = 1 << iota // chmod to perm, ignoring the umask
	durable                     // sync the file and the folder
)

func write(name string, data []byte, perm fs.FileMode, f flags) (err error) {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create folder for %s: %w", name, err)
	}
	tmp, err := createTemp(dir, filepath.Base(name), perm)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if f&exactMode != 0 {
		if err := tmp.Chmod(perm); err != nil {
			return fmt.Errorf("set permissions of %s: %w", tmp.Name(), err)
		}
	}
	if f&durable != 0 {
		if err := tmp.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", tmp.Name(), err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		return err // a *LinkError naming both paths
	}
	if f&durable != 0 {
		syncDir(dir)
	}
	return nil
}

// createTemp creates a new hidden file ".<base>.<random>.tmp" in dir. Unlike
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
