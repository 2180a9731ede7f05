package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// make bench-compare builds this checkout's binary into its own .cache,
// under a name of its own even where .cache is a link shared with another
// checkout (a worktree's), so two checkouts never run each other's build.
func TestBenchCompareBinaryPerCheckout(t *testing.T) {
	script, err := os.ReadFile("scripts/bench/compare.sh")
	if err != nil {
		t.Fatal(err)
	}
	shared := t.TempDir()
	where := func(checkout string, linked bool) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(checkout, "scripts", "bench"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(checkout, "scripts", "bench", "compare.sh"), script, 0o755); err != nil {
			t.Fatal(err)
		}
		if linked {
			if err := os.Symlink(shared, filepath.Join(checkout, ".cache")); err != nil {
				t.Fatal(err)
			}
		}
		out, err := exec.Command("bash", filepath.Join(checkout, "scripts", "bench", "compare.sh"), "--binary").CombinedOutput()
		if err != nil {
			t.Fatalf("compare.sh --binary in %s: %v\n%s", checkout, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	base := t.TempDir()
	own := where(filepath.Join(base, "clone"), false)
	one, two := where(filepath.Join(base, "one"), true), where(filepath.Join(base, "two"), true)
	if dir := filepath.Join(base, "clone", ".cache", "bench"); filepath.Dir(own) != dir {
		t.Errorf("a clone builds into %s, want its own %s", own, dir)
	}
	if filepath.Dir(one) != filepath.Join(shared, "bench") || filepath.Dir(two) != filepath.Join(shared, "bench") || one == two {
		t.Errorf("two checkouts sharing %s build into %s and %s: want two names there", shared, one, two)
	}
	if again := where(filepath.Join(base, "one-again"), true); again == one || where(filepath.Join(base, "one"), false) != one {
		t.Errorf("the name is not stable per checkout")
	}
}
