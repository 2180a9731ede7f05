//go:build unix

package worktree

import (
	"errors"
	"syscall"
)

// processRuns reports whether a process with pid exists (signal 0: no
// signal is sent, only the check).
func processRuns(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
