package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/freeact/desktop/agent/approval"
	"github.com/freeact/desktop/agent/mcpglue"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/agenttest"
	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/agent/permission"
	"github.com/freeact/desktop/internal/testenv"
)

// mcpWorkspace makes a workspace whose agent.json has the given options
// (mcp_servers, ptc_servers, tool_search...).
func mcpWorkspace(t *testing.T, opts map[string]any) string {
	t.Helper()
	data, err := json.Marshal(opts)
	if err != nil {
		t.Fatal(err)
	}
	return workspace(t, string(data))
}

// JSON tool calls: the server's tools are offered as <server>_<tool>
// (excluded ones not), each call is approved as a GenericCall, failures
// are error results naming the server, and a crashed server is restarted
// on the next call, all in one turn.
func TestJSONMCPTools(t *testing.T) {
	srv := mcptest.Stdio(t)
	srv.ExcludedTools = []string{"secret"}
	ws := mcpWorkspace(t, map[string]any{"mcp_servers": map[string]any{"test": srv}})
	a, fake := fakeKernels(nil).startIn(t, ws, `
turns:
  - expect:
      tools: [test_echo, test_add, test_crash, ipybox_execute_ipython_cell, pytools_list_categories]
    reply: [{call: {id: c1, name: test_echo, args: {text: "hi"}}}, {call: {id: c2, name: test_add, args: {a: 1, b: 2}}}]
  - expect:
      last: [{role: user, response: test_echo, output: "echo: hi"}, {role: user, response: test_add, output: "3"}]
    reply: [{call: {id: c3, name: test_crash, args: {}}}]
  - expect:
      last: [{role: user, response: test_crash, output: "MCP server \"test\"", is_error: true}]
    reply: [{call: {id: c4, name: test_fail, args: {message: "nope"}}}]
  - expect:
      last: [{role: user, response: test_fail, output: "failed on purpose: nope", is_error: true}]
    reply: [{call: {id: c5, name: test_echo, args: {text: "again"}}}]
  - expect:
      last: [{role: user, response: test_echo, output: "echo: again"}]
    reply: [{text: "Done."}]
`)
	var approved []agent.GenericCall
	events := run(t, a, "Use the tools.", func(r *agent.ApprovalRequest) agent.Decision {
		if g, ok := r.ToolCall.(agent.GenericCall); ok {
			approved = append(approved, g)
		}
		return agent.Once
	})
	if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "Done." {
		t.Fatalf("events:%s", describe(events))
	}
	var names []string
	args := map[string]string{}
	for _, g := range approved {
		if g.PTC {
			t.Errorf("JSON call %s flagged as programmatic", g.ToolName)
		}
		names = append(names, g.ToolName)
		args[g.ToolName] = string(g.Args)
	}
	if len(names) == 5 {
		slices.Sort(names[:2]) // the first two ran in parallel
	}
	if got := strings.Join(names, ","); got != "test_add,test_echo,test_crash,test_fail,test_echo" {
		t.Errorf("approved %s", got)
	}
	if args["test_add"] != `{"a":1,"b":2}` {
		t.Errorf("args %v", args)
	}
	// The server calls echo read-only: that is shown on the approval, and
	// the call is asked all the same.
	for _, g := range approved {
		h := g.Hints
		switch g.ToolName {
		case "test_echo":
			if h == nil || h.Title != "Echo back" || h.ReadOnly == nil || !*h.ReadOnly || h.Idempotent == nil || !*h.Idempotent || h.OpenWorld == nil || *h.OpenWorld || h.Destructive != nil {
				t.Errorf("test_echo hints %+v, want the server's annotations", h)
			}
		case "test_add":
			if h != nil {
				t.Errorf("test_add hints %+v, want none (it has no annotations)", h)
			}
		}
	}
	if auto := of[*agent.AutoApproved](events); len(auto) > 0 {
		t.Errorf("%d calls approved without asking", len(auto))
	}
	for _, tool := range fake.Requests()[0].Tools {
		if tool.Name == "test_secret" {
			t.Error("an excluded tool is offered")
		}
	}
}

