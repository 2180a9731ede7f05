package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/agent/model/modeltest"
)

// inProcess calls the test MCP server in this process.
type inProcess struct{ c *client.Client }

func (p inProcess) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
	var arguments map[string]any
	if err := json.Unmarshal(args, &arguments); err != nil {
		return nil, err
	}
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, arguments
	res, err := p.c.CallTool(ctx, req)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res.Content[0].(mcp.TextContent).Text)
}

var p50RE = regexp.MustCompile(`p50_ms ([0-9.]+)`)

// BenchmarkProgrammaticCall measures a programmatic tool call from a cell:
// cell -> kernel stdin channel -> host -> approval (pre-approved) -> MCP
// server -> back into the cell, with the server in this process and with
// the agent's own connection to a stdio server (ptc_servers). It reports
// the median of b.N calls timed inside Python.
func BenchmarkProgrammaticCall(b *testing.B) {
	b.Run("in-process", func(b *testing.B) {
		c, err := client.NewInProcessClient(mcptest.New())
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		if err := c.Start(ctx); err != nil {
			b.Fatal(err)
		}
		init := mcp.InitializeRequest{}
		init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
		if _, err := c.Initialize(ctx, init); err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		benchCalls(b, workspace(b, ""), agent.WithToolCaller(inProcess{c}))
	})
	b.Run("stdio", func(b *testing.B) {
		data, _ := json.Marshal(map[string]any{"ptc_servers": map[string]any{"test": mcptest.Stdio(b)}})
		benchCalls(b, workspace(b, string(data)))
	})
}

func benchCalls(b *testing.B, ws string, opts ...agent.Option) {
	ctx := context.Background()
	cell := fmt.Sprintf(`import time
from freeact_runtime import call_tool
ts = []
for i in range(%d):
    t = time.perf_counter()
    call_tool("test", "echo", {"text": "x"})
    ts.append(time.perf_counter() - t)
ts.sort()
print("p50_ms %%.3f" %% (ts[len(ts) // 2] * 1000))`, b.N)
	sc, err := modeltest.ParseScenario([]byte(`
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: ` + jsonString(cell) + `}}}]
  - reply: [{text: "done"}]
`))
	if err != nil {
		b.Fatal(err)
	}
	modeltest.UseGemini(b, sc)
	a, err := agent.New(load(b, ws), append([]agent.Option{agent.WithDirs(testDirs), agent.WithKernelServer(server(b)), agent.WithSkipPermissions()}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := a.Start(sctx); err != nil {
		b.Fatal(err)
	}
	defer a.Stop()
	b.ResetTimer()
	var out string
	for ev := range a.Stream(ctx, agent.Text("Go.")) {
		if o, ok := ev.(*agent.CodeExecutionOutput); ok {
			out = o.Text
		}
	}
	b.StopTimer()
	m := p50RE.FindStringSubmatch(out)
	if m == nil {
		b.Fatalf("cell output: %s", out)
	}
	p50, _ := strconv.ParseFloat(m[1], 64)
	b.ReportMetric(p50, "ms-p50")
}
