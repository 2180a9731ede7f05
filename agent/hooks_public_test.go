package agent_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/hooks"
	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/internal/testenv"
)

// Public hook scripts written for Claude Code, installed unchanged from
// npm and PyPI by scripts/hook-scripts (its README.md names the packages
// and versions), run against the real kernel: a Bash validator
// (cc-safety-net) lets `!git --version` run and blocks `!git reset --hard`
// with its message; the same package's file protection denies a write of
// .env and leaves other writes alone; a logger (agent-pd) records each
// call that ran as PythonCell, Write, mcp__<server>__<tool>; a context
// injector (edit-guard, SessionStart) reaches the model with the first
// prompt; an MCP guard (agentbelay, matcher mcp__.*) sends an MCP tool to
// the user, called as a JSON tool and from code.
func TestPublicHookScriptsRunUnchanged(t *testing.T) {
	bins := testenv.HookScripts(t)
	ws := mcpWorkspace(t, map[string]any{
		"mcp_servers": map[string]any{"test": mcptest.Stdio(t)},
		"ptc_servers": map[string]any{"code": mcptest.Stdio(t)},
	})
	env := append(os.Environ(),
		"PATH="+strings.Join(append(bins, os.Getenv("PATH")), string(os.PathListSeparator)),
		// cc-safety-net keeps its own audit and settings here.
		"CC_SAFETY_NET_HOME="+t.TempDir())
	// edit-guard injects the project's recorded decisions.
	decisions := "# Indent with tabs\n\nStatus: accepted\n\n## Decision\n\nGo and Python files here are indented with tabs.\n"
	if err := os.WriteFile(filepath.Join(ws, "DECISIONS.md"), []byte(decisions), 0o644); err != nil {
		t.Fatal(err)
	}
	// agentbelay's policy, ours: its own coding-agent pack and one rule
	// for the test server's only tool. (Not `belay init`: it names the
	// policy after the folder, and a temporary folder's "001" is read back
	// as a number, which belay then refuses.)
	policy := `version: 1
name: freeact-test
extends: [coding-agent]
default: allow
rules:
  - id: mcp-echo
    action: ask
    message: Echo sends text to a connected MCP server.
    match:
      tool: "mcp__*__echo"
`
	if err := os.WriteFile(filepath.Join(ws, "belay.yaml"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	auditDir := t.TempDir()
	python := filepath.Join(bins[1], "python")
	sets := []hooks.Set{
		// cc-safety-net's npm package has no settings snippet for a plain
		// settings.json (it installs a Claude Code plugin): ours runs its
		// hook mode (-cc) on the tools it checks.
		hookSet(t, `{"hooks":{"PreToolUse":[{"matcher":"Bash|Read|Write|Edit","hooks":[{"type":"command","command":"cc-safety-net -cc"}]}]}}`),
		// agent-pd's install-hook command (python -m agent_pd.hook
		// --audit-dir DIR) on PostToolUse; it registers PermissionDenied
		// too, which freeact does not know.
		hookSet(t, `{"hooks":{"PostToolUse":[{"hooks":[{"type":"command","command":"`+python+` -m agent_pd.hook --audit-dir `+auditDir+`"}]}]}}`),
		// edit-guard's README snippet, as it is.
		hookSet(t, `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"edit-guard inject --session-start"}]}]}}`),
		// agentbelay's `belay install claude-code` writes the exec form
		// (command + args) on every tool; the same command in shell form,
		// on MCP tools.
		hookSet(t, `{"hooks":{"PreToolUse":[{"matcher":"mcp__.*","hooks":[{"type":"command","command":"belay hook claude-code","timeout":30}]}]}}`),
	}
	a, fake := realKernels.startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "!git --version"}}}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "!git reset --hard"}}}]
  - reply: [{call: {id: c3, name: filesystem_write_text_file, args: {path: ".env", content: "KEY=1"}}}]
  - reply: [{call: {id: c4, name: filesystem_write_text_file, args: {path: "notes.txt", content: "fine"}}}]
  - reply: [{call: {id: c5, name: test_echo, args: {text: "json"}}}]
  - reply: [{call: {id: c6, name: ipybox_execute_ipython_cell, args: {code: "from freeact_runtime import call_tool\nprint(call_tool('code', 'echo', {'text': 'from code'}))"}}}]
  - reply: [{text: "Done."}]