// A tool its server marks destructive (test_crash) is asked with no
// lasting rule offered: NoAlways says why, and an Always answer counts as
// Session, a grant for the conversation, with nothing saved. A read-only
// tool (test_echo) keeps the tool-wide suggestion, which Always saves.
func TestMCPDestructiveToolOffersNoRule(t *testing.T) {
	srv := mcptest.Stdio(t)
	ws := mcpWorkspace(t, map[string]any{"mcp_servers": map[string]any{"test": srv}})
	perm, err := permission.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := fakeKernels(nil).startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: test_crash, args: {}}}]
  - expect:
      last: [{role: user, response: test_crash, output: "MCP server \"test\"", is_error: true}]
    reply: [{call: {id: c2, name: test_crash, args: {}}}]
  - reply: [{call: {id: c3, name: test_echo, args: {text: "hi"}}}]
  - expect:
      last: [{role: user, response: test_echo, output: "echo: hi"}]
    reply: [{text: "Done."}]
`, agent.WithPermissions(perm))
	type asked struct{ tool, suggested, noAlways string }
	var got []asked
	events := run(t, a, "Crash it twice, then echo.", func(r *agent.ApprovalRequest) agent.Decision {
		got = append(got, asked{r.ToolCall.Name(), r.Suggested, r.NoAlways})
		return agent.Always
	})
	want := []asked{{"test_crash", "test_crash", approval.NoAlwaysDestructive}, {"test_echo", "test_echo", ""}}
	if !slices.Equal(got, want) {
		t.Fatalf("asked %+v, want %+v; events:%s", got, want, describe(events))
	}
	// The second crash ran on the session's grant.
	auto := of[*agent.AutoApproved](events)
	if len(auto) != 1 || auto[0].ToolCall.Name() != "test_crash" || auto[0].By != agent.BySession {
		t.Errorf("auto-approved %+v, want test_crash by the session's grant", auto)
	}
	grants := of[*agent.SessionGrants](events)
	if len(grants) != 1 || len(grants[0].Grants) != 1 || grants[0].Grants[0] != (permission.Rule{Type: permission.TypeGenericCall, ToolName: "test_crash"}) {
		t.Errorf("session grants %+v, want test_crash only", grants)
	}
	saved := perm.Rules().Allow
	if slices.ContainsFunc(saved, func(r permission.Rule) bool { return r.ToolName == "test_crash" }) ||
		!slices.Contains(saved, permission.Rule{Type: permission.TypeGenericCall, ToolName: "test_echo"}) {
		t.Errorf("saved rules %+v, want test_echo and no test_crash", saved)
	}
}

// Code mode end to end: the Python API is generated at start; the model
// lists categories and tools, reads a module, then runs a cell calling two
// tools in a loop and post-processing the results, every call approved as
// a programmatic GenericCall; a crashed server recovers on the next call.
func TestCodeModeEndToEnd(t *testing.T) {
	ws := mcpWorkspace(t, map[string]any{"ptc_servers": map[string]any{"test": mcptest.Stdio(t)}})
	cell := `from mcptools.test import add, search_web

total = 0.0
titles = []
for i in range(2):
    total += add.run(add.Params(a=i, b=10)).sum
    res = search_web.run(search_web.Params(query=f"topic {i}", options=search_web.ParamsOptions(max_results=2)))
    titles += [r.title.upper() for r in res.results]
print("total", total, "titles", titles)`
	crash := `from freeact_runtime import call_tool, ToolFailed
try:
    call_tool("test", "crash", {})
except ToolFailed as e:
    print("failed:", e)
