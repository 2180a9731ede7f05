//go:build !unix

package kernel

import (
	"errors"
	"syscall"
)

// Without Unix signals the tests that send them fail with this error; they
// only have to build here (make lint's cross-compiled go vet).
const (
	sigKill = syscall.Signal(9)
	sigStop = syscall.Signal(19)
	sigCont = syscall.Signal(18)
)

func signal(int, syscall.Signal) error {
	return errors.New("sending a signal needs a Unix system")
}

func ownGroupAttr() *syscall.SysProcAttr { return nil }
