//go:build unix

package files

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// Writes and edits keep the permission bits of the file they replace; new
// files get 0644 less the umask.
func TestWriteKeepsMode(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	w := newWorkspace(t)
	for _, mode := range []os.FileMode{0o600, 0o640, 0o755, 0o444} {
		for _, tool := range []string{WriteTextFile, EditTextFile} {
			t.Run(tool+"/"+mode.String(), func(t *testing.T) {
				path := put(t, w, "f.sh", []byte("echo hi\n"))
				must(t, os.Chmod(path, mode))
				var err error
				if tool == WriteTextFile {
					_, err = w.Write(context.Background(), WriteArgs{Path: "f.sh", Content: "echo bye\n"}, false)
				} else {
					_, err = w.Edit(context.Background(), EditArgs{Path: "f.sh", OldText: "hi", NewText: "bye"}, false)
				}
				if err != nil {
					t.Fatal(err)
				}
				info, err := os.Stat(path)
				must(t, err)
				if info.Mode().Perm() != mode {
					t.Errorf("mode %v after %s, want %v", info.Mode().Perm(), tool, mode)
				}
				if got, _ := os.ReadFile(path); string(got) != "echo bye\n" {
					t.Errorf("content %q", got)
				}
			})
		}
	}
	t.Run("new file", func(t *testing.T) {
		syscall.Umask(0o027)
		if _, err := w.Write(context.Background(), WriteArgs{Path: "new/n.txt", Content: "x"}, false); err != nil {
			t.Fatal(err)
		}
		for path, want := range map[string]os.FileMode{"new/n.txt": 0o640, "new": 0o750 | os.ModeDir} {
			info, err := os.Stat(filepath.Join(w.Root(), path))
			must(t, err)
			if info.Mode() != want {
				t.Errorf("%s: mode %v, want %v", path, info.Mode(), want)
			}
		}
	})
}

// A write that fails half-way (here: the kernel refuses to grow a file past
// RLIMIT_FSIZE) leaves the original file as it was and no temporary file.
// The limit holds for a whole process, and would fail any other write of
// the test binary meanwhile (go test's own log of the files a test opens
// among them): the writes run in a child process of their own.
func TestWriteFailureKeepsOriginal(t *testing.T) {
	if root := os.Getenv(fsizeChild); root != "" {
		writeBeyondLimit(t, root)
		return
	}
	w := newWorkspace(t)
	path := put(t, w, "keep.txt", []byte("original\n"))
	put(t, w, "edit.txt", []byte("small\n"))

	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteFailureKeepsOriginal$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), fsizeChild+"="+w.Root())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, name := range []string{"write", "edit"} {
		m := regexp.MustCompile(`(?m)^\s*write_unix_test.go:\d+: ` + name + `: (.*)$`).FindSubmatch(out)
		if m == nil || !strings.Contains(string(m[1]), "file too large") {
			t.Errorf("%s: the child reports %q, want the kernel's 'file too large'\n%s", name, m, out)
		}
	}
	if got, _ := os.ReadFile(path); string(got) != "original\n" {
		t.Errorf("keep.txt is now %d bytes, want the original", len(got))
	}
	if got, _ := os.ReadFile(filepath.Join(w.Root(), "edit.txt")); string(got) != "small\n" {
		t.Errorf("edit.txt is now %d bytes, want the original", len(got))
	}
	if tmp := tempFiles(t, w.Root()); len(tmp) > 0 {
		t.Errorf("temporary files left behind: %v", tmp)
	}
}

// fsizeChild names the workspace TestWriteFailureKeepsOriginal's child
// process writes in.
const fsizeChild = "FREEACT_TEST_FSIZE_CHILD"

// writeBeyondLimit lowers RLIMIT_FSIZE for this (child) process and makes
// a write and an edit grow files past it, logging their errors.
func writeBeyondLimit(t *testing.T, root string) {
	w, err := NewWorkspace(root)
	must(t, err)
	var old syscall.Rlimit
	must(t, syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old))
	must(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 64 << 10, Max: old.Max}))
	big := strings.Repeat("x", 1<<20)
	_, errWrite := w.Write(context.Background(), WriteArgs{Path: "keep.txt", Content: big}, false)
	_, errEdit := w.Edit(context.Background(), EditArgs{Path: "edit.txt", OldText: "small", NewText: big}, false)
	must(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old))
	t.Logf("write: %v", errWrite)
	t.Logf("edit: %v", errEdit)
}
