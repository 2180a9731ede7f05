//go:build unix

package mcp_test

import "syscall"

// exists reports whether a process pid exists (signal 0).
func exists(pid int) bool { return syscall.Kill(pid, 0) == nil }