print("echo after crash:", call_tool("test", "echo", {"text": "back"}))`
	a, _ := realKernels.startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: pytools_list_categories, args: {}}}]
  - expect:
      last: [{role: user, response: pytools_list_categories, output: "\"test\": 13"}]
    reply: [{call: {id: c2, name: pytools_list_tools, args: {categories: ["test"]}}}]
  - expect:
      last: [{role: user, response: pytools_list_tools, output: ".freeact/generated/mcptools/test/search_web.py"}]
    reply: [{call: {id: c3, name: filesystem_read_text_file, args: {path: ".freeact/generated/mcptools/test/search_web.py"}}}]
  - expect:
      last: [{role: user, response: filesystem_read_text_file, output: "class Result"}]
    reply: [{call: {id: c4, name: ipybox_execute_ipython_cell, args: {code: `+jsonString(cell)+`}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "total 21.0 titles ['ABOUT TOPIC 0', 'MORE ON TOPIC 0', 'ABOUT TOPIC 1', 'MORE ON TOPIC 1']"}]
    reply: [{call: {id: c5, name: ipybox_execute_ipython_cell, args: {code: `+jsonString(crash)+`}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "echo after crash: echo: back"}]
    reply: [{text: "Done."}]
`)
	if _, err := os.Stat(filepath.Join(ws, ".freeact", "generated", "mcptools", "test", "add.py")); err != nil {
		t.Fatalf("Python API not generated at start: %v", err)
	}
	var ptc []string
	events := run(t, a, "Add and search.", func(r *agent.ApprovalRequest) agent.Decision {
		if g, ok := r.ToolCall.(agent.GenericCall); ok && g.PTC {
			ptc = append(ptc, g.ToolName)
			// A call from code of a destructive tool offers no lasting
			// rule either.
			if destructive := g.ToolName == "test_crash"; (r.NoAlways != "") != destructive {
				t.Errorf("%s from code: NoAlways %q", g.ToolName, r.NoAlways)
			}
		}
		return agent.Once
	})
	if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "Done." {
		t.Fatalf("events:%s", describe(events))
	}
	want := []string{"test_add", "test_search_web", "test_add", "test_search_web", "test_crash", "test_echo"}
	if !slices.Equal(ptc, want) {
		t.Errorf("programmatic approvals %v, want %v", ptc, want)
	}
	out := of[*agent.CodeExecutionOutput](events)
	if len(out) != 2 || !strings.Contains(out[1].Text, `failed: test.crash: MCP server "test"`) {
		t.Errorf("crash output: %+v", out)
	}
}

// A rejected programmatic call ends the turn without calling the tool.
func TestCodeModeRejected(t *testing.T) {
	cell := `from mcptools.test import echo
print(echo.run(echo.Params(text="x")))`
	tiers(t, cells{cell: func(c *agenttest.Cell) {
		res, err := c.CallTool("test", "echo", map[string]any{"text": "x"})
		if err != nil {
			c.Raise("ToolRejected", err.Error())
		}
		c.Print(string(res))
	}}, func(t *testing.T, x tier) {
		ws := mcpWorkspace(t, map[string]any{"ptc_servers": map[string]any{"test": mcptest.Stdio(t)}})
		a, fake := x.startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: `+jsonString(cell)+`}}}]
`)
		events := run(t, a, "Echo.", func(r *agent.ApprovalRequest) agent.Decision {
			if _, ok := r.ToolCall.(agent.GenericCall); ok {
				return agent.Reject
			}
			return agent.Once
		})
		if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "Tool call rejected" {
			t.Fatalf("events:%s", describe(events))
		}
		if len(fake.Requests()) != 1 {
			t.Error("model called after the rejection")
		}
	})
}

// Hybrid search finds a gentool saved by a code action, and the next cell
// imports it.
func TestHybridSearchFindsSavedTool(t *testing.T) {
	ws := mcpWorkspace(t, map[string]any{"tool_search": "hybrid"})
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte("PYTOOLS_EMBEDDING_MODEL=test\nPYTOOLS_EMBEDDING_DIM=128\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	save := `import os, time
d = ".freeact/generated/gentools/text/shout"
os.makedirs(d, exist_ok=True)
open(d + "/api.py", "w").write('"""Shout a text: return it in capital letters."""\nfrom .impl import run\n')
open(d + "/impl.py", "w").write("def run(text: str) -> str:\n    return text.upper() + '!'\n")
time.sleep(1)  # the index follows the folder within a moment
print("saved")`
	use := `from gentools.text.shout.api import run
print(run("hello"))`
	a, fake := realKernels.startIn(t, ws, `
