package remotetest

import "syscall"

// serverProcAttr: the server's own process group, SIGKILLed when the
// test's thread dies.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup SIGKILLs the process group led by pid.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }

// kill SIGKILLs the process pid.
func kill(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }
