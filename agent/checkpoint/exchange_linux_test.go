package checkpoint

import "golang.org/x/sys/unix"

// exchange swaps the paths a and b in one step (RENAME_EXCHANGE).
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