`, agent.WithHooks(&hooks.Runner{Dir: ws, Sets: sets, Env: env}))
	var asked []*agent.ApprovalRequest
	events := run(t, a, "Go.", func(r *agent.ApprovalRequest) agent.Decision {
		asked = append(asked, r)
		return agent.Once
	})
	if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "Done." {
		t.Fatalf("the turn did not go on to its end:%s", describe(events))
	}
	outputs := outputsByCall(events)
	if !strings.Contains(outputs["c1"], "git version") {
		t.Errorf("cc-safety-net stopped a harmless command: %q", outputs["c1"])
	}
	if !strings.Contains(outputs["c2"], "git reset --hard destroys all uncommitted changes") {
		t.Errorf("cc-safety-net: the cell was not told why: %q", outputs["c2"])
	}
	if !strings.Contains(outputs["c3"], "BLOCKED by CC Safety Net") || !strings.Contains(outputs["c3"], "secret.basename.env") {
		t.Errorf("cc-safety-net did not deny the write of .env: %q", outputs["c3"])
	}
	if _, err := os.Stat(filepath.Join(ws, ".env")); err == nil {
		t.Error("cc-safety-net: .env was written")
	}
	if data, err := os.ReadFile(filepath.Join(ws, "notes.txt")); err != nil || string(data) != "fine" {
		t.Errorf("cc-safety-net stopped another write: %v", err)
	}
	var mcpReasons []string
	for _, r := range asked {
		switch call := r.ToolCall.(type) {
		case agent.ShellAction:
			if strings.Contains(call.Command, "reset") {
				t.Errorf("a blocked command was asked: %q", call.Command)
			}
		case agent.FileWrite:
			if call.Path == ".env" {
				t.Error("a denied write was asked")
			}
		case agent.GenericCall:
			mcpReasons = append(mcpReasons, r.Reason)
		}
	}
	const belayAsk = "Belay needs your approval for this call: Echo sends text to a connected MCP server. (rule: mcp-echo)"
	if len(mcpReasons) != 2 || !strings.Contains(mcpReasons[0], belayAsk) || !strings.Contains(mcpReasons[1], belayAsk) {
		t.Errorf("agentbelay: MCP calls (JSON, then from code) asked with %q", mcpReasons)
	}
	// agent-pd's audit: one JSON line per call that ran, in a file named
	// after the session.
	logs, _ := filepath.Glob(filepath.Join(auditDir, "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("agent-pd wrote %v", logs)
	}
	data, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e struct {
			Event string `json:"event"`
			Tool  string `json:"tool_name"`
			Cwd   string `json:"cwd"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("agent-pd line %q: %v", line, err)
		}
		if e.Event != "PostToolUse" {
			t.Errorf("agent-pd logged a %q event", e.Event)
		}
		if e.Cwd != ws {
			t.Errorf("agent-pd cwd %q", e.Cwd)
		}
		tools = append(tools, e.Tool)
	}
	got := strings.Join(tools, ",")
	for _, want := range []string{"PythonCell", "Write", "mcp__test__echo", "mcp__code__echo"} {
		if !strings.Contains(got, want) {
			t.Errorf("agent-pd did not log %s: %s", want, got)
		}
	}
	first := fake.Requests()[0].Messages
	user, _ := json.Marshal(first[len(first)-1])
	for _, want := range []string{"Recorded project decisions (edit-guard session-start inject)", "Go and Python files here are indented with tabs."} {
		if !strings.Contains(string(user), want) {
			t.Errorf("edit-guard's context did not reach the model (%q): %s", want, user)
		}
	}
}
