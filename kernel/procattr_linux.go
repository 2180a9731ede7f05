package kernel

import "syscall"

// serverProcAttr puts the server in its own process group and has the
// kernel SIGKILL it when the thread that started it (and so our process) dies.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
