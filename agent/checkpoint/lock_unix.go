//go:build unix

package checkpoint

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// fileLock serialises writers of a store across processes (the desktop app
// and a `freeact checkpoints` command, say) with flock. Each lock opens the
// file anew: flock locks belong to an open file, so goroutines of one
// process exclude each other too.
type fileLock struct {
	path string
}

// lock waits for the lock; the function it returns releases it.
func (l *fileLock) lock(ctx context.Context) (func(), error) {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock checkpoints: %w", err)
	}
	for delay := time.Millisecond; ; delay = min(delay*2, 100*time.Millisecond) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if err != syscall.EWOULDBLOCK && err != syscall.EINTR {
			f.Close()
			return nil, fmt.Errorf("lock checkpoints: %w", err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock checkpoints: %w", ctx.Err())
		case <-time.After(delay):
		}
	}
}

// holdOwner creates and locks the file that says this process is alive
// while it holds the store open; the kernel drops the lock when the
// process dies, however it dies.
func holdOwner(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	_, _ = fmt.Fprintf(f, "%d\n", os.Getpid())
	return f, nil
}

// ownerAlive reports whether the owner file at path is locked by a living
// process. A missing file is a dead owner.
func ownerAlive(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return err == syscall.EWOULDBLOCK
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// lockWait takes an flock on path, waiting while another process holds
// it: waiting is called once, with the pid the file names, when it must
// wait. The lock is held until the file is closed.
func lockWait(ctx context.Context, path string, waiting func(pid int)) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	told := false
	for delay := time.Millisecond; ; delay = min(delay*2, 100*time.Millisecond) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			if f.Truncate(0) == nil {
				_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
			}
			return f, nil
		}
		if err != syscall.EWOULDBLOCK && err != syscall.EINTR {
			f.Close()
			return nil, err
		}
		if !told && waiting != nil {
			told = true
			data, _ := os.ReadFile(path)
			pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			waiting(pid)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(delay):
		}
	}
}
