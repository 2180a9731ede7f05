//go:build !unix

package files

import (
	"io/fs"
	"os"
	"path/filepath"
)

// On platforms without openat the folder is opened by path: a symbolic
// link swapped in after the path was resolved is followed there. Run's
// check that the path still resolves as approved remains.

func openDir(abs string, create bool) (*os.File, error) {
	if create {
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return nil, err
		}
	}
	return os.Open(abs)
}

func openIn(dir *os.File, name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(filepath.Join(dir.Name(), name), flag, perm)
}

func modeIn(dir *os.File, name string) (fs.FileMode, error) {
	info, err := os.Lstat(filepath.Join(dir.Name(), name))
	if err != nil {
		return 0, err
	}
	return info.Mode(), nil
}

func renameIn(dir *os.File, from, to string) error {
	return os.Rename(filepath.Join(dir.Name(), from), filepath.Join(dir.Name(), to))
}

func removeIn(dir *os.File, name string) error {
	return os.Remove(filepath.Join(dir.Name(), name))
}
