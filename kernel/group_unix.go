//go:build unix

package kernel

import (
	"os"
	"syscall"
)

// termGroup asks the process group led by pid to stop (SIGTERM).
func termGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGTERM) }

// killGroup ends the process group led by pid (SIGKILL).
func killGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }

// interruptGroup interrupts the process group led by pid (SIGINT).
func interruptGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGINT) }

// locksDirs: a state directory is locked (flock) while its server runs.
const locksDirs = true

// lockDir takes an exclusive lock on the directory; it fails when another
// process holds one.
func lockDir(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
