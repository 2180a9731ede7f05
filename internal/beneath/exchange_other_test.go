//go:build unix && !linux

package beneath

import "golang.org/x/sys/unix"

// exchange: only Linux swaps two paths in one step (RENAME_EXCHANGE).
func exchange(a, b string) error { return unix.ENOSYS }
