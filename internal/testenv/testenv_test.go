package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// recorder is a testing.TB that records failures instead of ending the test.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Helper()           {}
func (r *recorder) Name() string      { return "TestX/sub" }
func (r *recorder) Fatal(args ...any) { r.failed = append(r.failed, fmt.Sprint(args...)) }
func (r *recorder) Fatalf(format string, a ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, a...))
}
func (r *recorder) Errorf(format string, a ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, a...))
}

func TestEventually(t *testing.T) {
	calls := 0
	Eventually(t, time.Minute, func() error {
		if calls++; calls < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if calls != 3 {
		t.Errorf("check called %d times, want 3", calls)
	}

	r := &recorder{TB: t}
	start := time.Now()
	Eventually(r, 50*time.Millisecond, func() error { return errors.New("the file is not there") })
	if len(r.failed) != 1 || !strings.Contains(r.failed[0], "after 50ms: the file is not there") {
		t.Errorf("failures %q", r.failed)
	}
	if time.Since(start) < 50*time.Millisecond {
		t.Error("gave up before the time was up")
	}
}

func TestReceive(t *testing.T) {
	ch := make(chan int, 1)
	ch <- 7
	if v := Receive(t, ch, time.Minute, "a number"); v != 7 {
		t.Errorf("got %d", v)
	}
	r := &recorder{TB: t}
	if v := Receive(r, ch, 10*time.Millisecond, "a second number"); v != 0 || len(r.failed) != 1 || r.failed[0] != "a second number: nothing within 10ms" {
		t.Errorf("got %d, failures %q", v, r.failed)
	}
}

func TestGolden(t *testing.T) {
	if Update() {
		t.Skip("compares, so not with -update")
	}
	path := filepath.Join(t.TempDir(), "sub", "out.golden")
	r := &recorder{TB: t}
	Golden(r, path, []byte("x"))
	if len(r.failed) != 1 || !strings.Contains(r.failed[0], "-update creates it") {
		t.Errorf("missing file: failures %q", r.failed)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("want\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.failed = nil
	Golden(r, path, []byte("want\n"))
	if len(r.failed) != 0 {
		t.Errorf("equal content: failures %q", r.failed)
	}
	Golden(r, path, []byte("got\n"))
	if len(r.failed) != 1 || !strings.Contains(r.failed[0], "go test -run 'TestX/sub' -update") || !strings.Contains(r.failed[0], "--- got\ngot\n") {
		t.Errorf("changed content: failures %q", r.failed)
	}

	*update = true
	defer func() { *update = false }()
	r.failed = nil
	Golden(r, path, []byte("new\n"))
	if b, _ := os.ReadFile(path); len(r.failed) != 0 || string(b) != "new\n" {
		t.Errorf("-update: failures %q, file %q", r.failed, b)
	}
}

// The repository has one -update flag, Golden's: a test package that
// declares its own panics ("flag redefined") as soon as it imports testenv.
func TestOneUpdateFlag(t *testing.T) {
	needle := "flag.Bool(" + `"update"`
	root := RepoRoot(t)
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".cache", "node_modules", "frontend", "bin", "build", "dist":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || p == filepath.Join(root, "internal", "testenv", "golden.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), needle) {
			t.Errorf("%s declares its own -update flag: use testenv.Golden (and testenv.Update)", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
