package desktop

import (
	"os"
	"testing"

	"github.com/freeact/desktop/agent/mcp/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.Main() // serves MCP when the binary runs as a test server (mcptest.AsksOnInitialize)
	os.Exit(m.Run())
}
