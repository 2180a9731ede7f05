//go:build !unix

package kernel

import (
	"errors"
	"os"
	"syscall"
)

// Without Unix process groups (Windows) a local server is one process:
// stopping it ends that process alone (its kernels exit when they see it
// gone, JPY_PARENT_PID). A kernel whose spec asks for interrupts by
// signal cannot be interrupted: ipykernel there watches a Win32 event
// instead (JPY_INTERRUPT_EVENT), which this package does not create yet.
var errNoGroups = errors.New("process groups need a Unix system")

func serverProcAttr() *syscall.SysProcAttr { return nil }

func termGroup(int) error { return errNoGroups }

func killGroup(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

func interruptGroup(int) error {
	return errors.New("interrupting a local kernel needs a Unix system (SIGINT to its process group); " +
		"on this system stop the cell by restarting the kernel")
}

// locksDirs: without flock a state directory cannot be locked, so none
// counts as left behind (removeStale keeps them all: a known leak on
// Windows until it gets a lock of its own).
const locksDirs = false

// lockDir opens the directory without a lock; the open handle keeps
// Windows from deleting it while the server runs.
func lockDir(path string) (*os.File, error) { return os.Open(path) }
