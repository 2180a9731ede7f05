package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/freeact/desktop/agent/mcpglue"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/internal/testenv"
)

// gatedServer is agent/testdata/mcp/gated.py on the Python MCP SDK: it
// starts serving once the file gate exists ("-": at once).
func gatedServer(t *testing.T, gate string) map[string]any {
	t.Helper()
	py := testenv.PythonMCP(t, "1.30")
	script, err := filepath.Abs(filepath.Join("testdata", "mcp", "gated.py"))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"command": py, "args": []string{script, gate}, "connect_timeout": 300}
}

// streamTurn runs one turn, handing each event to on as it comes.
func streamTurn(t *testing.T, a *agent.Agent, prompt string, on func(agent.Event)) []agent.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var events []agent.Event
	for ev := range a.Stream(ctx, agent.Text(prompt)) {
		events = append(events, ev)
		if req, ok := ev.(*agent.ApprovalRequest); ok {
			req.Answer(agent.Once, "")
		}
		if on != nil {
			on(ev)
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("turn did not end within its deadline; events: %s", describe(events))
	}
	return events
}

func offered(tools []string, name string) bool { return slices.Contains(tools, name) }

// A server still starting when the agent has started is not a failure:
// the first model call waits for it, says so (MCPWaiting, then one with
// Done), and offers its tools once it is there.
func TestMCPFirstModelCallWaitsForASlowServer(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	ws := mcpWorkspace(t, map[string]any{"mcp_servers": map[string]any{"slow": gatedServer(t, gate)}})
	a, fake := fakeKernels(nil).startIn(t, ws, `
turns:
  - expect:
      tools: [slow_fetch]
    reply: [{call: {id: c1, name: slow_fetch, args: {url: "https://example.org"}}}]
  - expect:
      last: [{role: user, response: slow_fetch, output: "fetched https://example.org max_length=5000"}]
    reply: [{text: "Fetched."}]
`, agent.WithMCPStartWait(0))
	if f := a.MCPFailures(); len(f) != 0 {
		t.Fatalf("a server still starting counts as failed: %+v", f)
	}
	events := streamTurn(t, a, "Fetch it.", func(ev agent.Event) {
		if w, ok := ev.(*mcpglue.MCPWaiting); ok && !w.Done {
			// The server comes up only once the wait was told.
			if err := os.WriteFile(gate, nil, 0o644); err != nil {
				t.Error(err)
			}
		}
	})
	waits := of[*mcpglue.MCPWaiting](events)
	if len(waits) != 2 || !slices.Equal(waits[0].Servers, []string{"slow"}) || waits[0].Done || waits[0].LimitSecs <= 0 ||
		!waits[1].Done || waits[1].Skipped {
		t.Fatalf("waits %+v; events:%s", waits, describe(events))
	}
	if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "Fetched." {
		t.Fatalf("events:%s", describe(events))
	}
	_ = fake
}

// Skip lets the model call go on without the server; once it connects,
// its tools join at the next model call, and no call waits for it again.
func TestMCPSkipTheWaitForASlowServer(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	ws := mcpWorkspace(t, map[string]any{"mcp_servers": map[string]any{"slow": gatedServer(t, gate)}})
	a, fake := fakeKernels(nil).startIn(t, ws, `
turns:
  - reply: [{text: "Without it."}]
  - expect:
      tools: [slow_fetch]
    reply: [{text: "With it."}]
`, agent.WithMCPStartWait(0))
	events := streamTurn(t, a, "Go on.", func(ev agent.Event) {
		if w, ok := ev.(*mcpglue.MCPWaiting); ok && !w.Done && !w.Skip() {
			t.Error("Skip did not end the wait")
		}
	})
	waits := of[*mcpglue.MCPWaiting](events)
	if len(waits) != 2 || !waits[1].Done || !waits[1].Skipped {
		t.Fatalf("waits %+v; events:%s", waits, describe(events))
	}
	var first []string
	for _, tool := range fake.Requests()[0].Tools {
		first = append(first, tool.Name)
	}
	if offered(first, "slow_fetch") {
		t.Errorf("the first call offered the skipped server's tool: %v", first)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 2*time.Minute, func() error {
		for _, s := range a.MCPServers(nil) {
			if s.Name == "slow" && s.Connected {
				return nil
			}
		}
		return errors.New("slow is not connected yet")
	})
	events = streamTurn(t, a, "Again.", nil)
	if w := of[*mcpglue.MCPWaiting](events); len(w) != 0 {
		t.Errorf("waited again: %+v", w)
	}
}

// A start that waits for a server that does not come up ends when its
// context does.
func TestMCPStartCanBeCancelled(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	ws := mcpWorkspace(t, map[string]any{"mcp_servers": map[string]any{"never": gatedServer(t, gate)}})
	modeltest.UseGemini(t, modeltest.Scenario{AllowUnplayed: true})
	a, err := agent.New(load(t, ws), agent.WithDirs(testDirs), fakeKernels(nil).executors(t), agent.WithMCPStartWait(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Stop() })
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- a.Start(ctx) }()
	testenv.Eventually(t, 2*time.Minute, func() error {
		_, err := os.Stat(gate + ".started")
		return err
	})
	cancel()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("Start did not end when its context was cancelled")
	}
}

