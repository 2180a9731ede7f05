//go:build !unix

package worktree

import "os"

// processRuns reports whether a process with pid exists: on Windows,
// finding a process opens it, which fails once it has ended.
func processRuns(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
