//go:build !linux

package remotetest

import (
	"os"
	"syscall"
)

// The servers need Linux (unshare, mount namespaces, setpriv): Start
// reports them missing elsewhere. These only keep the package building.

func serverProcAttr() *syscall.SysProcAttr { return nil }

func killGroup(pid int) { kill(pid) }

func kill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
