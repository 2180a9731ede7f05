package files

import (
	"os"
	"path/filepath"
	"testing"
)

// newWorkspace returns a Workspace over a fresh temporary directory.
func newWorkspace(t *testing.T) *Workspace {
	t.Helper()
	w, err := NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// put writes a file below the workspace root, creating folders.
func put(t *testing.T, w *Workspace, rel string, data []byte) string {
	t.Helper()
	path := filepath.Join(w.Root(), filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
