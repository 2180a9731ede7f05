//go:build unix

package checkpoint

import (
	"io"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// dirHandle is an open folder. Its entries are looked at relative to it
// (fstatat, openat), which spares the kernel resolving each file's whole
// path and keeps the walk inside the folder when a parent is swapped for a
// symbolic link meanwhile.
type dirHandle struct{ f *os.File }

func openDir(path string) (dirHandle, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return dirHandle{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return dirHandle{os.NewFile(uintptr(fd), path)}, nil
}

func (d dirHandle) fd() int { return int(d.f.Fd()) }

func (d dirHandle) sub(name string) (dirHandle, error) {
	fd, err := unix.Openat(d.fd(), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return dirHandle{}, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return dirHandle{os.NewFile(uintptr(fd), name)}, nil
}

func (d dirHandle) close() { d.f.Close() }

func (d dirHandle) names() ([]string, error) { return d.f.Readdirnames(-1) }

func (d dirHandle) lstat(name string) (statKey, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd(), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return statKey{}, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	mode := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFREG:
	default:
		mode |= fs.ModeIrregular
	}
	return statKey{
		size: st.Size, mtime: unix.TimespecToNsec(st.Mtim), ctime: unix.TimespecToNsec(st.Ctim),
		ino: uint64(st.Ino), mode: mode,
	}, nil
}

// readFile reads a regular file of the folder, at most limit bytes.
func (d dirHandle) readFile(name string, limit int64) ([]byte, error) {
	fd, err := unix.Openat(d.fd(), name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

func (d dirHandle) readlink(name string) (string, error) {
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(d.fd(), name, buf)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	return string(buf[:n]), nil
}
