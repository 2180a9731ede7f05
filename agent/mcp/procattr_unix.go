//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// ownGroup runs cmd in a process group of its own, so that Close can end
// the server together with the processes it started (npx starts node...).
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// signalGroup sends sig to the process group led by pid; it reports whether
// the group still existed.
func signalGroup(pid int, sig syscall.Signal) bool {
	return syscall.Kill(-pid, sig) == nil
}

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)
