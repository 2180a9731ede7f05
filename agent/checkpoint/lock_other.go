//go:build !unix

package checkpoint

import (
	"context"
	"os"
)

// fileLock does nothing where flock is missing: one process at a time.
type fileLock struct{ path string }

func (l *fileLock) lock(context.Context) (func(), error) { return func() {}, nil }

// holdOwner and ownerAlive: without flock, an owner is taken for dead once
// its store is reopened.
func holdOwner(path string) (*os.File, error) { return os.Create(path) }

func ownerAlive(string) bool { return false }

func lockWait(_ context.Context, path string, _ func(int)) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
}