// The reference filesystem server named "filesystem" (the name the
// built-in file tools' prefix reserves) starts, and its tools are offered
// as mcp_filesystem_<tool> and run.
func TestMCPServerNamedFilesystem(t *testing.T) {
	js := testenv.MCPServer(t, "server-filesystem")
	// The server works in the workspace, before and after it asks the
	// agent for its roots.
	ws := workspace(t, "")
	cfg, err := json.Marshal(map[string]any{"mcp_servers": map[string]any{"filesystem": map[string]any{"command": "node", "args": []string{js, ws}, "connect_timeout": 120}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, config.FreeactDir, config.AgentFile), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	a, _ := fakeKernels(nil).startIn(t, ws, `
turns:
  - expect:
      tools: [mcp_filesystem_list_directory, filesystem_read_text_file]
    reply: [{call: {id: c1, name: mcp_filesystem_list_directory, args: {path: "`+ws+`"}}}]
  - expect:
      last: [{role: user, response: mcp_filesystem_list_directory, output: "[DIR] .freeact"}]
    reply: [{text: "Listed."}]
`)
	events := streamTurn(t, a, "List.", nil)
	if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "Listed." {
		t.Fatalf("events:%s", describe(events))
	}
}

// Code mode against a Python SDK server that validates its arguments:
// a field given None (max_length=None, typed Optional[int] = 5000) is left
// out of the JSON, so the server's default applies; a nullable field set
// to None is left out as well when its default is None. The generated
// module of a tool with a nested model lists the model's fields in the
// schema's order (golden file; go test -update rewrites it).
func TestCodeModeLeavesNoneOut(t *testing.T) {
	ws := mcpWorkspace(t, map[string]any{"ptc_servers": map[string]any{"gated": gatedServer(t, "-")}})
	cell := `from mcptools.gated import fetch, book
print(fetch.run(fetch.Params(url="https://example.org", max_length=None, raw=None, note=None)).result)
print(book.run(book.Params(trip=book.ParamsTrip(destination="Graz", budget=None))).result)`
	a, _ := realKernels.startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: `+jsonString(cell)+`}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "fetched https://example.org max_length=5000 raw=False note=None\nbooked Graz budget=100 arrival=None"}]
    reply: [{text: "Done."}]
`)
	events := run(t, a, "Fetch.", nil)
	if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "Done." {
		t.Fatalf("events:%s", describe(events))
	}
	book, err := os.ReadFile(filepath.Join(ws, ".freeact", "generated", "mcptools", "gated", "book.py"))
	if err != nil {
		t.Fatal(err)
	}
	testenv.Golden(t, filepath.Join("testdata", "mcp", "golden", "book.py"), book)
}

// A mentioned resource over the mention limit is refused with its size,
// unless allowed; LargeMentions lists it for the user to confirm; a small
// one is attached as before.
func TestLargeMentionAsksFirst(t *testing.T) {
	ws := mcpWorkspace(t, map[string]any{"mcp_servers": map[string]any{"gated": gatedServer(t, "-")}})
	a, _ := fakeKernels(nil).startIn(t, ws, "turns: []\nallow_unplayed: true\n")
	ctx := t.Context()
	small, err := a.ExpandMCP(ctx, "see @gated:data://small")
	if err != nil || !strings.Contains(small, "small text") {
		t.Fatalf("small mention: %q, %v", small, err)
	}
	const big = "summarise @gated:data://big please"
	_, err = a.ExpandMCP(ctx, big)
	var large *mcp.LargeMentionError
	if !errors.As(err, &large) || large.Size != 300<<10 || large.Limit != mcp.DefaultMentionLimit ||
		!strings.Contains(err.Error(), "@gated:data://big is 300 KiB") {
		t.Fatalf("a 300 KiB mention without asking: %v", err)
	}
	list, err := a.LargeMentions(ctx, big)
	if err != nil || len(list) != 1 || list[0] != (mcpglue.LargeMention{Server: "gated", URI: "data://big", Size: 300 << 10, Limit: mcp.DefaultMentionLimit}) {
		t.Fatalf("large mentions %+v, %v", list, err)
	}
	got, err := a.ExpandMCP(ctx, big, mcpglue.AllowLargeMentions())
	if err != nil || !strings.Contains(got, strings.Repeat("x", 300<<10)) {
		t.Fatalf("allowed: %d bytes, %v", len(got), err)
	}
	if _, err := a.ExpandMCP(ctx, big, mcpglue.WithMentionLimit(-1)); err != nil {
		t.Errorf("no limit: %v", err)
	}
}
