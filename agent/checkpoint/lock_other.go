//go:build !unix

package checkpoint

import "context"

// fileLock does nothing where flock is missing: one process at a time.
type fileLock struct{ path string }

func (l *fileLock) lock(context.Context) (func(), error) { return func() {}, nil }
