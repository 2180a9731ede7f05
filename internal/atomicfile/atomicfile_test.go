package atomicfile_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/internal/atomicfile"
)

func TestWriteCreatesAndReplaces(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "a", "b", "settings.json")
	if err := atomicfile.Write(name, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(name, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(name); err != nil || string(b) != "two" {
		t.Fatalf("content %q, %v", b, err)
	}
	entries, err := os.ReadDir(filepath.Dir(name))
	if err != nil || len(entries) != 1 {
		t.Fatalf("folder holds %v (%v), want only the file: no temporary left", entries, err)
	}
}

func TestWriteFailureKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "target")
	if err := os.WriteFile(name, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A folder cannot be replaced by a file: the rename fails.
	if err := atomicfile.Write(dir, []byte("new"), 0o644); err == nil {
		t.Fatal("replacing a folder succeeded")
	}
	if err := atomicfile.Write(filepath.Join(name, "below"), []byte("new"), 0o644); err == nil || !strings.Contains(err.Error(), "target") {
		t.Fatalf("writing below a file: %v, want an error naming it", err)
	}
	if b, _ := os.ReadFile(name); string(b) != "old" {
		t.Errorf("old file now holds %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("folder holds %v, want only the old file", entries)
	}
	parent, _ := os.ReadDir(filepath.Dir(dir))
	for _, e := range parent {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestWriteCache(t *testing.T) {
	name := filepath.Join(t.TempDir(), "summary.json")
	for _, content := range []string{"one", "two"} {
		if err := atomicfile.WriteCache(name, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(name); err != nil || string(b) != content {
			t.Fatalf("content %q, %v; want %q", b, err, content)
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(name)); len(entries) != 1 {
		t.Errorf("folder holds %v, want only the file", entries)
	}
}

// BenchmarkWrite shows what the syncs cost: Write against WriteCache.
func BenchmarkWrite(b *testing.B) {
	for _, bc := range []struct {
		name  string
		write func(string, []byte, os.FileMode) error
	}{{"durable", atomicfile.Write}, {"cache", atomicfile.WriteCache}} {
		b.Run(bc.name, func(b *testing.B) {
			name := filepath.Join(b.TempDir(), "f.json")
			for b.Loop() {
				if err := bc.write(name, []byte(`{"messages": 1}`), 0o600); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
