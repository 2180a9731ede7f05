//go:build unix

package nofollow

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// FileMode reads st_mode as os.Lstat does.
func TestFileMode(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	link := filepath.Join(dir, "l")
	fifo := filepath.Join(dir, "p")
	if err := os.WriteFile(file, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, file, link, fifo, "/dev/null"} {
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		info, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		want := info.Mode() &^ (os.ModeSetuid | os.ModeSetgid | os.ModeSticky)
		if got := FileMode(uint32(st.Mode)); got != want {
			t.Errorf("%s: %v, want %v", p, got, want)
		}
	}
}
