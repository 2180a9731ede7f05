//go:build unix

package nofollow

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// OpenDir opens the folder abs (absolute and clean, with the links in it
// resolved) one component at a time without following symbolic links, so
// a link swapped in after the path was resolved cannot redirect what is
// done in it. With create, missing folders are made (0755 less the umask).
func OpenDir(abs string, create bool) (*os.File, error) {
	root, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: "/", Err: err}
	}
	defer unix.Close(root)
	var names []string
	for _, name := range strings.Split(strings.TrimPrefix(abs, "/"), "/") {
		if name != "" {
			names = append(names, name)
		}
	}
	fd, n, err := Walk(root, names, create)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: "/" + strings.Join(names[:min(n+1, len(names))], "/"), Err: err}
	}
	return os.NewFile(uintptr(fd), abs), nil
}

// Walk opens the folders names, each inside the one before, starting in
// the open folder dirfd (left open), one component at a time and without
// following symbolic links; with create, missing folders are made (0755
// less the umask). It returns a new descriptor of the last folder (of
// dirfd itself for no names), or the index of the name it could not open
// and why: ErrLinkSwapped where a symbolic link stands.
func Walk(dirfd int, names []string, create bool) (fd, failed int, err error) {
	if fd, err = unix.Dup(dirfd); err != nil {
		return -1, 0, err
	}
	unix.CloseOnExec(fd)
	for i, name := range names {
		next, err := openDir(fd, name)
		if errors.Is(err, unix.ENOENT) && create {
			if err = unix.Mkdirat(fd, name, 0o755); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = openDir(fd, name)
			}
		}
		if err != nil {
			var st unix.Stat_t
			if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				err = ErrLinkSwapped
			}
			unix.Close(fd)
			return -1, i, err
		}
		unix.Close(fd)
		fd = next
	}
	return fd, len(names), nil
}

func openDir(dirfd int, name string) (int, error) {
	return unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}

// Open opens name in dir without following a final symbolic link and
// without blocking on a FIFO.
func Open(dir *os.File, name string, flag int, perm fs.FileMode) (*os.File, error) {
	fd, err := unix.Openat(int(dir.Fd()), name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, uint32(perm.Perm()))
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			err = ErrLinkSwapped
		}
		return nil, &fs.PathError{Op: "open", Path: filepath.Join(dir.Name(), name), Err: err}
	}
	// Regular files ignore O_NONBLOCK; clear it all the same.
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: filepath.Join(dir.Name(), name), Err: err}
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir.Name(), name)), nil
}

// Mode returns the type and permission bits of name in dir, not
// following a symbolic link.
func Mode(dir *os.File, name string) (fs.FileMode, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, &fs.PathError{Op: "stat", Path: filepath.Join(dir.Name(), name), Err: err}
	}
	return FileMode(uint32(st.Mode)), nil
}

// Rename renames from to to, both in dir; a link at to is replaced, not
// followed.
func Rename(dir *os.File, from, to string) error {
	if err := unix.Renameat(int(dir.Fd()), from, int(dir.Fd()), to); err != nil {
		return &os.LinkError{Op: "rename", Old: filepath.Join(dir.Name(), from), New: filepath.Join(dir.Name(), to), Err: err}
	}
	return nil
}

// Remove removes the file name in dir.
func Remove(dir *os.File, name string) error {
	return unix.Unlinkat(int(dir.Fd()), name, 0)
}
