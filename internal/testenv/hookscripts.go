package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// HookScripts returns the folders holding the public Claude Code hook
// scripts that scripts/hook-scripts pins (npm's node_modules/.bin and the
// PyPI venv's bin), to put first on a hook's PATH. It checks that each
// script the tests run is there, and node for the npm one.
func HookScripts(t testing.TB) []string {
	t.Helper()
	Integration(t, "the public hook scripts of scripts/hook-scripts")
	root := RepoRoot(t)
	npmBin := filepath.Join(root, "scripts", "hook-scripts", "node_modules", ".bin")
	pyBin := filepath.Join(root, ".cache", "hook-scripts", "venv", "bin")
	for _, p := range []string{
		filepath.Join(npmBin, "cc-safety-net"),
		filepath.Join(pyBin, "python"),
		filepath.Join(pyBin, "edit-guard"),
		filepath.Join(pyBin, "belay"),
	} {
		if _, err := os.Stat(p); err != nil {
			Missing(t, "public hook script "+p+" is not installed: run make test, or npm install --no-save in scripts/hook-scripts and scripts/hook-scripts/python-hooks.sh")
		}
	}
	if _, err := exec.LookPath("node"); err != nil {
		Missing(t, "no node for cc-safety-net: install Node.js 18 or newer")
	}
	return []string{npmBin, pyBin}
}