turns:
  - expect:
      tools: [pytools_search_tools]
      system_contains: pytools_search_tools
    reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: `+jsonString(save)+`}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "saved"}]
    reply: [{call: {id: c2, name: pytools_search_tools, args: {query: "capital letters shout", mode: hybrid, limit: 3}}}]
  - expect:
      last: [{role: user, response: pytools_search_tools, output: "gentools.text.shout.api"}]
    reply: [{call: {id: c3, name: ipybox_execute_ipython_cell, args: {code: `+jsonString(use)+`}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "HELLO!"}]
    reply: [{text: "Done."}]
`)
	events := run(t, a, "Save and find a tool.", nil)
	if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "Done." {
		t.Fatalf("events:%s", describe(events))
	}
	for _, tool := range fake.Requests()[0].Tools {
		if tool.Name == "pytools_list_categories" {
			t.Error("basic tools offered in hybrid mode")
		}
	}
	if _, err := os.Stat(filepath.Join(ws, ".freeact", "search.db")); err != nil {
		t.Errorf("no index at .freeact/search.db: %v", err)
	}
}

// GenerateMCPTools regenerates a server's folder and names a failing server.
func TestGenerateMCPTools(t *testing.T) {
	ws := mcpWorkspace(t, map[string]any{"ptc_servers": map[string]any{
		"test":   mcptest.Stdio(t),
		"broken": config.Server{Command: "/nonexistent/mcp-server"},
	}})
	cfg := load(t, ws)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	stale := filepath.Join(cfg.GeneratedDir(), "mcptools", "test", "old_tool.py")
	if err := os.MkdirAll(filepath.Dir(stale), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := mcpglue.GenerateTools(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), `MCP server "broken"`) || strings.Contains(err.Error(), `"test"`) {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("the stale module survived regeneration")
	}
	if _, err := os.Stat(filepath.Join(cfg.GeneratedDir(), "mcptools", "test", "echo.py")); err != nil {
		t.Error(err)
	}
	if err := mcpglue.GenerateTools(ctx, cfg, "nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown server: %v", err)
	}
}

// waitGone waits for the process pid to end.
func waitGone(t *testing.T, what, pid string) {
	t.Helper()
	testenv.Eventually(t, time.Minute, func() error {
		if _, err := os.Stat("/proc/" + pid); err == nil {
			return fmt.Errorf("%s (pid %s) is still running", what, pid)
		}
		return nil
	})
}

// Cancel ends a hung MCP call at once; the next turn's call works; a
// subagent has its own server process, ended with the subagent; Stop ends
// the agent's.
func TestMCPCancelSubagentAndStop(t *testing.T) {
	ws := mcpWorkspace(t, map[string]any{"mcp_servers": map[string]any{"test": mcptest.Stdio(t)}})
	started := filepath.Join(t.TempDir(), "started") // the hang tool creates it
	a, _ := fakeKernels(nil).startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: test_hang, args: {started: `+jsonString(started)+`}}}]
  - expect:
      has: [{role: user, response: test_hang, output: "Interrupted by user"}]
      last: [{role: user, text: "Next."}]
    reply: [{call: {id: s1, name: subagent_task, args: {prompt: "Tell your server's pid."}}}]
  - expect:
      messages: 1
    reply: [{call: {id: k1, name: test_pid, args: {}}}]
  - expect:
      last: [{role: user, response: test_pid}]
    reply: [{text: "sub done"}]
  - expect:
      last: [{role: user, response: subagent_task, output: "sub done"}]
    reply: [{call: {id: m1, name: test_pid, args: {}}}]
  - expect:
      last: [{role: user, response: test_pid}]
    reply: [{text: "Done."}]
`)
	var cancelled time.Time
	events := streamUntil(t, a, "Hang.", func(ev agent.Event) bool {
		_, ok := ev.(*agent.ApprovalRequest)
		return ok
	}, func(ev agent.Event) {
		ev.(*agent.ApprovalRequest).Approve(true)
		testenv.Eventually(t, time.Minute, func() error { // the call is in the server
			_, err := os.Stat(started)
			return err
		})
		cancelled = time.Now()
		a.Cancel()
	})
	if d := time.Since(cancelled); d > 30*time.Second {
		t.Errorf("cancelling a hung MCP call took %s", d)
	}
	if p := cancelledPhase(t, events); p != agent.PhaseTools {
		t.Errorf("phase %q:%s", p, describe(events))
	}
	events = run(t, a, "Next.", nil)
	pids := map[string]string{}
	for _, o := range of[*agent.ToolOutput](events) {
		if o.ToolName == "test_pid" {
			if o.IsError {
				t.Fatalf("test_pid failed: %s", o.Content)
			}
			pids[o.AgentID] = o.Content
		}
	}
	if len(pids) != 2 || pids[agent.MainAgent] == "" {
		t.Fatalf("pids %v:%s", pids, describe(events))
	}
	for id, pid := range pids {
		if id != agent.MainAgent {
			if pid == pids[agent.MainAgent] {
				t.Error("the subagent shares the main agent's server")
			}
			waitGone(t, "the subagent's server", pid)
		}
	}
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, "the server after Stop", pids[agent.MainAgent])
}

