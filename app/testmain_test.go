package app

import (
	"os"
	"testing"

	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/app/internal/fronttest"
)

func TestMain(m *testing.M) {
	mcptest.Main() // serves MCP when the binary runs as a test server (mcptest.AsksOnInitialize)
	code := m.Run()
	fronttest.RemoveBinaries()
	os.Exit(code)
}
