//go:build unix

package beneath

import (
	"errors"
	"github.com/freeact/desktop/internal/testenv"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// layout makes ws (the root) and out (a folder outside it holding a file
// and mode 0700), and returns both.
func layout(t *testing.T) (ws, out string) {
	t.Helper()
	base := t.TempDir()
	ws, out = filepath.Join(base, "ws"), filepath.Join(base, "out")
	for _, d := range []string{ws, out} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(out, "x"), []byte("outside"), 0o600); err != nil {
		t.Fatal(err)
	}
	return ws, out
}

// Every operation refuses a path through a link, even one pointing
// inside the root, and paths that are not plainly below it; nothing
// outside changes.
func TestRefusesLinksAndEscapes(t *testing.T) {
	ws, out := layout(t)
	if err := os.Symlink(out, filepath.Join(ws, "cfg")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(ws, ".freeact"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".freeact", filepath.Join(ws, "inner")); err != nil {
		t.Fatal(err)
	}
	before, beforeIn := testenv.Tree(t, out), testenv.Tree(t, filepath.Join(ws, ".freeact"))
	r, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ops := map[string]func(rel string) error{
		"write":     func(rel string) error { return r.WriteFile(rel, []byte("evil"), 0o666) },
		"symlink":   func(rel string) error { return r.Symlink("/etc/passwd", rel) },
		"remove":    r.Remove,
		"removedir": r.RemoveDir,
		"mkdir":     func(rel string) error { return r.MkdirAll(rel, 0o777) },
		"read":      func(rel string) error { _, err := r.ReadFile(rel, 100); return err },
		"lstat":     func(rel string) error { _, _, err := r.Lstat(rel); return err },
	}
	for name, op := range ops {
		for _, tc := range []struct {
			rel  string
			want error
		}{
			{"cfg/x", ErrLinkSwapped},
			{"inner/permissions.json", ErrLinkSwapped},
			{"../out/x", ErrNotBeneath},
			{"a/../../out/x", ErrNotBeneath},
			{"/etc/passwd", ErrNotBeneath},
			{"./x", ErrNotBeneath},
			{"", ErrNotBeneath},
		} {
			if err := op(tc.rel); !errors.Is(err, tc.want) {
				t.Errorf("%s %q: %v, want %v", name, tc.rel, err, tc.want)
			}
		}
	}
	// The final name may be a link: it is replaced or removed, never
	// followed.
	if err := r.WriteFile("cfg", []byte("plain"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(ws, "cfg2")); err != nil {
		t.Fatal(err)
	}
	if err := r.MkdirAll("cfg2", 0o777); err == nil {
		t.Error("MkdirAll over a link: no error")
	}
	if err := r.RemoveDir("cfg2"); err == nil {
		t.Error("RemoveDir of a link: no error")
	}
	if err := r.Remove("cfg2"); err != nil {
		t.Fatal(err)
	}
	if got := testenv.Tree(t, out); got != before {
		t.Errorf("outside changed:\n%s\nwas\n%s", got, before)
	}
	if got := testenv.Tree(t, filepath.Join(ws, ".freeact")); got != beforeIn {
		t.Errorf(".freeact changed:\n%s\nwas\n%s", got, beforeIn)
	}
}

// The operations do what they say below the root.
func TestOperations(t *testing.T) {
	ws, _ := layout(t)
	r, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.WriteFile("a/b/c.txt", []byte("hi"), 0o640); err != nil {
		t.Fatal(err)
	}
	if data, err := r.ReadFile("a/b/c.txt", 10); err != nil || string(data) != "hi" {
		t.Fatalf("read: %q %v", data, err)
	}
	if mode, size, err := r.Lstat("a/b/c.txt"); err != nil || mode != 0o640 || size != 2 {
		t.Fatalf("lstat: %v %d %v", mode, size, err)
	}
	if err := r.Symlink("c.txt", "a/b/l"); err != nil {
		t.Fatal(err)
	}
	if target, err := r.Readlink("a/b/l"); err != nil || target != "c.txt" {
		t.Fatalf("readlink: %q %v", target, err)
	}
	if _, err := r.ReadFile("a/b/l", 10); err == nil {
		t.Error("ReadFile followed a link")
	}
	if err := r.MkdirAll("a/d", 0o700); err != nil {
		t.Fatal(err)
	}
	if mode, _, _ := r.Lstat("a/d"); mode != fs.ModeDir|0o700 {
		t.Errorf("a/d: %v", mode)
	}
	if err := r.RemoveDir("a/b"); err == nil {
		t.Error("RemoveDir removed a folder holding files")
	}
	for _, p := range []string{"a/b/c.txt", "a/b/l"} {
		if err := r.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.RemoveDir("a/b"); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove("a/b/c.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("remove in a missing folder: %v", err)
	}
}

// TestSwapRace flips a folder and a symbolic link to a folder outside the
// root thousands of times (an atomic exchange of the two names) while
// files below the folder are written, chmod-ed, linked and removed:
// nothing outside is ever written, removed or chmod-ed.
func TestSwapRace(t *testing.T) {
	ws, out := layout(t)
	if err := os.Mkdir(filepath.Join(ws, "cfg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(ws, "swap")); err != nil {
		t.Fatal(err)
	}
	before := testenv.Tree(t, out)
	r, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	a, b := filepath.Join(ws, "cfg"), filepath.Join(ws, "swap")
	flip := func() error { return exchange(a, b) }
	if err := flip(); errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) {
		// No exchange here: swap by two renames.
		flip = func() error {
			if err := os.Rename(a, a+".t"); err != nil {
				return err
			}
			if err := os.Rename(b, a); err != nil {
				return err
			}
			return os.Rename(a+".t", b)
		}
	} else if err != nil {
		t.Fatal(err)
	}
	const rounds = 3000
	done := make(chan struct{})
	var wg sync.WaitGroup
	var flips int
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			if err := flip(); err != nil {
				t.Error(err)
				return
			}
			flips++
		}
	}()
	var landed int
	for i := range rounds {
		var err error
		switch i % 5 {
		case 0:
			err = r.WriteFile("cfg/x", []byte("evil"), 0o666)
		case 1:
			err = r.MkdirAll("cfg", 0o777)
		case 2:
			err = r.Remove("cfg/x")
		case 3:
			err = r.Symlink("/", "cfg/link")
		case 4:
			err = r.Remove("cfg/link")
		}
		if err == nil {
			landed++
		}
	}
	close(done)
	wg.Wait()
	if got := testenv.Tree(t, out); got != before {
		t.Fatalf("outside changed after %d flips:\n%s\nwas\n%s", flips, got, before)
	}
	if flips < 100 || landed == 0 {
		t.Fatalf("the race did not run: %d flips, %d operations done", flips, landed)
	}
	t.Logf("%d flips, %d of %d operations done", flips, landed, rounds)
}

// RemoveTemps removes only atomicfile's temporaries of the one name, and
// never through a folder swapped for a link.
func TestRemoveTemps(t *testing.T) {
	ws, out := layout(t)
	for _, n := range []string{"d/.a.txt.0123abcd.tmp", "d/.a.txt..tmp", "d/.b.txt.0123abcd.tmp", "d/a.txt"} {
		p := filepath.Join(ws, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(out, ".a.txt.0123abcd.tmp")
	if err := os.WriteFile(outside, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	r, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.RemoveTemps("d/a.txt"); err != nil {
		t.Fatal(err)
	}
	for n, want := range map[string]bool{"d/.a.txt.0123abcd.tmp": false, "d/.a.txt..tmp": true, "d/.b.txt.0123abcd.tmp": true, "d/a.txt": true} {
		if _, err := os.Lstat(filepath.Join(ws, filepath.FromSlash(n))); (err == nil) != want {
			t.Errorf("%s: present = %v, want %v", n, err == nil, want)
		}
	}
	// Twice in one folder: each call lists it anew.
	if err := os.WriteFile(filepath.Join(ws, ".top.0123abcd.tmp"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".other.0123abcd.tmp"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"top", "other"} {
		if err := r.RemoveTemps(n); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(filepath.Join(ws, "."+n+".0123abcd.tmp")); err == nil {
			t.Errorf("the temporary of %s is still there", n)
		}
	}
	if err := r.RemoveTemps("link/a.txt"); !errors.Is(err, ErrLinkSwapped) {
		t.Errorf("through a link: %v, want ErrLinkSwapped", err)
	}
	if _, err := os.Lstat(outside); err != nil {
		t.Errorf("a temporary outside was removed through the link: %v", err)
	}
	if err := r.RemoveTemps("missing/a.txt"); err != nil {
		t.Errorf("a missing folder: %v", err)
	}
}
