// Package testenv is what the test packages share. It finds the outside
// programs that tests run for real: the Python with ipykernel that
// scripts/setup-python.sh prepares, srt from scripts/srt and the MCP
// reference servers from scripts/mcp-servers (make test installs them all).
// A missing one skips the test, or fails it when CI=true, so CI can never
// pass by skipping. It also reads the tables of the repository's docs for
// tests that keep the docs true to the code, holds the waits with a safety
// net (Eventually for polled states, Receive for channels) and the
// golden-file check with its -update flag (Golden).
//
// The tests that need one of them are the integration tier. `go test
// -short` is the fast tier: it skips them all, whether the programs are
// there or not and whatever CI says, without looking for them, so it runs
// on a machine with Go alone (make test-short proves it).
package testenv

import (
	"bufio"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// RepoRoot returns the directory holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// Integration skips the test in the fast tier (go test -short): it needs
// what, an outside program. The helpers below call it first.
func Integration(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration tier (needs " + what + "): skipped under -short")
	}
}

// Missing skips the test, or fails it under CI, saying what is missing.
// Under -short it always skips.
func Missing(t testing.TB, msg string) {
	t.Helper()
	Integration(t, msg)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Python returns the test interpreter with ipykernel and jupyter_server:
// $FREEACT_TEST_PYTHON, else .cache/python/venv/bin/python.
func Python(t testing.TB) string {
	t.Helper()
	Integration(t, "Python with ipykernel")
	return kernelPython(t, "FREEACT_TEST_PYTHON", filepath.Join(RepoRoot(t), ".cache", "python", "venv", "bin", "python"))
}

// OldPython returns the oldest supported kernel environment: Debian 12's
// python3 with python3-ipykernel 6.17 and python3-jupyter-server 1.x
// (scripts/setup-python.sh installs them), $FREEACT_TEST_OLD_PYTHON else
// /usr/bin/python3.
func OldPython(t testing.TB) string {
	t.Helper()
	Integration(t, "Debian's python3 with ipykernel 6.17")
	return kernelPython(t, "FREEACT_TEST_OLD_PYTHON", "/usr/bin/python3")
}

// kernelPython returns $env, else def, after checking that it imports
// ipykernel and jupyter_server.
func kernelPython(t testing.TB, env, def string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		p = def
	}
	if exec.Command(p, "-c", "import ipykernel, jupyter_server").Run() != nil {
		Missing(t, "no Python with ipykernel at "+p+": run scripts/setup-python.sh or set "+env)
	}
	return p
}

// SrtDir returns the folder holding the srt executable of scripts/srt.
func SrtDir(t testing.TB) string {
	t.Helper()
	Integration(t, "srt")
	dir := filepath.Join(RepoRoot(t), "scripts", "srt", "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(dir, "srt")); err != nil {
		Missing(t, "srt is not installed: run make test, or npm install --no-save in scripts/srt")
	}
	return dir
}

// MCPServer returns the entry script of an MCP reference server package of
// scripts/mcp-servers ("server-everything", "server-filesystem").
func MCPServer(t testing.TB, pkg string) string {
	t.Helper()
	Integration(t, "node and the MCP reference servers")
	js := filepath.Join(RepoRoot(t), "scripts", "mcp-servers", "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
	_, statErr := os.Stat(js)
	_, nodeErr := exec.LookPath("node")
	if statErr != nil || nodeErr != nil {
		Missing(t, "no node or no "+pkg+": run make test, or npm install --no-save in scripts/mcp-servers")
	}
	return js
}

// PythonMCP returns the interpreter of a venv with the Python MCP SDK of
// one release line from PyPI ("1.22", "1.30", "2.3"), which
// scripts/mcp-servers/python-servers.sh prepares under .cache/mcp/python.
func PythonMCP(t testing.TB, release string) string {
	t.Helper()
	Integration(t, "the Python MCP SDK "+release)
	p := filepath.Join(RepoRoot(t), ".cache", "mcp", "python", "mcp-"+release, "bin", "python")
	if _, err := os.Stat(p); err != nil {
		Missing(t, "no Python MCP SDK "+release+" at "+p+": run make test, or scripts/mcp-servers/python-servers.sh")
	}
	return p
}

// FreeactFixture copies the workspace the Python freeact of version made
// (agent/testdata/freeact/<version>, see scripts/compat/make-fixtures.sh)
// into a temporary folder and returns it.
func FreeactFixture(t testing.TB, version string) string {
	t.Helper()
	src := filepath.Join(RepoRoot(t), "agent", "testdata", "freeact", version)
	dst := filepath.Join(t.TempDir(), "ws-"+version)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy the freeact %s fixture: %v", version, err)
	}
	return dst
}

// Snapshot returns the content of every file under dir by relative path,
// to check later that none was changed.
func Snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Unchanged fails the test for each file of before (a Snapshot) that is
// gone or has other content now.
func Unchanged(t testing.TB, dir string, before map[string]string) {
	t.Helper()
	now := Snapshot(t, dir)
	for name, content := range before {
		got, ok := now[name]
		switch {
		case !ok:
			t.Errorf("%s was removed", name)
		case got != content:
			t.Errorf("%s was changed", name)
		}
	}
}

// DocTable returns the rows of the first table after the heading (a line
// "## heading", any level) in the repository file doc (such as
// "docs/behaviour.md"): one slice of trimmed cells a row, without the
// header and separator rows. Cells must not contain "|". The test fails
// when the heading or the table is missing.
func DocTable(t testing.TB, doc, heading string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(RepoRoot(t), doc))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	found, inTable := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !found {
			found = strings.HasPrefix(line, "#") && strings.TrimSpace(strings.TrimLeft(line, "#")) == heading
			continue
		}
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			if strings.HasPrefix(line, "#") {
				break // the next section began without a table
			}
			continue
		}
		inTable = true
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	switch {
	case !found:
		t.Fatalf("%s has no heading %q", doc, heading)
	case len(rows) < 2:
		t.Fatalf("%s has no table under the heading %q", doc, heading)
	}
	return rows[2:] // header and separator
}
