//go:build !unix

package beneath

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// Without openat the package relies on os.Root, which keeps every path
// below the root but follows links that stay inside it.

// Root is an open root folder.
type Root struct{ r *os.Root }

// Open opens the root folder path.
func Open(path string) (*Root, error) {
	r, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	return &Root{r: r}, nil
}

// Close closes the root.
func (r *Root) Close() error { return r.r.Close() }

func check(rel string) error {
	for _, p := range strings.Split(rel, "/") {
		if p == "" || p == "." || p == ".." {
			return fmt.Errorf("%q: %w", rel, ErrNotBeneath)
		}
	}
	return nil
}

func parent(rel string) string {
	if i := strings.LastIndex(rel, "/"); i >= 0 {
		return rel[:i]
	}
	return "."
}

// WriteFile replaces rel's content, making missing folders.
func (r *Root) WriteFile(rel string, data []byte, perm fs.FileMode) error {
	if err := check(rel); err != nil {
		return err
	}
	if err := r.r.MkdirAll(parent(rel), 0o755); err != nil {
		return err
	}
	tmp := rel + ".freeact-tmp"
	if err := r.r.WriteFile(tmp, data, perm); err != nil {
		return err
	}
	return r.r.Rename(tmp, rel)
}

// Symlink makes rel a symbolic link to target.
func (r *Root) Symlink(target, rel string) error {
	if err := check(rel); err != nil {
		return err
	}
	_ = r.r.Remove(rel)
	return r.r.Symlink(target, rel)
}

// Remove removes the file or link rel.
func (r *Root) Remove(rel string) error {
	if err := check(rel); err != nil {
		return err
	}
	if info, err := r.r.Lstat(rel); err == nil && info.IsDir() {
		return &fs.PathError{Op: "remove", Path: rel, Err: fs.ErrInvalid}
	}
	return r.r.Remove(rel)
}

// RemoveDir removes the folder rel when it is empty.
func (r *Root) RemoveDir(rel string) error {
	if err := check(rel); err != nil {
		return err
	}
	return r.r.Remove(rel)
}

// MkdirAll makes the folder rel and its parents, and gives rel perm.
func (r *Root) MkdirAll(rel string, perm fs.FileMode) error {
	if err := check(rel); err != nil {
		return err
	}
	if err := r.r.MkdirAll(rel, perm); err != nil {
		return err
	}
	return r.r.Chmod(rel, perm)
}

// Lstat returns the mode and size of rel.
func (r *Root) Lstat(rel string) (fs.FileMode, int64, error) {
	if err := check(rel); err != nil {
		return 0, 0, err
	}
	info, err := r.r.Lstat(rel)
	if err != nil {
		return 0, 0, err
	}
	return info.Mode(), info.Size(), nil
}

// ReadFile reads at most limit bytes of the file rel.
func (r *Root) ReadFile(rel string, limit int64) ([]byte, error) {
	if err := check(rel); err != nil {
		return nil, err
	}
	f, err := r.r.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// Readlink returns the target of the link rel.
func (r *Root) Readlink(rel string) (string, error) {
	if err := check(rel); err != nil {
		return "", err
	}
	return r.r.Readlink(rel)
}

// RemoveTemps removes the temporary files that a write of rel cut short
// left beside it (internal/atomicfile names them .NAME.XXXXXXXX.tmp).
func (r *Root) RemoveTemps(rel string) error {
	if err := check(rel); err != nil {
		return err
	}
	dir := parent(rel)
	f, err := r.r.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return err
	}
	base := rel[strings.LastIndex(rel, "/")+1:]
	var errs []error
	for _, n := range names {
		if isTemp(n, base) {
			p := n
			if dir != "." {
				p = dir + "/" + n
			}
			if err := r.r.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
