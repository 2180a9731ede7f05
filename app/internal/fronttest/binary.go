package fronttest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/freeact/desktop/internal/testenv"
)

// builds are the freeact binaries this test binary built, by their build
// flags: each is built once, whichever test asks first.
var builds struct {
	mu   sync.Mutex
	bins map[string]*build
}

type build struct {
	once sync.Once
	bin  string
	err  error
}

// Binary builds freeact with the given go build flags (none, "-race",
// "-tags crashtest") once per test binary, and returns its path. The
// tests that run it are the integration tier, skipped under -short before
// the build. RemoveBinaries (from TestMain) deletes what it built.
func Binary(t *testing.T, flags ...string) string {
	t.Helper()
	testenv.Integration(t, "the freeact binary and Python with ipykernel")
	key := strings.Join(flags, " ")
	builds.mu.Lock()
	if builds.bins == nil {
		builds.bins = map[string]*build{}
	}
	b := builds.bins[key]
	if b == nil {
		b = &build{}
		builds.bins[key] = b
	}
	builds.mu.Unlock()
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "freeact-bin-")
		if err != nil {
			b.err = err
			return
		}
		b.bin = filepath.Join(dir, "freeact")
		args := append(append([]string{"build"}, flags...), "-o", b.bin, "github.com/freeact/desktop")
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			b.err = errors.New(string(out))
		}
	})
	if b.err != nil {
		t.Fatalf("build freeact %s: %v", key, b.err)
	}
	return b.bin
}

// FreeactBinary is freeact as built for users (Binary without flags).
func FreeactBinary(t *testing.T) string { return Binary(t) }

// RemoveBinaries deletes the binaries Binary built, with their folders;
// TestMain calls it after the tests.
func RemoveBinaries() {
	builds.mu.Lock()
	defer builds.mu.Unlock()
	for _, b := range builds.bins {
		if b.bin != "" {
			_ = os.RemoveAll(filepath.Dir(b.bin))
		}
	}
}
