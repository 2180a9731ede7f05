//go:build !unix

package mcp

import (
	"os/exec"
	"syscall"
)

func ownGroup(*exec.Cmd) {}

func signalGroup(int, syscall.Signal) bool { return false }

const (
	sigTerm = syscall.Signal(15)
	sigKill = syscall.Signal(9)
)
