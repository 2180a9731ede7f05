package kernel

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// privatePrefix starts the name of a server's private state directory.
const privatePrefix = "server-"

// staleAfter is how long an unlocked private directory must have been left
// alone before it counts as left behind (a new one is unlocked for the
// instant between its creation and its lock).
const staleAfter = 10 * time.Second

// stateDir is a server's private state directory: the directory is locked
// (flock) for as long as the server runs, so other processes can tell it
// from one a dead process left behind.
type stateDir struct {
	path string
	lock *os.File
}

// newStateDir removes the private directories under base that no running
// server holds, then makes and locks a new one.
func newStateDir(base string) (*stateDir, error) {
	if err := os.MkdirAll(base, 0o700); err != nil {
		return nil, fmt.Errorf("create state directory: %w", err)
	}
	removeStale(base)
	path, err := os.MkdirTemp(base, privatePrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, fmt.Errorf("create state directory: %w", err)
	}
	lock, err := lockDir(path)
	if err != nil {
		_ = os.RemoveAll(path)
		return nil, fmt.Errorf("lock state directory %s: %w", path, err)
	}
	return &stateDir{path: path, lock: lock}, nil
}

// removeStale deletes private directories that no process holds and that
// nothing has changed for a while. Errors are ignored: a directory that
// cannot be removed now is tried again at the next start.
func removeStale(base string) {
	if !locksDirs {
		return
	}
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), privatePrefix) {
			continue
		}
		path := filepath.Join(base, e.Name())
		info, err := os.Stat(path)
		if err != nil || time.Since(info.ModTime()) < staleAfter {
			continue
		}
		f, err := lockDir(path)
		if err != nil {
			continue // held by a running server
		}
		_ = os.RemoveAll(path)
		f.Close()
	}
}

// remove deletes the directory and lets go of its lock.
func (d *stateDir) remove() error {
	err := os.RemoveAll(d.path)
	if cerr := d.lock.Close(); err == nil && !errors.Is(cerr, os.ErrClosed) {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("remove state directory: %w", err)
	}
	return nil
}
