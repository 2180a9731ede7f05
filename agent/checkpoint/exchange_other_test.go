//go:build unix && !linux

package checkpoint

import "golang.org/x/sys/unix"

// exchange: only Linux swaps two paths in one step (RENAME_EXCHANGE).
func exchange(a, b string) error { return unix.ENOSYS }
