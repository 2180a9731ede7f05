package files

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestWrite(t *testing.T) {
	w := newWorkspace(t)
	put(t, w, "existing.txt", []byte("old content\n"))
	tests := []struct {
		name    string
		args    WriteArgs
		message string
	}{
		{"new file", WriteArgs{Path: "new.txt", Content: "hello\n"}, "Created new.txt (6 bytes)."},
		{"new folders", WriteArgs{Path: "a/b/c/deep.md", Content: "# deep\n"}, "Created a/b/c/deep.md (7 bytes)."},
		{"overwrite", WriteArgs{Path: "existing.txt", Content: "new"}, "Overwrote existing.txt (3 bytes)."},
		{"empty content", WriteArgs{Path: "empty.txt", Content: ""}, "Created empty.txt (0 bytes)."},
		{"content kept verbatim", WriteArgs{Path: "crlf.txt", Content: "\ufeffa\r\nb\n\x00"}, "Created crlf.txt (9 bytes)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := w.Write(context.Background(), tt.args, false)
			if err != nil {
				t.Fatal(err)
			}
			if msg != tt.message {
				t.Errorf("message %q, want %q", msg, tt.message)
			}
			got, err := os.ReadFile(filepath.Join(w.Root(), tt.args.Path))
			if err != nil || string(got) != tt.args.Content {
				t.Errorf("file holds %q (%v), want %q", got, err, tt.args.Content)
			}
			if tmp := tempFiles(t, w.Root()); len(tmp) > 0 {
				t.Errorf("temporary files left behind: %v", tmp)
			}
		})
	}
}

// Writing through a symlink updates the file it points to and keeps the link.
func TestWriteThroughSymlink(t *testing.T) {
	w := newWorkspace(t)
	target := put(t, w, "real/config.txt", []byte("v1\n"))
	link := filepath.Join(w.Root(), "config.txt")
	must(t, os.Symlink(target, link))
	if _, err := w.Write(context.Background(), WriteArgs{Path: "config.txt", Content: "v2\n"}, false); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("symlink replaced: %v %v", info.Mode(), err)
	}
	if got, _ := os.ReadFile(target); string(got) != "v2\n" {
		t.Errorf("target holds %q", got)
	}
}

func TestWriteErrors(t *testing.T) {
	w := newWorkspace(t)
	put(t, w, "file.txt", []byte("keep\n"))
	must(t, os.Mkdir(filepath.Join(w.Root(), "dir"), 0o755))
	tests := []struct {
		path string
		want string
	}{
		{"dir", "dir is a directory"},
		{"file.txt/child.txt", "create parent folders"},
		{"", "path is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			_, err := w.Write(context.Background(), WriteArgs{Path: tt.path, Content: "x"}, false)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
			if got, _ := os.ReadFile(filepath.Join(w.Root(), "file.txt")); string(got) != "keep\n" {
				t.Errorf("file.txt changed to %q", got)
			}
			if tmp := tempFiles(t, w.Root()); len(tmp) > 0 {
				t.Errorf("temporary files left behind: %v", tmp)
			}
		})
	}
}

// Readers running while the file is rewritten see the old or the new
// content in full, never a mix or a truncated file.
func TestWriteIsAtomicForReaders(t *testing.T) {
	w := newWorkspace(t)
	a, b := strings.Repeat("a", 1<<20), strings.Repeat("b", 1<<20)
	path := put(t, w, "data.txt", []byte(a))
	done := make(chan struct{})
	var wg sync.WaitGroup
	var bad []string
	var mu sync.Mutex
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				got, err := os.ReadFile(path)
				if err != nil || !(string(got) == a || string(got) == b) {
					mu.Lock()
					bad = append(bad, fmt.Sprintf("len %d, err %v", len(got), err))
					mu.Unlock()
				}
			}
		})
	}
	for i := range 40 {
		content := a
		if i%2 == 0 {
			content = b
		}
		if _, err := w.Write(context.Background(), WriteArgs{Path: "data.txt", Content: content}, false); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	if len(bad) > 0 {
		t.Errorf("readers saw %d torn reads, first: %s", len(bad), bad[0])
	}
	if tmp := tempFiles(t, w.Root()); len(tmp) > 0 {
		t.Errorf("temporary files left behind: %v", tmp)
	}
}

// tempFiles lists the write temporaries (".name.xxxxxxxx.tmp") under dir.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && strings.HasSuffix(d.Name(), ".tmp") {
			out = append(out, path)
		}
		return nil
	})
	must(t, err)
	slices.Sort(out)
	return out
}
