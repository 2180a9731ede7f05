//go:build unix

package files

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/internal/nofollow"
)

// A symbolic link swapped in between the approval and the operation does
// not redirect it: RunApproved notices the path leads elsewhere now, and the
// operation itself, given the path as approved, follows no link.
func TestSymlinkSwappedAfterApproval(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		args Args
		// swap changes the workspace after the approval; the file at
		// victim must stay as it was.
		swap func(t *testing.T, w *Workspace, outside string)
	}{
		{"write, target becomes a link", WriteArgs{Path: "notes.txt", Content: "pwned"}, func(t *testing.T, w *Workspace, outside string) {
			must(t, os.Remove(filepath.Join(w.Root(), "notes.txt")))
			must(t, os.Symlink(filepath.Join(outside, "victim.txt"), filepath.Join(w.Root(), "notes.txt")))
		}},
		{"write, new file's name becomes a link", WriteArgs{Path: "new.txt", Content: "pwned"}, func(t *testing.T, w *Workspace, outside string) {
			must(t, os.Symlink(filepath.Join(outside, "victim.txt"), filepath.Join(w.Root(), "new.txt")))
		}},
		{"write, folder becomes a link", WriteArgs{Path: "sub/victim.txt", Content: "pwned"}, func(t *testing.T, w *Workspace, outside string) {
			must(t, os.RemoveAll(filepath.Join(w.Root(), "sub")))
			must(t, os.Symlink(outside, filepath.Join(w.Root(), "sub")))
		}},
		{"edit, target becomes a link", EditArgs{Path: "notes.txt", OldText: "secret", NewText: "pwned"}, func(t *testing.T, w *Workspace, outside string) {
			must(t, os.Remove(filepath.Join(w.Root(), "notes.txt")))
			must(t, os.Symlink(filepath.Join(outside, "victim.txt"), filepath.Join(w.Root(), "notes.txt")))
		}},
		{"read, target becomes a link", ReadTextArgs{Path: "notes.txt"}, func(t *testing.T, w *Workspace, outside string) {
			must(t, os.Remove(filepath.Join(w.Root(), "notes.txt")))
			must(t, os.Symlink(filepath.Join(outside, "victim.txt"), filepath.Join(w.Root(), "notes.txt")))
		}},
	}
	for _, tt := range tests {
		for _, mode := range []string{"RunApproved", "operation"} {
			t.Run(tt.name+"/"+mode, func(t *testing.T) {
				w := newWorkspace(t)
				outside := t.TempDir()
				victim := filepath.Join(outside, "victim.txt")
				must(t, os.WriteFile(victim, []byte("secret\n"), 0o600))
				put(t, w, "notes.txt", []byte("notes\n"))
				put(t, w, "sub/keep.txt", []byte("x"))
				approved, err := w.Resolve(context.Background(), tt.args.FilePath())
				must(t, err)
				tt.swap(t, w, outside)
				var res Result
				if mode == "RunApproved" {
					res, err = w.RunApproved(ctx, tt.args, approved)
					if err == nil || !strings.Contains(err.Error(), "changed after it was approved") || !strings.Contains(err.Error(), "nothing was done") {
						t.Fatalf("RunApproved: %v, %+v", err, res)
					}
				} else {
					// As if the link were swapped after RunApproved's check.
					switch a := tt.args.(type) {
					case WriteArgs:
						_, err = w.write(ctx, a, approved)
					case EditArgs:
						_, err = w.edit(ctx, a, approved)
					case ReadTextArgs:
						var text string
						text, err = w.readText(ctx, a, approved)
						if strings.Contains(text, "secret") {
							t.Fatalf("read through the swapped link: %q", text)
						}
					}
					if !errors.Is(err, nofollow.ErrLinkSwapped) {
						t.Fatalf("error %v, want %v", err, nofollow.ErrLinkSwapped)
					}
				}
				if b, _ := os.ReadFile(victim); string(b) != "secret\n" {
					t.Errorf("the file outside was changed: %q", b)
				}
				if entries, _ := os.ReadDir(outside); len(entries) != 1 {
					t.Errorf("files were left outside: %v", entries)
				}
			})
		}
	}
}

// Without a swap, RunApproved does what Run does.
func TestRunApproved(t *testing.T) {
	w := newWorkspace(t)
	put(t, w, "a.txt", []byte("one\n"))
	p, err := w.Resolve(context.Background(), "a.txt")
	must(t, err)
	if _, err := w.RunApproved(context.Background(), EditArgs{Path: "a.txt", OldText: "one", NewText: "two"}, p); err != nil {
		t.Fatal(err)
	}
	res, err := w.RunApproved(context.Background(), ReadTextArgs{Path: "a.txt"}, p)
	if err != nil || !strings.Contains(res.Text, "two") {
		t.Fatalf("%+v %v", res, err)
	}
}
