// Package testenv is what the test packages share. It finds the outside
// programs that tests run for real: the Python with ipykernel that
// scripts/setup-python.sh prepares, srt from scripts/srt and the MCP
// reference servers from scripts/mcp-servers (make test installs them all).
// A missing one skips the test, or fails it when CI=true, so CI can never
// pass by skipping. It also holds the waits with a safety net (Eventually
// for polled states, Receive for channels) and the golden-file check with
// its -update flag (Golden).
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
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

// Missing skips the test, or fails it under CI, saying what is missing.
func Missing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Python returns the test interpreter with ipykernel and jupyter_server:
// $FREEACT_TEST_PYTHON, else .cache/python/venv/bin/python.
func Python(t testing.TB) string {
	t.Helper()
	p := os.Getenv("FREEACT_TEST_PYTHON")
	if p == "" {
		p = filepath.Join(RepoRoot(t), ".cache", "python", "venv", "bin", "python")
	}
	if exec.Command(p, "-c", "import ipykernel, jupyter_server").Run() != nil {
		Missing(t, "no Python with ipykernel at "+p+": run scripts/setup-python.sh or set FREEACT_TEST_PYTHON")
	}
	return p
}

// SrtDir returns the folder holding the srt executable of scripts/srt.
func SrtDir(t testing.TB) string {
	t.Helper()
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
	js := filepath.Join(RepoRoot(t), "scripts", "mcp-servers", "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
	_, statErr := os.Stat(js)
	_, nodeErr := exec.LookPath("node")
	if statErr != nil || nodeErr != nil {
		Missing(t, "no node or no "+pkg+": run make test, or npm install --no-save in scripts/mcp-servers")
	}
	return js
}
