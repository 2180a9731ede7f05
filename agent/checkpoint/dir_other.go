//go:build !unix

package checkpoint

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// dirHandle is a folder, by path, where openat is missing.
type dirHandle struct{ path string }

func openDir(path string) (dirHandle, error) {
	st, err := os.Stat(path)
	if err != nil {
		return dirHandle{}, err
	}
	if !st.IsDir() {
		return dirHandle{}, &fs.PathError{Op: "open", Path: path, Err: fs.ErrInvalid}
	}
	return dirHandle{path}, nil
}

func (d dirHandle) sub(name string) (dirHandle, error) { return openDir(filepath.Join(d.path, name)) }

func (d dirHandle) close() {}

func (d dirHandle) names() ([]string, error) {
	f, err := os.Open(d.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

func (d dirHandle) lstat(name string) (statKey, error) {
	info, err := os.Lstat(filepath.Join(d.path, name))
	if err != nil {
		return statKey{}, err
	}
	return statKey{size: info.Size(), mtime: info.ModTime().UnixNano(), mode: info.Mode()}, nil
}

func (d dirHandle) readFile(name string, limit int64) ([]byte, error) {
	f, err := os.Open(filepath.Join(d.path, name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

func (d dirHandle) readlink(name string) (string, error) {
	return os.Readlink(filepath.Join(d.path, name))
}