// A code-mode server whose folder exists is not connected at start; when
// its first call connects it, a tool list that changed is generated again.
func TestCodeModeRegeneratesChangedTools(t *testing.T) {
	cell := `from freeact_runtime import call_tool
print(call_tool("test", "echo", {"text": "first"}))`
	tiers(t, cells{cell: func(c *agenttest.Cell) {
		res, err := c.CallTool("test", "echo", map[string]any{"text": "first"})
		if err != nil {
			c.Raise("ToolFailed", err.Error())
		}
		var text string
		if json.Unmarshal(res, &text) != nil {
			c.Raise("TypeError", "not a string: "+string(res))
		}
		c.Print(text)
	}}, func(t *testing.T, x tier) {
		ws := mcpWorkspace(t, map[string]any{"ptc_servers": map[string]any{"test": mcptest.Stdio(t)}})
		dir := filepath.Join(ws, ".freeact", "generated", "mcptools", "test")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "old_tool.py"), []byte(`"""A tool the server no longer has."""`), 0o644); err != nil {
			t.Fatal(err)
		}
		a, _ := x.startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: `+jsonString(cell)+`}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "echo: first"}]
    reply: [{text: "ok"}]
`)
		if _, err := os.Stat(filepath.Join(dir, "echo.py")); err == nil {
			t.Fatal("the server was connected at start although its folder exists")
		}
		run(t, a, "Call.", nil)
		if _, err := os.Stat(filepath.Join(dir, "old_tool.py")); !os.IsNotExist(err) {
			t.Error("the stale module survived")
		}
		if _, err := os.Stat(filepath.Join(dir, "echo.py")); err != nil {
			t.Errorf("not regenerated: %v", err)
		}
	})
}

// The npm reference server-everything as a JSON tool server: its real
// schemas go to the model and a call comes back.
func TestJSONMCPReferenceServer(t *testing.T) {
	js := testenv.MCPServer(t, "server-everything")
	ws := mcpWorkspace(t, map[string]any{"mcp_servers": map[string]any{"everything": map[string]any{"command": "node", "args": []string{js, "stdio"}, "connect_timeout": 60}}})
	a, fake := realKernels.startIn(t, ws, `
turns:
  - expect:
      tools: [everything_echo, everything_get-sum, everything_get-structured-content]
    reply: [{call: {id: c1, name: everything_get-sum, args: {a: 19, b: 23}}}]
  - expect:
      last: [{role: user, response: everything_get-sum, output: "42"}]
    reply: [{text: "42."}]
