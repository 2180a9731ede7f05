//go:build unix

package checkpoint

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"
)

// fileLock serialises writers of a store across processes (the desktop app
// and a `freeact checkpoints` command, say) with flock.
type fileLock struct {
	path string
	f    *os.File
}

func (l *fileLock) lock(ctx context.Context) error {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("lock checkpoints: %w", err)
	}
	for delay := time.Millisecond; ; delay = min(delay*2, 100*time.Millisecond) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			l.f = f
			return nil
		}
		if err != syscall.EWOULDBLOCK && err != syscall.EINTR {
			f.Close()
			return fmt.Errorf("lock checkpoints: %w", err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return fmt.Errorf("lock checkpoints: %w", ctx.Err())
		case <-time.After(delay):
		}
	}
}

func (l *fileLock) unlock() {
	if l.f != nil {
		_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
		l.f.Close()
		l.f = nil
	}
}
