//go:build unix

package atomicfile_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/freeact/desktop/internal/atomicfile"
)

func TestWriteModes(t *testing.T) {
	old := syscall.Umask(0o077)
	t.Cleanup(func() { syscall.Umask(old) })
	dir := t.TempDir()
	exact := filepath.Join(dir, "exact")
	if err := atomicfile.Write(exact, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	umasked := filepath.Join(dir, "umasked")
	if err := atomicfile.WriteUmask(umasked, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]os.FileMode{exact: 0o644, umasked: 0o600} {
		if st, err := os.Stat(name); err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", filepath.Base(name), st.Mode().Perm(), err, want)
		}
	}
	// Replacing a file with Write gives it the new mode (credentials stay
	// private even when the old file was readable).
	if err := os.Chmod(exact, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(exact, []byte("y"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(exact); st.Mode().Perm() != 0o600 {
		t.Errorf("replaced file has mode %v, want 0600", st.Mode().Perm())
	}
}