`)
	run(t, a, "Add.", nil)
	for _, tool := range fake.Requests()[0].Tools {
		if strings.Contains(string(tool.Parameters), `"$schema"`) {
			t.Errorf("%s parameters keep $schema", tool.Name)
		}
	}
}

// A server that does not start is reported by MCPFailures with its group,
// its name and why, for the window to show; the agent starts without it.
func TestMCPFailuresAtStart(t *testing.T) {
	good := mcptest.Stdio(t)
	ws := mcpWorkspace(t, map[string]any{
		"mcp_servers": map[string]any{"test": good, "broken": map[string]any{"command": filepath.Join(t.TempDir(), "no-such-server")}},
		"ptc_servers": map[string]any{"gone": map[string]any{"command": filepath.Join(t.TempDir(), "no-such-ptc-server")}},
	})
	a, _ := fakeKernels(nil).startIn(t, ws, "turns: []\nallow_unplayed: true\n")
	failures := a.MCPFailures()
	slices.SortFunc(failures, func(x, y mcpglue.MCPFailure) int { return strings.Compare(x.Server, y.Server) })
	if len(failures) != 2 || failures[0].Server != "broken" || failures[0].Group != "mcp_servers" ||
		failures[1].Server != "gone" || failures[1].Group != "ptc_servers" {
		t.Fatalf("failures %+v", failures)
	}
	for _, f := range failures {
		if !strings.Contains(f.Error, "no-such") {
			t.Errorf("%s: the error does not say what failed: %q", f.Server, f.Error)
		}
	}
}

// A JSON server that did not start can be tried again (the window's Try
// again): while it still fails its failure says the new reason; once it
// connects it leaves MCPFailures and its tools are offered from the next
// model call, without a restart.
func TestMCPConnectAfterAFailedStart(t *testing.T) {
	good := mcptest.Stdio(t)
	missing := filepath.Join(t.TempDir(), "server")
	ws := mcpWorkspace(t, map[string]any{
		"mcp_servers": map[string]any{"late": map[string]any{"command": missing, "args": good.Args, "env": good.Env}},
	})
	a, _ := fakeKernels(nil).startIn(t, ws, `
turns:
  - expect:
      tools: [late_echo]
    reply: [{text: "Now I have it."}]
`)
	if f := a.MCPFailures(); len(f) != 1 || f[0].Server != "late" {
		t.Fatalf("failures at start: %+v", f)
	}
	if err := a.MCPConnect(t.Context(), "late"); err == nil {
		t.Fatal("a server whose command is still missing connected")
	}
	if f := a.MCPFailures(); len(f) != 1 || !strings.Contains(f[0].Error, missing) {
		t.Fatalf("failures after a failed try: %+v", f)
	}
	if err := os.Symlink(good.Command, missing); err != nil {
		t.Fatal(err)
	}
	if err := a.MCPConnect(t.Context(), "late"); err != nil {
		t.Fatalf("try again once the server is there: %v", err)
	}
	if f := a.MCPFailures(); len(f) != 0 {
		t.Errorf("failures once it connected: %+v", f)
	}
	run(t, a, "Use it.", nil)
	if err := a.MCPConnect(t.Context(), "nowhere"); err == nil || !strings.Contains(err.Error(), "nowhere") {
		t.Errorf("connect an unknown server: %v", err)
	}
}

// TestGeneratedModulesStayInTheWorkspace: code writes .freeact/generated
// (in the sandbox too), so it can put a symbolic link where the modules of
// MCP servers go. The agent, outside the sandbox, never follows it: a
// folder where the link points is neither replaced nor written.
func TestGeneratedModulesStayInTheWorkspace(t *testing.T) {
	ws := mcpWorkspace(t, map[string]any{"ptc_servers": map[string]any{"test": mcptest.Stdio(t)}})
	cfg := load(t, ws)
	outside := t.TempDir()
	mine := filepath.Join(outside, "test", "mine.txt")
	if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("not the agent's"), 0o644); err != nil {
		t.Fatal(err)
	}
	mcptools := filepath.Join(cfg.GeneratedDir(), "mcptools")
	if err := os.RemoveAll(mcptools); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, mcptools); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := mcpglue.GenerateTools(ctx, cfg); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("error %v", err)
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "not the agent's" {
		t.Errorf("the folder the link points to was replaced: %q %v", b, err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("written where the link points: %v", entries)
	}
}

// A server's progress and log notifications reach the call's card as
// ToolProgress events, for a JSON call and for a call from a cell (on the
// cell's card), a few of them however many the server sends.
func TestMCPProgressOnTheCard(t *testing.T) {
	const n = 3000
	cell := `from mcptools.flooder import flood
print(flood.run(flood.Params(count=` + fmt.Sprint(n) + `)))`
	ws := mcpWorkspace(t, map[string]any{
		"mcp_servers": map[string]any{"test": mcptest.Stdio(t)},
		"ptc_servers": map[string]any{"flooder": mcptest.Stdio(t)},
	})
	a, _ := realKernels.startIn(t, ws, `
