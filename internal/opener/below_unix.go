//go:build unix

package opener

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/freeact/desktop/internal/nofollow"
)

// modeBelow returns the mode of rel (clean, relative, "." for the root
// itself) below root, walking from the root's descriptor one component at
// a time without following a symbolic link (ErrLink where one stands).
func modeBelow(root, rel string) (fs.FileMode, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	defer unix.Close(fd)
	if rel == "." {
		return fs.ModeDir | 0o755, nil
	}
	names := strings.Split(filepath.ToSlash(rel), "/")
	dir, failed, err := nofollow.Walk(fd, names[:len(names)-1], false)
	if err != nil {
		if errors.Is(err, nofollow.ErrLinkSwapped) {
			return 0, ErrLink
		}
		return 0, &fs.PathError{Op: "open", Path: filepath.Join(root, filepath.Join(names[:failed+1]...)), Err: err}
	}
	defer unix.Close(dir)
	var st unix.Stat_t
	if err := unix.Fstatat(dir, names[len(names)-1], &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, &fs.PathError{Op: "stat", Path: filepath.Join(root, rel), Err: err}
	}
	mode := nofollow.FileMode(uint32(st.Mode))
	if mode&fs.ModeSymlink != 0 {
		return 0, ErrLink
	}
	return mode, nil
}
