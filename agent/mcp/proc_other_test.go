//go:build !unix

package mcp_test

import "os"

// exists: os.FindProcess opens the process on Windows, so it fails once
// the process is gone.
func exists(pid int) bool {
	p, err := os.FindProcess(pid)
	if err == nil {
		_ = p.Release()
	}
	return err == nil
}