turns:
  - reply: [{call: {id: j1, name: test_flood, args: {count: `+fmt.Sprint(n)+`}}}]
  - expect:
      last: [{role: user, response: test_flood, output: "sent `+fmt.Sprint(n)+`"}]
    reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: `+jsonString(cell)+`}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "sent `+fmt.Sprint(n)+`"}]
    reply: [{text: "Done."}]
`)
	events := run(t, a, "Flood.", func(*agent.ApprovalRequest) agent.Decision { return agent.Once })
	if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "Done." {
		t.Fatalf("events:%s", describe(events))
	}
	by := map[string][]*agent.ToolProgress{}
	for _, p := range of[*agent.ToolProgress](events) {
		by[p.CorrelationID+"/"+p.Server] = append(by[p.CorrelationID+"/"+p.Server], p)
	}
	for _, key := range []string{"j1/test", "c1/flooder"} {
		got := by[key]
		// 2n notifications become at most ten events a second.
		if len(got) == 0 || len(got) > n/4 {
			t.Errorf("%s: %d ToolProgress events for %d notifications", key, len(got), 2*n)
			continue
		}
		t.Logf("%s: %d notifications → %d ToolProgress events", key, 2*n, len(got))
		lines := 0
		var logged *agent.ToolProgress // an event with log lines
		for _, p := range got {
			lines += len(p.Logs) + p.Dropped
			if len(p.Logs) > 0 && logged == nil {
				logged = p
			}
			if p.Total != n || p.Progress < 1 || p.Progress > n || !strings.HasPrefix(p.Message, "step ") {
				t.Errorf("%s: progress %+v", key, p)
				break
			}
		}
		// The last event may carry progress alone: its lines went before.
		if lines == 0 || lines > n || logged == nil || !strings.HasPrefix(logged.Logs[0].Message, "line ") || logged.Logs[0].Level != "info" {
			t.Errorf("%s: %d log lines, first event with lines %+v", key, lines, logged)
		}
	}
	if len(by) != 2 {
		t.Errorf("progress went to %v", slices.Sorted(maps.Keys(by)))
	}
}

// A server that says its tools changed (notifications/tools/list_changed)
// has them listed again: a JSON server's new tool is offered to the model
// at its next call, and a code-mode server's module is written before the
// cell that caused the change goes on.
func TestMCPToolsListChanged(t *testing.T) {
	cell := `import importlib
from freeact_runtime import call_tool
print(call_tool("kit", "grow", {}))
importlib.invalidate_caches()
from mcptools.kit import grown
print(grown.run(grown.Params(text="from code")))`
	ws := mcpWorkspace(t, map[string]any{
		"mcp_servers": map[string]any{"test": mcptest.Stdio(t)},
		"ptc_servers": map[string]any{"kit": mcptest.Stdio(t)},
	})
	a, fake := realKernels.startIn(t, ws, `
turns:
  - reply: [{call: {id: j1, name: test_grow, args: {}}}]
  - expect:
      tools: [test_grow, test_grown]
      last: [{role: user, response: test_grow, output: "grown"}]
    reply: [{call: {id: j2, name: test_grown, args: {text: "hi"}}}]
  - expect:
      last: [{role: user, response: test_grown, output: "grown: hi"}]
    reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: `+jsonString(cell)+`}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "grown: from code"}]
    reply: [{text: "Done."}]
`)
	if _, err := os.Stat(filepath.Join(ws, ".freeact", "generated", "mcptools", "kit", "grown.py")); err == nil {
		t.Fatal("grown.py exists before the server added the tool")
	}
	events := run(t, a, "Grow.", func(*agent.ApprovalRequest) agent.Decision { return agent.Once })
	if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "Done." {
		t.Fatalf("events:%s", describe(events))
	}
	for _, tool := range fake.Requests()[0].Tools {
		if tool.Name == "test_grown" {
			t.Error("test_grown offered before the server added it")
		}
	}
}

// The execution timeout does not run while a code-mode call waits for the
// user to answer the server's form: a cell with a one-second limit whose
// form takes three seconds finishes with the answer.
func TestCodeModeFormPausesExecutionTimeout(t *testing.T) {
	js := testenv.MCPServer(t, "server-everything")
	ws := mcpWorkspace(t, map[string]any{
		"execution_timeout": 1,
		"ptc_servers":       map[string]any{"everything": map[string]any{"command": "node", "args": []string{js, "stdio"}, "connect_timeout": 60}},
	})
	cell := `from freeact_runtime import call_tool
