//go:build unix && !linux

package kernel

import "syscall"

// serverProcAttr puts the server in its own process group. Without
// Pdeathsig, a server whose owner was killed is stopped by nobody; its
// kernels still exit when it does.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
