package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/freeact/desktop/agent/mcp/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.Main() // serves MCP when the binary runs as a test server (mcptest.AsksOnInitialize)
	code := m.Run()
	removeBuiltBinaries()
	os.Exit(code)
}

// removeBuiltBinaries removes the freeact binaries the tests built, each
// once per test binary (freeactBinary, raceBinary, crashBinary), with the
// temporary folders they were built into.
func removeBuiltBinaries() {
	for _, bin := range []string{built.bin, raceBuilt.bin, crashBuilt.bin} {
		if bin != "" {
			_ = os.RemoveAll(filepath.Dir(bin))
		}
	}
}