print("answered:", call_tool("everything", "trigger-elicitation-request", {}))`
	var forms atomic.Int32
	elicit := func(context.Context, mcp.Form) (mcp.Answer, error) {
		forms.Add(1)
		time.Sleep(3 * time.Second) // the user fills in the form
		return mcp.Answer{Action: "accept", Values: map[string]any{"name": "Ada Lovelace", "check": true, "email": "ada@example.com",
			"homepage": "https://example.com", "birthdate": "1815-12-10", "untitledMultipleSelectEnum": []any{"Piano"}}}, nil
	}
	a, _ := realKernels.startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: `+jsonString(cell)+`}}}]
  - expect:
      last: [{role: user, response: ipybox_execute_ipython_cell, output: "Ada Lovelace"}]
    reply: [{text: "Done."}]
`, agent.WithMCPUser(mcp.SignInOptions{}, elicit))
	events := run(t, a, "Ask me.", func(*agent.ApprovalRequest) agent.Decision { return agent.Once })
	if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "Done." {
		t.Fatalf("events:%s", describe(events))
	}
	if n := forms.Load(); n != 1 {
		t.Errorf("%d forms asked, want 1", n)
	}
}

// The prompt box's catalog: server-everything's resources, templates with
// their variables and prompts with their arguments; a server with none
// (mcptest) is left out without an error; arguments complete.
func TestMCPCatalogAndCompletion(t *testing.T) {
	js := testenv.MCPServer(t, "server-everything")
	ws := mcpWorkspace(t, map[string]any{
		"mcp_servers": map[string]any{"everything": map[string]any{"command": "node", "args": []string{js, "stdio"}, "connect_timeout": 60}},
		"ptc_servers": map[string]any{"test": mcptest.Stdio(t)},
	})
	a, _ := fakeKernels(nil).startIn(t, ws, `turns: []`)
	cat := a.MCPCatalog(t.Context())
	if len(cat.Errors) > 0 {
		t.Errorf("errors: %v", cat.Errors)
	}
	var plain, template *mcpglue.MCPResource
	for i, r := range cat.Resources {
		if r.Server != "everything" {
			t.Errorf("resource of %s: %+v", r.Server, r)
		}
		switch {
		case len(r.Arguments) > 0 && template == nil:
			template = &cat.Resources[i]
		case r.Arguments == nil && plain == nil:
			plain = &cat.Resources[i]
		}
	}
	if plain == nil || plain.URI == "" || template == nil || !strings.Contains(template.URI, "{"+template.Arguments[0].Name) {
		t.Fatalf("resources %+v", cat.Resources)
	}
	i := slices.IndexFunc(cat.Prompts, func(p mcpglue.MCPPrompt) bool { return p.Name == "args-prompt" })
	if i < 0 || cat.Prompts[i].Server != "everything" || !slices.ContainsFunc(cat.Prompts[i].Arguments, func(a mcpglue.MCPArgument) bool { return a.Name == "city" && a.Required }) {
		t.Fatalf("prompts %+v", cat.Prompts)
	}
	values, err := a.CompleteMCP(t.Context(), "prompt", "everything", "completable-prompt", "department", "Eng", nil)
	if err != nil || !slices.Contains(values, "Engineering") {
		t.Errorf("completion: %v %v", values, err)
	}
	if _, err := a.CompleteMCP(t.Context(), "prompt", "nowhere", "p", "a", "", nil); err == nil || !strings.Contains(err.Error(), `"nowhere"`) {
		t.Errorf("an unknown server: %v", err)
	}
	vals, err := a.CompleteMCP(t.Context(), "resource", "everything", template.URI, template.Arguments[0].Name, "1", nil)
	if err != nil || !slices.Contains(vals, "1") {
		t.Errorf("template %s completes %s=1 to %v (%v)", template.URI, template.Arguments[0].Name, vals, err)
	}
}
