package testenv

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ with the current output")

// Update reports whether the tests run with -update, which rewrites golden
// files instead of comparing with them.
func Update() bool { return *update }

// Golden compares got with the golden file at path (relative to the test's
// package, normally under testdata/). With -update it writes got there
// first, creating folders, so the comparison passes and the change shows
// in git diff.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file: %v (go test -run '%s' -update creates it)", err, t.Name())
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -run '%s' -update rewrites it if the change is intended)\n--- got\n%s\n--- want\n%s", path, t.Name(), got, want)
	}
}
