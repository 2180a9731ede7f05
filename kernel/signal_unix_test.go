//go:build unix

package kernel

import "syscall"

// Signals the tests send to kernels and servers (a negative pid: the
// process group it leads).
const (
	sigKill = syscall.SIGKILL
	sigStop = syscall.SIGSTOP
	sigCont = syscall.SIGCONT
)

func signal(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

// ownGroupAttr runs a test's process in a process group of its own.
func ownGroupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
