package files

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	home, _ = filepath.EvalSymlinks(home)
	outside, _ := filepath.EvalSymlinks(t.TempDir())

	// The workspace is opened through a symlink: Root must be the real path.
	realRoot, _ := filepath.EvalSymlinks(t.TempDir())
	linkRoot := filepath.Join(t.TempDir(), "ws-link")
	if err := os.Symlink(realRoot, linkRoot); err != nil {
		t.Fatal(err)
	}
	w, err := NewWorkspace(linkRoot)
	if err != nil {
		t.Fatal(err)
	}
	if w.Root() != realRoot {
		t.Fatalf("Root() = %q, want the resolved %q", w.Root(), realRoot)
	}
	put(t, w, "src/a.go", []byte("package a\n"))
	must(t, os.Symlink(outside, filepath.Join(realRoot, "out-link")))
	must(t, os.Symlink(filepath.Join(realRoot, "src"), filepath.Join(realRoot, "src-link")))
	must(t, os.Symlink(filepath.Join(realRoot, "src", "a.go"), filepath.Join(outside, "back-in")))

	tests := []struct {
		path   string
		abs    string
		rel    string
		inside bool
	}{
		{"src/a.go", filepath.Join(realRoot, "src/a.go"), "src/a.go", true},
		{"./src/../src/a.go", filepath.Join(realRoot, "src/a.go"), "src/a.go", true},
		{".", realRoot, ".", true},
		{"new/dir/file.txt", filepath.Join(realRoot, "new/dir/file.txt"), "new/dir/file.txt", true},
		{filepath.Join(realRoot, "src/a.go"), filepath.Join(realRoot, "src/a.go"), "src/a.go", true},
		{filepath.Join(linkRoot, "src/a.go"), filepath.Join(realRoot, "src/a.go"), "src/a.go", true},
		{"src-link/a.go", filepath.Join(realRoot, "src/a.go"), "src/a.go", true},
		{"src-link/missing/x.txt", filepath.Join(realRoot, "src/missing/x.txt"), "src/missing/x.txt", true},
		{"..", filepath.Dir(realRoot), "", false},
		{"../" + filepath.Base(realRoot) + "x/f", realRoot + "x/f", "", false},
		{outside, outside, "", false},
		{"out-link/secret.txt", filepath.Join(outside, "secret.txt"), "", false},
		{filepath.Join(outside, "back-in"), filepath.Join(realRoot, "src/a.go"), "src/a.go", true},
		{"~/notes.txt", filepath.Join(home, "notes.txt"), "", false},
		{"~", home, "", false},
		{"/", "/", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			p, err := w.Resolve(context.Background(), tt.path)
			if err != nil {
				t.Fatal(err)
			}
			want := Path{Abs: tt.abs, Rel: tt.rel, Inside: tt.inside}
			if p != want {
				t.Errorf("Resolve(%q) = %+v, want %+v", tt.path, p, want)
			}
			wantDisplay := tt.rel
			if !tt.inside {
				wantDisplay = tt.abs
			}
			if p.Display() != wantDisplay {
				t.Errorf("Display() = %q, want %q", p.Display(), wantDisplay)
			}
		})
	}
}

func TestResolveRejectsBadPaths(t *testing.T) {
	w := newWorkspace(t)
	for _, path := range []string{"", "   ", "a\x00b"} {
		if _, err := w.Resolve(context.Background(), path); err == nil {
			t.Errorf("Resolve(%q) succeeded, want an error", path)
		}
	}
}

func TestNewWorkspaceErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	must(t, os.WriteFile(file, nil, 0o644))
	for _, root := range []string{filepath.Join(dir, "missing"), file} {
		if _, err := NewWorkspace(root); err == nil || !strings.Contains(err.Error(), root) {
			t.Errorf("NewWorkspace(%q) error = %v, want one naming the directory", root, err)
		}
	}
}

// Every tool refuses a path outside the workspace unless the call was
// approved, and touches nothing when it refuses.
func TestOutsideWorkspaceNeedsApproval(t *testing.T) {
	w := newWorkspace(t)
	outDir, _ := filepath.EvalSymlinks(t.TempDir())
	target := filepath.Join(outDir, "f.txt")
	png := encodePNG(t, 10, 10)
	must(t, os.Symlink(outDir, filepath.Join(w.Root(), "escape")))

	for _, path := range []string{target, "../" + filepath.Base(outDir) + "/f.txt", "escape/f.txt"} {
		calls := []Args{
			ReadTextArgs{Path: path},
			ReadMediaArgs{Path: strings.TrimSuffix(path, ".txt") + ".png"},
			WriteArgs{Path: path, Content: "new\n"},
			EditArgs{Path: path, OldText: "old", NewText: "new"},
		}
		for _, call := range calls {
			t.Run(call.ToolName()+"/"+path, func(t *testing.T) {
				must(t, os.WriteFile(target, []byte("old\n"), 0o644))
				must(t, os.WriteFile(filepath.Join(outDir, "f.png"), png, 0o644))
				_, err := w.Run(context.Background(), call, false)
				if !errors.Is(err, ErrOutsideWorkspace) {
					t.Fatalf("unapproved call: error = %v, want ErrOutsideWorkspace", err)
				}
				if !strings.Contains(err.Error(), outDir) {
					t.Errorf("error %q does not show the absolute path", err)
				}
				if got, _ := os.ReadFile(target); string(got) != "old\n" {
					t.Fatalf("refused call changed the file: %q", got)
				}
				if _, err := w.Run(context.Background(), call, true); err != nil {
					t.Fatalf("approved call failed: %v", err)
				}
			})
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
