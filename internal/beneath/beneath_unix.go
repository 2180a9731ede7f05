//go:build unix

package beneath

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/freeact/desktop/internal/atomicfile"
	"github.com/freeact/desktop/internal/nofollow"
)

// Root is an open root folder.
type Root struct {
	fd   int
	path string
}

// Open opens the root folder path. The path itself is trusted (links in it
// are followed once, now); nothing below it is.
func Open(path string) (*Root, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return &Root{fd: fd, path: path}, nil
}

// Close closes the root.
func (r *Root) Close() error { return unix.Close(r.fd) }

// split checks rel and returns its folder components and its name.
func split(rel string) ([]string, string, error) {
	parts := strings.Split(rel, "/")
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.ContainsRune(p, 0) {
			return nil, "", fmt.Errorf("%q: %w", rel, ErrNotBeneath)
		}
	}
	return parts[:len(parts)-1], parts[len(parts)-1], nil
}

// dir opens the folder of rel below the root without following links,
// making missing folders (0755 less the umask) with create, and returns
// it with rel's last name.
func (r *Root) dir(rel string, create bool) (*os.File, string, error) {
	dirs, name, err := split(rel)
	if err != nil {
		return nil, "", err
	}
	fd, n, err := nofollow.Walk(r.fd, dirs, create)
	if err != nil {
		return nil, "", &fs.PathError{Op: "open", Path: strings.Join(dirs[:min(n+1, len(dirs))], "/"), Err: linkErr(err)}
	}
	return os.NewFile(uintptr(fd), filepath.Join(r.path, filepath.FromSlash(strings.Join(dirs, "/")))), name, nil
}

// linkErr says ErrLinkSwapped, in this package's words, for a symbolic
// link where a folder is needed.
func linkErr(err error) error {
	if errors.Is(err, nofollow.ErrLinkSwapped) {
		return ErrLinkSwapped
	}
	return err
}

func joinRel(a, b string) string {
	if a == "" {
		return b
	}
	return a + "/" + b
}

// WriteFile replaces rel's content with data in one step (a temporary file
// renamed over it), making missing folders; the file gets exactly perm. A
// link at rel is replaced, not followed.
func (r *Root) WriteFile(rel string, data []byte, perm fs.FileMode) error {
	d, name, err := r.dir(rel, true)
	if err != nil {
		return err
	}
	defer d.Close()
	return atomicfile.WriteIn(d, name, data, perm, true)
}

// Symlink makes rel a symbolic link to target, replacing what is there
// unless it is a folder.
func (r *Root) Symlink(target, rel string) error {
	d, name, err := r.dir(rel, true)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := unix.Unlinkat(int(d.Fd()), name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return &fs.PathError{Op: "remove", Path: rel, Err: err}
	}
	if err := unix.Symlinkat(target, int(d.Fd()), name); err != nil {
		return &fs.PathError{Op: "symlink", Path: rel, Err: err}
	}
	return nil
}

// Remove removes the file or link rel (never a folder, never what a link
// points to). A missing rel, or a missing folder on the way, is
// fs.ErrNotExist.
func (r *Root) Remove(rel string) error {
	d, name, err := r.dir(rel, false)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := unix.Unlinkat(int(d.Fd()), name, 0); err != nil {
		return &fs.PathError{Op: "remove", Path: rel, Err: err}
	}
	return nil
}

// RemoveDir removes the folder rel when it is empty.
func (r *Root) RemoveDir(rel string) error {
	d, name, err := r.dir(rel, false)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := unix.Unlinkat(int(d.Fd()), name, unix.AT_REMOVEDIR); err != nil {
		return &fs.PathError{Op: "remove", Path: rel, Err: err}
	}
	return nil
}

// MkdirAll makes the folder rel and its missing parents, and gives rel
// exactly perm.
func (r *Root) MkdirAll(rel string, perm fs.FileMode) error {
	d, name, err := r.dir(rel, true)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := unix.Mkdirat(int(d.Fd()), name, uint32(perm.Perm())); err != nil && !errors.Is(err, unix.EEXIST) {
		return &fs.PathError{Op: "mkdir", Path: rel, Err: err}
	}
	fd, _, err := nofollow.Walk(int(d.Fd()), []string{name}, false)
	if err != nil {
		return &fs.PathError{Op: "open", Path: rel, Err: linkErr(err)}
	}
	defer unix.Close(fd)
	if err := unix.Fchmod(fd, uint32(perm.Perm())); err != nil {
		return &fs.PathError{Op: "chmod", Path: rel, Err: err}
	}
	return nil
}

// Lstat returns the type and permission bits and the size of rel, not
// following a link.
func (r *Root) Lstat(rel string) (fs.FileMode, int64, error) {
	d, name, err := r.dir(rel, false)
	if err != nil {
		return 0, 0, err
	}
	defer d.Close()
	var st unix.Stat_t
	if err := unix.Fstatat(int(d.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, 0, &fs.PathError{Op: "lstat", Path: rel, Err: err}
	}
	return nofollow.FileMode(uint32(st.Mode)), st.Size, nil
}

// ReadFile reads at most limit bytes of the regular file rel; a link or
// anything else at rel is an error.
func (r *Root) ReadFile(rel string, limit int64) ([]byte, error) {
	d, name, err := r.dir(rel, false)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	f, err := nofollow.Open(d, name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", rel, nofollow.ErrNotRegular)
	}
	return io.ReadAll(io.LimitReader(f, limit))
}

// Readlink returns the target of the link rel.
func (r *Root) Readlink(rel string) (string, error) {
	d, name, err := r.dir(rel, false)
	if err != nil {
		return "", err
	}
	defer d.Close()
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(int(d.Fd()), name, buf)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: rel, Err: err}
	}
	return string(buf[:n]), nil
}

// RemoveTemps removes the temporary files that a write of rel cut short
// left beside it (internal/atomicfile names them .NAME.XXXXXXXX.tmp),
// reached like every other path: without following links.
func (r *Root) RemoveTemps(rel string) error {
	d, name, err := r.dir(rel, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer d.Close()
	// A new open of the folder: d may share its read offset with the
	// root's descriptor (a dup), which an earlier listing moved.
	lfd, err := unix.Openat(int(d.Fd()), ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &fs.PathError{Op: "open", Path: d.Name(), Err: err}
	}
	list := os.NewFile(uintptr(lfd), d.Name())
	names, err := list.Readdirnames(-1)
	list.Close()
	if err != nil {
		return fmt.Errorf("list %s: %w", d.Name(), err)
	}
	var errs []error
	for _, n := range names {
		if isTemp(n, name) {
			if err := unix.Unlinkat(int(d.Fd()), n, 0); err != nil && !errors.Is(err, unix.ENOENT) {
				errs = append(errs, &fs.PathError{Op: "remove", Path: joinRel(parentRel(rel), n), Err: err})
			}
		}
	}
	return errors.Join(errs...)
}

func parentRel(rel string) string {
	if i := strings.LastIndex(rel, "/"); i >= 0 {
		return rel[:i]
	}
	return ""
}
