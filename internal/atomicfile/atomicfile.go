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

	"github.com/freeact/desktop/internal/crashpoint"
	"github.com/freeact/desktop/internal/nofollow"
)

// Write replaces name's content with data, creating name and its missing
// parent folders (0755 less the umask). The file ends up with exactly perm,
// whatever the umask: use it for files the program owns (settings,
// credentials).
func Write(name string, data []byte, perm fs.FileMode) error {
	return writePath(name, data, perm, exactMode|durable)
}

// WriteUmask is Write for files a user owns: a new file gets perm less the
// umask, as os.WriteFile gives it. To keep an existing file's mode, pass
// that mode to Write instead.
func WriteUmask(name string, data []byte, perm fs.FileMode) error {
	return writePath(name, data, perm, durable)
}

// WriteCache is Write without the syncs, for a cache whose loss in a crash
// costs only time: readers still see the old or the new content, and a
// failed write leaves the old file. Syncing costs milliseconds a file.
func WriteCache(name string, data []byte, perm fs.FileMode) error {
	return writePath(name, data, perm, exactMode)
}

func writePath(name string, data []byte, perm fs.FileMode, f flags) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create folder for %s: %w", name, err)
	}
	return write(folder{path: dir}, filepath.Base(name), data, perm, f)
}

// WriteIn is Write for a file named name in the folder dir, opened with
// internal/nofollow: the temporary file is made and renamed relative to
// dir without following links, so what was checked about the folder's
// path holds for the write. With exact the file gets exactly perm, else
// perm less the umask. It does not check what is at name now: a rename
// replaces a file or a link there, and callers refuse what they must
// before.
func WriteIn(dir *os.File, name string, data []byte, perm fs.FileMode, exact bool) error {
	f := durable
	if exact {
		f |= exactMode
	}
	return write(folder{dir: dir}, name, data, perm, f)
}

type flags int

const (
	exactMode flags = 1 << iota // chmod to perm, ignoring the umask
	durable                     // sync the file and the folder
)

// folder is where a write happens: a path, or an open folder.
type folder struct {
	path string
	dir  *os.File
}

func (d folder) name(base string) string {
	if d.dir != nil {
		return filepath.Join(d.dir.Name(), base)
	}
	return filepath.Join(d.path, base)
}

func (d folder) create(base string, perm fs.FileMode) (*os.File, error) {
	flag := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if d.dir != nil {
		return nofollow.Open(d.dir, base, flag, perm)
	}
	return os.OpenFile(d.name(base), flag, perm)
}

func (d folder) rename(from, to string) error {
	if d.dir != nil {
		return nofollow.Rename(d.dir, from, to)
	}
	return os.Rename(d.name(from), d.name(to))
}

func (d folder) remove(base string) {
	if d.dir != nil {
		_ = nofollow.Remove(d.dir, base)
		return
	}
	os.Remove(d.name(base))
}

// sync makes a rename in the folder durable where the platform supports
// it; failure only weakens durability, so it is ignored.
func (d folder) sync() {
	if d.dir != nil {
		_ = d.dir.Sync()
		return
	}
	if f, err := os.Open(d.path); err == nil {
		_ = f.Sync()
		f.Close()
	}
}

func write(d folder, base string, data []byte, perm fs.FileMode, f flags) (err error) {
	if f&durable != 0 {
		crashpoint.Hit("atomicfile.begin")
	}
	tmp, tmpBase, err := createTemp(d, base, perm)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			d.remove(tmpBase)
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
	if f&durable != 0 {
		crashpoint.Hit("atomicfile.write")
	} else {
		crashpoint.Hit("atomicfile.cache")
	}
	if err := d.rename(tmpBase, base); err != nil {
		return err // a *LinkError naming both paths
	}
	if f&durable != 0 {
		d.sync()
	}
	return nil
}

// createTemp creates a new hidden file ".<base>.<random>.tmp" in d and
// returns it with its name in d. Unlike os.CreateTemp it takes the mode, so
// a new file's permissions come out as os.WriteFile's would (mode less the
// umask).
func createTemp(d folder, base string, mode fs.FileMode) (*os.File, string, error) {
	for range 100 {
		name := fmt.Sprintf(".%s.%08x.tmp", base, rand.Uint32())
		f, err := d.create(name, mode)
		if !errors.Is(err, fs.ErrExist) {
			return f, name, err
		}
	}
	return nil, "", fmt.Errorf("create a temporary file in %s: too many name collisions", d.name(""))
}
