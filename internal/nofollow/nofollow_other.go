//go:build !unix

package nofollow

import (
	"io/fs"
	"os"
	"path/filepath"
)

// On platforms without openat the folder is opened by path: a symbolic
// link swapped in after the path was resolved is followed there; callers'
// own checks (agent/files compares the path with the approved one) remain.

// OpenDir opens the folder abs, making it with create.
func OpenDir(abs string, create bool) (*os.File, error) {
	if create {
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return nil, err
		}
	}
	return os.Open(abs)
}

// Open opens name in dir.
func Open(dir *os.File, name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(filepath.Join(dir.Name(), name), flag, perm)
}

// Mode returns the type and permission bits of name in dir.
func Mode(dir *os.File, name string) (fs.FileMode, error) {
	info, err := os.Lstat(filepath.Join(dir.Name(), name))
	if err != nil {
		return 0, err
	}
	return info.Mode(), nil
}

// Rename renames from to to, both in dir.
func Rename(dir *os.File, from, to string) error {
	return os.Rename(filepath.Join(dir.Name(), from), filepath.Join(dir.Name(), to))
}

// Remove removes the file name in dir.
func Remove(dir *os.File, name string) error {
	return os.Remove(filepath.Join(dir.Name(), name))
}
