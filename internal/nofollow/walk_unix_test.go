//go:build unix

package nofollow

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestWalk(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "a", "link")); err != nil {
		t.Fatal(err)
	}
	dirfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(dirfd)
	for _, c := range []struct {
		name   string
		names  []string
		create bool
		failed int
		want   error // nil: reaches the folder
	}{
		{"none", nil, false, 0, nil},
		{"existing", []string{"a", "b"}, false, 2, nil},
		{"missing", []string{"a", "new", "deeper"}, false, 1, unix.ENOENT},
		{"made", []string{"a", "new", "deeper"}, true, 3, nil},
		{"link", []string{"a", "link", "x"}, true, 1, ErrLinkSwapped},
		{"file", []string{"a", "b", "f.txt"}, false, 2, unix.ENOTDIR},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "file" {
				if err := os.WriteFile(filepath.Join(root, "a", "b", "f.txt"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			fd, failed, err := Walk(dirfd, c.names, c.create)
			if failed != c.failed || !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Fatalf("Walk(%q) = failed %d, %v; want %d, %v", c.names, failed, err, c.failed, c.want)
			}
			if err != nil {
				return
			}
			defer unix.Close(fd)
			var got, want unix.Stat_t
			if err := unix.Fstat(fd, &got); err != nil {
				t.Fatal(err)
			}
			if err := unix.Stat(filepath.Join(append([]string{root}, c.names...)...), &want); err != nil {
				t.Fatal(err)
			}
			if got.Ino != want.Ino || got.Dev != want.Dev {
				t.Fatal("the descriptor is not of the folder named")
			}
		})
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 0 {
		t.Fatalf("a folder was made through the link: %v", entries)
	}
}
