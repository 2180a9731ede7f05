package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/freeact/desktop/internal/testenv"
)

// The boundaries docs/threat-model.md must name: a trust boundary the
// product has is never left out of its table.
var threatBoundaries = []string{
	"Model output and actions",
	"Model output and the window",
	"Workspace files",
	"MCP servers and their authorization servers",
	"Sandboxed code and the host",
	"One workspace and another",
	"Other local processes",
	"The window's page and the Go API",
	"URLs handed to the desktop",
	"Secrets and what the app writes",
	"Terminal output",
}

// Every boundary of docs/threat-model.md names the tests that hold it, and
// every name there is a real Go test, fuzz target or benchmark, or a
// frontend test file: a renamed or deleted test cannot leave the page
// claiming a guard nobody checks.
func TestThreatModelTests(t *testing.T) {
	rows := testenv.DocTable(t, "docs/threat-model.md", "Boundaries")
	goFuncs, files := repoTests(t)
	seen := map[string]bool{}
	name := regexp.MustCompile("`([^`]+)`")
	for _, row := range rows {
		if len(row) != 4 {
			t.Fatalf("row %q: want 4 cells (boundary, what may cross, what guards it, tests)", row)
		}
		seen[row[0]] = true
		tests := name.FindAllStringSubmatch(row[3], -1)
		if len(tests) == 0 {
			t.Errorf("boundary %q names no test", row[0])
		}
		for _, m := range tests {
			n := m[1]
			switch {
			case strings.HasSuffix(n, ".ts") || strings.HasSuffix(n, ".py") || strings.HasSuffix(n, ".yaml"):
				if !files[n] {
					t.Errorf("boundary %q names %s, which is no file of the repository", row[0], n)
				}
			case !goFuncs[n]:
				t.Errorf("boundary %q names %s, which is no Go test, fuzz target or benchmark", row[0], n)
			}
		}
	}
	for _, b := range threatBoundaries {
		if !seen[b] {
			t.Errorf("docs/threat-model.md has no row for the boundary %q", b)
		}
	}
}

// repoTests returns the names of the Go test functions of the repository
// and the base names of its files outside dependencies.
func repoTests(t *testing.T) (map[string]bool, map[string]bool) {
	t.Helper()
	root := testenv.RepoRoot(t)
	funcs, files := map[string]bool{}, map[string]bool{}
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)\w*)\(`)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".cache", "node_modules", "bin", "dist", "test-output":
				return filepath.SkipDir
			}
			return nil
		}
		files[d.Name()] = true
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			funcs[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return funcs, files
}
