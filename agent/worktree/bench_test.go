package worktree

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// BenchmarkOpenWorktree10k is the time to open a new worktree conversation's
// folder on a repository of 10,000 files: Create (checks, git worktree add,
// the .worktreeinclude copy). The repository is built once; each worktree
// is removed outside the timing. The git steps' share is logged.
func BenchmarkOpenWorktree10k(b *testing.B) {
	repo, m := newRepo(b)
	for i := 0; i < 10000; i++ {
		write(b, filepath.Join(repo, fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%05d.go", i)), fmt.Sprintf("package p\n\nconst X%d = %d\n", i, i))
	}
	write(b, filepath.Join(repo, ".worktreeinclude"), ".env\n*.local\n")
	write(b, filepath.Join(repo, ".env"), "KEY=1\n")
	gitT(b, repo, "add", "-A")
	gitT(b, repo, "commit", "-q", "-m", "10k files")
	ctx := context.Background()
	steps := map[string]time.Duration{}
	m.Trace = func(args []string, took time.Duration) {
		k := args[0]
		if len(args) > 1 && (k == "worktree" || k == "ls-files") {
			k += " " + args[1]
		}
		steps[k] += took
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		mf, err := m.Create(ctx, repo, fmt.Sprintf("bench-%d", i), CreateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		tr := m.Trace
		m.Trace = nil
		if _, err := m.Remove(ctx, mf, RemoveOptions{}); err != nil {
			b.Fatal(err)
		}
		m.Trace = tr
		b.StartTimer()
	}
	b.StopTimer()
	var keys []string
	for k := range steps {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return steps[keys[i]] > steps[keys[j]] })
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %v", k, (steps[k]/time.Duration(b.N)).Round(time.Microsecond)))
	}
	b.Logf("per op: %s", strings.Join(parts, ", "))
}
