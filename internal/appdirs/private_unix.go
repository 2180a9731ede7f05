//go:build unix

package appdirs

import (
	"fmt"
	"os"
	"syscall"
)

// checkPrivate checks that dir is a folder (not a link) owned by this
// user with no access for others.
func checkPrivate(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s is not a folder: remove it", dir)
	case ok && int(st.Uid) != os.Getuid():
		return fmt.Errorf("%s belongs to another user (uid %d): remove it, or set XDG_RUNTIME_DIR", dir, st.Uid)
	case fi.Mode().Perm()&0o077 != 0:
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("%s is open to others (%v) and cannot be closed: %w", dir, fi.Mode().Perm(), err)
		}
	}
	return nil
}
