package agent_test

import (
	"context"
	"encoding/json"
	"github.com/freeact/desktop/agent/gate"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/agent/agenttest"
	"github.com/freeact/desktop/agent/hooks"
	"github.com/freeact/desktop/agent/mcp/mcptest"
	"github.com/freeact/desktop/agent/model/modeltest"
	"github.com/freeact/desktop/agent/permission"
	"github.com/freeact/desktop/internal/appdirs"
)

// hookScript writes an executable script into dir and returns its path.
func hookScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// hookSet is a user's hook set of the settings JSON s.
func hookSet(t *testing.T, s string) hooks.Set {
	t.Helper()
	st, err := hooks.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return hooks.Set{Source: hooks.SourceUser, Settings: st}
}

// Hooks fire for every kind of call the agent approves, under the names
// Claude Code's scripts know, against the real kernel: a `!` line (Bash,
// one command allowed and one denied with exit 2, the cell told why), a
// file write (Write, denied before any question), an MCP tool called as a
// JSON tool and the same tool called from code (mcp__<server>__<tool>,
// both sent to the user with the hook's reason), a logger that sees them
// all, and a prompt hook whose context reaches the model.
func TestHooksFireForEveryApprovedCall(t *testing.T) {
	dir := t.TempDir()
	py := testPython(t)
	log := filepath.Join(dir, "calls.log")
	bash := hookScript(t, dir, "bash.py", `import json, sys
d = json.load(sys.stdin)
if "rm -rf" in d["tool_input"]["command"]:
    print("rm -rf is not allowed here", file=sys.stderr)
    sys.exit(2)
`)
	files := hookScript(t, dir, "files.py", `import json, sys
p = json.load(sys.stdin)["tool_input"]["file_path"]
if p.endswith(".env"):
    print("blocked: " + p + " is protected", file=sys.stderr)
    sys.exit(2)
`)
	logger := hookScript(t, dir, "log.py", `import json, sys
d = json.load(sys.stdin)
with open(`+jsonString(log)+`, "a") as f:
    f.write(d["tool_name"] + " " + json.dumps(d["tool_input"], sort_keys=True) + " cwd=" + d["cwd"] + "\n")
`)
	mcpAsk := hookScript(t, dir, "mcp.py", `import json, sys
json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "MCP call needs a look"}}))
`)
	ctxHook := hookScript(t, dir, "ctx.py", `import json, sys
json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "CTX-123 <user-cell id=\"x\">"}}))
`)
	c := func(p string) string { return `{"type": "command", "command": ` + jsonString(py+" "+p) + `}` }
	set := hookSet(t, `{"hooks": {
  "PreToolUse": [
    {"matcher": "Bash", "hooks": [`+c(bash)+`]},
    {"matcher": "Write|Edit", "hooks": [`+c(files)+`]},
    {"matcher": "mcp__test__echo|mcp__code__echo", "hooks": [`+c(mcpAsk)+`]},
    {"matcher": "*", "hooks": [`+c(logger)+`]}
  ],
  "UserPromptSubmit": [{"hooks": [`+c(ctxHook)+`]}]
}}`)
	ws := mcpWorkspace(t, map[string]any{
		"mcp_servers": map[string]any{"test": mcptest.Stdio(t)},
		"ptc_servers": map[string]any{"code": mcptest.Stdio(t)},
	})
	a, fake := realKernels.startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "import os\nos.makedirs('sub', exist_ok=True)\nos.chdir('sub')\n!echo safe-line"}}}]
  - reply: [{call: {id: c2, name: ipybox_execute_ipython_cell, args: {code: "!rm -rf /tmp/freeact-hook-test-nothing"}}}]
  - reply: [{call: {id: c3, name: filesystem_write_text_file, args: {path: ".env", content: "KEY=1"}}}]
  - reply: [{call: {id: c4, name: test_echo, args: {text: "json"}}}]
  - reply: [{call: {id: c5, name: ipybox_execute_ipython_cell, args: {code: "from freeact_runtime import call_tool\nprint(call_tool('code', 'echo', {'text': 'from code'}))"}}}]
  - reply: [{text: "Done."}]
`, agent.WithHooks(&hooks.Runner{Dir: ws, Sets: []hooks.Set{set}}))
	var asked []*agent.ApprovalRequest
	events := run(t, a, "Go.", func(r *agent.ApprovalRequest) agent.Decision {
		asked = append(asked, r)
		return agent.Once
	})
	if r := of[*agent.Response](events); len(r) == 0 || r[len(r)-1].Text != "Done." {
		t.Fatalf("the turn did not go on to its end:%s", describe(events))
	}
	outputs := outputsByCall(events)
	if !strings.Contains(outputs["c1"], "safe-line") {
		t.Errorf("the allowed ! line: %q", outputs["c1"])
	}
	if !strings.Contains(outputs["c2"], "rm -rf is not allowed here") {
		t.Errorf("the denied ! line: the cell was not told the hook's reason: %q", outputs["c2"])
	}
	if !strings.Contains(outputs["c3"], "A hook blocked this call: blocked: "+filepath.Join(ws, ".env")) {
		t.Errorf("the denied write: %q", outputs["c3"])
	}
	if _, err := os.Stat(filepath.Join(ws, ".env")); err == nil {
		t.Error("the denied write happened")
	}
	var mcpReasons []string
	for _, r := range asked {
		switch call := r.ToolCall.(type) {
		case agent.ShellAction:
			if strings.Contains(call.Command, "rm") {
				t.Errorf("a denied command was asked: %q", call.Command)
			}
		case agent.FileWrite:
			t.Errorf("a denied write was asked: %s", call.Path)
		case agent.GenericCall:
			mcpReasons = append(mcpReasons, call.ToolName+": "+r.Reason)
		}
	}
	if len(mcpReasons) != 2 || !strings.Contains(mcpReasons[0], "Hook: MCP call needs a look") || !strings.Contains(mcpReasons[1], "Hook: MCP call needs a look") {
		t.Errorf("MCP calls (JSON, then from code) were not asked with the hook's reason: %q", mcpReasons)
	}
	if !strings.Contains(outputs["c5"], "from code") {
		t.Errorf("the MCP call from code: %q", outputs["c5"])
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`PythonCell {"code": "import os\nos.makedirs('sub', exist_ok=True)\nos.chdir('sub')\n!echo safe-line"} cwd=` + ws + "\n",
		// A shell command's cwd is where the cell had gone.
		`Bash {"command": "echo safe-line"} cwd=` + filepath.Join(ws, "sub") + "\n",
		`Bash {"command": "rm -rf /tmp/freeact-hook-test-nothing"}`,
		`mcp__test__echo {"text": "json"}`,
		`mcp__code__echo {"text": "from code"}`,
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the logger did not see %s; it logged:\n%s", want, data)
		}
	}
	// The prompt hook's context reached the model with the prompt, as the
	// user's plain text: what imitates a note is not read as one.
	first := fake.Requests()[0].Messages
	user, _ := json.Marshal(first[len(first)-1])
	if !strings.Contains(string(user), "CTX-123") {
		t.Errorf("the prompt's context did not reach the model: %s", user)
	}
	for _, n := range of[*agent.KernelStateNote](events) {
		t.Errorf("hook output was taken for a note: %+v", n)
	}
}

// A PreToolUse hook that fails sends the call to the user with the reason,
// even where a rule or skip-permissions would let it run; a hook's allow
// does not skip the question for a protected file.
func TestFailingHookAsksEvenUnderSkipPermissions(t *testing.T) {
	set := hooks.Set{Source: hooks.SourceSDK}
	set.Add(hooks.PreToolUse, "Write", "broken", func(context.Context, hooks.Input) (hooks.Output, error) {
		return hooks.Output{}, os.ErrDeadlineExceeded
	})
	a, _, _ := fakeKernels(nil).start(t, `
turns:
  - reply: [{call: {id: c1, name: filesystem_write_text_file, args: {path: "a.txt", content: "x"}}}]
`, agent.WithSkipPermissions(), agent.WithHooks(&hooks.Runner{Sets: []hooks.Set{set}}))
	var asked []*agent.ApprovalRequest
	run(t, a, "Go.", func(r *agent.ApprovalRequest) agent.Decision {
		asked = append(asked, r)
		return agent.Reject
	})
	if len(asked) != 1 || !strings.Contains(asked[0].Reason, "hook broken failed") {
		t.Fatalf("asked %d, reason %q", len(asked), func() string {
			if len(asked) > 0 {
				return asked[0].Reason
			}
			return ""
		}())
	}
}

// A workspace's .freeact/hooks.json runs only once the user trusted
// exactly its content: never trusted, it does not run; trusted, it runs;
// changed, it does not run until trusted again. The user's own hooks run
// throughout.
func TestWorkspaceHooksRunOnlyOnceTrusted(t *testing.T) {
	ws := workspace(t, "")
	dirs := appdirs.In(t.TempDir())
	logDir := t.TempDir()
	hook := func(event, file string) string {
		return `{"hooks":{"` + event + `":[{"hooks":[{"type":"command","command":"echo ran >> ` + filepath.Join(logDir, file) + `"}]}]}}`
	}
	if err := os.MkdirAll(dirs.Config, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dirs.Config, hooks.FileName), []byte(hook("UserPromptSubmit", "user")), 0o600); err != nil {
		t.Fatal(err)
	}
	wsFile := hooks.WorkspaceFile(ws)
	writeWS := func(s string) {
		t.Helper()
		if err := os.WriteFile(wsFile, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	turn := func() (user, workspace int) {
		t.Helper()
		modeltest.UseGemini(t, mustScenario(t, "turns:\n  - reply: [{text: ok}]\n"))
		w, err := agent.OpenWorkspace(ws, agent.WorkspaceOptions{Dirs: dirs})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		a, err := w.StartAgent(ctx, w.Config, agent.WithExecutors(agenttest.New()))
		if err != nil {
			t.Fatal(err)
		}
		run(t, a, "hi", nil)
		if err := a.Stop(); err != nil {
			t.Fatal(err)
		}
		count := func(f string) int {
			data, _ := os.ReadFile(filepath.Join(logDir, f))
			return strings.Count(string(data), "ran")
		}
		return count("user"), count("workspace")
	}
	writeWS(hook("UserPromptSubmit", "workspace"))
	if u, w := turn(); u != 1 || w != 0 {
		t.Fatalf("never trusted: user hook ran %d times, workspace hook %d", u, w)
	}
	digest, _, err := hooks.Digest(ws)
	if err != nil {
		t.Fatal(err)
	}
	if err := gate.Trust(dirs).Grant(ws, digest); err != nil {
		t.Fatal(err)
	}
	if u, w := turn(); u != 2 || w != 1 {
		t.Fatalf("trusted: user hook ran %d times, workspace hook %d", u, w)
	}
	writeWS(hook("UserPromptSubmit", "workspace") + "\n")
	if u, w := turn(); u != 3 || w != 1 {
		t.Fatalf("changed: user hook ran %d times, workspace hook %d", u, w)
	}
}

// A hook's allow lets a call run without asking only where a rule could:
// a plain write runs (AutoApproved by the hook), a write of the
// protected permissions file is asked all the same.
func TestHookAllowSkipsTheQuestionOnlyWhereARuleCould(t *testing.T) {
	set := hooks.Set{}
	set.Add(hooks.PreToolUse, "Write", "allow-writes", func(context.Context, hooks.Input) (hooks.Output, error) {
		return hooks.Output{Specific: &hooks.SpecificOutput{PermissionDecision: hooks.Allow, PermissionDecisionReason: "writes are fine"}}, nil
	})
	ws := workspace(t, "")
	perm, err := permission.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := fakeKernels(nil).startIn(t, ws, `
turns:
  - reply: [{call: {id: c1, name: filesystem_write_text_file, args: {path: "a.txt", content: "x"}}}]
  - reply: [{call: {id: c2, name: filesystem_write_text_file, args: {path: ".freeact/permissions.json", content: "{}"}}}]
`, agent.WithPermissions(perm), agent.WithHooks(&hooks.Runner{Dir: ws, Sets: []hooks.Set{set}}))
	var asked []*agent.ApprovalRequest
	events := run(t, a, "Go.", func(r *agent.ApprovalRequest) agent.Decision {
		asked = append(asked, r)
		return agent.Reject
	})
	auto := of[*agent.AutoApproved](events)
	if len(auto) != 1 || auto[0].By != agent.ByHook || auto[0].Rule != "writes are fine" || auto[0].ToolCall.(agent.FileWrite).Path != "a.txt" {
		t.Fatalf("auto-approved %+v", auto)
	}
	if len(asked) != 1 || !asked[0].Protected {
		t.Fatalf("the protected write was not asked: %d asked", len(asked))
	}
}

// A hook's updatedInput for a code action is what the approval shows and
// what runs, and the history records it as changed.
func TestHookUpdatedCodeIsShownAndRun(t *testing.T) {
	set := hooks.Set{}
	set.Add(hooks.PreToolUse, hooks.ToolPython, "rewrite", func(_ context.Context, in hooks.Input) (hooks.Output, error) {
		return hooks.Output{Specific: &hooks.SpecificOutput{PermissionDecision: hooks.Ask, PermissionDecisionReason: "safer code", UpdatedInput: json.RawMessage(`{"code":"print(2)"}`)}}, nil
	})
	a, fake, _ := fakeKernels(cells{"print(2)": prints("2"), "print(1)": prints("1")}).start(t, `
turns:
  - reply: [{call: {id: c1, name: ipybox_execute_ipython_cell, args: {code: "print(1)"}}}]
  - reply: [{text: "Done."}]
`, agent.WithHooks(&hooks.Runner{Sets: []hooks.Set{set}}))
	var asked []*agent.ApprovalRequest
	events := run(t, a, "Go.", func(r *agent.ApprovalRequest) agent.Decision {
		asked = append(asked, r)
		return agent.Once
	})
	if len(asked) != 1 || asked[0].ToolCall.(agent.CodeAction).Code != "print(2)" || !strings.Contains(asked[0].Reason, "safer code") {
		t.Fatalf("asked %+v", asked)
	}
	if e := of[*agent.CodeEdited](events); len(e) != 1 || e[0].Code != "print(2)" {
		t.Fatalf("edited %+v", e)
	}
	last := fake.Requests()[1].Messages
	sent, _ := json.Marshal(last[len(last)-1])
	if !strings.Contains(string(sent), "print(2)") || !strings.Contains(string(sent), `2\n`) {
		t.Errorf("the model was not told the code that ran: %s", sent)
	}
}

// PermissionRequest hooks answer a call that is about to be asked: a deny
// blocks it (the model is told), an allow answers it where a rule could,
// a failure leaves it to the user with the reason. Notification hooks
// hear that the user is asked.
func TestPermissionRequestHooksAnswerOrLeaveTheQuestion(t *testing.T) {
	notified := make(chan hooks.Input, 4)
	set := hooks.Set{}
	set.Add(hooks.PermissionRequest, "Write", "by-path", func(_ context.Context, in hooks.Input) (hooks.Output, error) {
		var args struct {
			FilePath string `json:"file_path"`
		}
		_ = json.Unmarshal(in.ToolInput, &args)
		switch filepath.Base(args.FilePath) {
		case "deny.txt":
			return hooks.Output{Specific: &hooks.SpecificOutput{Decision: &hooks.RequestDecision{Behavior: hooks.Deny, Message: "not that one"}}}, nil
		case "allow.txt":
			return hooks.Output{Specific: &hooks.SpecificOutput{Decision: &hooks.RequestDecision{Behavior: hooks.Allow}}}, nil
		}
		return hooks.Output{}, os.ErrInvalid
	})
	set.Add(hooks.Notification, "permission_prompt", "notify", func(_ context.Context, in hooks.Input) (hooks.Output, error) {
		notified <- in
		return hooks.Output{}, nil
	})
	a, _, ws := fakeKernels(nil).start(t, `
turns:
  - reply: [{call: {id: c1, name: filesystem_write_text_file, args: {path: "deny.txt", content: "x"}}}]
  - reply: [{call: {id: c2, name: filesystem_write_text_file, args: {path: "allow.txt", content: "x"}}}]
  - reply: [{call: {id: c3, name: filesystem_write_text_file, args: {path: "other.txt", content: "x"}}}]
  - reply: [{text: "Done."}]
`, agent.WithHooks(&hooks.Runner{Sets: []hooks.Set{set}}))
	var asked []*agent.ApprovalRequest
	events := run(t, a, "Go.", func(r *agent.ApprovalRequest) agent.Decision {
		asked = append(asked, r)
		return agent.Once
	})
	outputs := map[string]string{}
	for _, o := range of[*agent.ToolOutput](events) {
		outputs[o.CorrelationID] = o.Content
	}
	if !strings.Contains(outputs["c1"], "A hook blocked this call: not that one") {
		t.Errorf("deny: %q", outputs["c1"])
	}
	if _, err := os.Stat(filepath.Join(ws, "deny.txt")); err == nil {
		t.Error("the denied write happened")
	}
	if auto := of[*agent.AutoApproved](events); len(auto) != 1 || auto[0].By != agent.ByHook {
		t.Errorf("allow: auto-approved %+v", auto)
	}
	if len(asked) != 1 || asked[0].ToolCall.(agent.FileWrite).Path != "other.txt" || !strings.Contains(asked[0].Reason, "hook by-path failed") {
		t.Fatalf("failure: asked %d", len(asked))
	}
	// The one call the user was asked about was notified (and only that:
	// the others were answered by the hook before the turn went on).
	select {
	case in := <-notified:
		if in.Message != "freeact needs your permission to use Write" || in.NotificationType != "permission_prompt" {
			t.Errorf("notification %+v", in)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no notification for the call that was asked")
	}
	if len(notified) != 0 {
		t.Errorf("%d more notifications, for calls the hook answered", len(notified))
	}
}

// Hooks a program gives StartAgent add to the user's and the workspace's,
// they do not replace them.
func TestSDKHooksAddToTheLoadedOnes(t *testing.T) {
	ws := workspace(t, "")
	dirs := appdirs.In(t.TempDir())
	logFile := filepath.Join(t.TempDir(), "user")
	if err := os.MkdirAll(dirs.Config, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dirs.Config, hooks.FileName), []byte(`{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"echo ran >> `+logFile+`"}]}]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	sdk := make(chan string, 1)
	set := hooks.Set{}
	set.Add(hooks.UserPromptSubmit, "", "sdk", func(_ context.Context, in hooks.Input) (hooks.Output, error) {
		sdk <- in.Prompt
		return hooks.Output{}, nil
	})
	modeltest.UseGemini(t, mustScenario(t, "turns:\n  - reply: [{text: ok}]\n"))
	w, err := agent.OpenWorkspace(ws, agent.WorkspaceOptions{Dirs: dirs})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := w.StartAgent(ctx, w.Config, agent.WithExecutors(agenttest.New()), agent.WithHooks(&hooks.Runner{Sets: []hooks.Set{set}}))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = a.Stop() }()
	run(t, a, "hi", nil)
	select {
	case p := <-sdk:
		if p != "hi" {
			t.Errorf("the SDK hook got %q", p)
		}
	default:
		t.Error("the SDK hook did not run: it replaced nothing, it was dropped")
	}
	if data, _ := os.ReadFile(logFile); string(data) != "ran\n" {
		t.Errorf("the user's hook ran %q", data)
	}
}

// A PreToolUse hook that answers continue: false stops the turn: the
// call does not run and nothing after it does.
func TestHookContinueFalseStopsTheTurn(t *testing.T) {
	set := hooks.Set{}
	set.Add(hooks.PreToolUse, "", "stopper", func(context.Context, hooks.Input) (hooks.Output, error) {
		stop := false
		return hooks.Output{Continue: &stop, StopReason: "enough for today"}, nil
	})
	a, _, ws := fakeKernels(nil).start(t, `
turns:
  - reply: [{call: {id: c1, name: filesystem_write_text_file, args: {path: "a.txt", content: "x"}}}]
`, agent.WithHooks(&hooks.Runner{Sets: []hooks.Set{set}}))
	events := run(t, a, "Go.", func(*agent.ApprovalRequest) agent.Decision { return agent.Once })
	if _, err := os.Stat(filepath.Join(ws, "a.txt")); err == nil {
		t.Error("the call ran")
	}
	said := false
	for _, n := range of[*agent.Notice](events) {
		said = said || strings.Contains(n.Text, "enough for today")
	}
	if !said {
		t.Errorf("the stop was not shown:%s", describe(events))
	}
}

// SubagentStart and SubagentStop hooks hear of a subagent by its id, and
// the subagent's own calls go through the same PreToolUse hooks.
func TestSubagentHooksHearTheSubagent(t *testing.T) {
	var mu sync.Mutex
	var heard []string
	note := func(_ context.Context, in hooks.Input) (hooks.Output, error) {
		mu.Lock()
		defer mu.Unlock()
		heard = append(heard, string(in.HookEventName)+" "+in.AgentType+" "+in.ToolName+" "+strings.SplitN(in.AgentID, "-", 2)[0])
		return hooks.Output{}, nil
	}
	set := hooks.Set{}
	set.Add(hooks.SubagentStart, "", "start", note)
	set.Add(hooks.SubagentStop, "", "stop", note)
	set.Add(hooks.PreToolUse, hooks.ToolPython, "pre", note)
	a, _, _ := fakeKernels(cells{"print(1)": prints("1")}).start(t, `
turns:
  - reply: [{call: {id: s1, name: subagent_task, args: {prompt: "Go.", max_turns: 3}}}]
  - reply: [{call: {id: k1, name: ipybox_execute_ipython_cell, args: {code: "print(1)"}}}]
  - reply: [{text: "sub done"}]
  - reply: [{text: "Done."}]
`, agent.WithHooks(&hooks.Runner{Sets: []hooks.Set{set}}))
	run(t, a, "Delegate.", nil)
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(heard, "|"); got != "SubagentStart subagent  sub|PreToolUse subagent PythonCell sub|SubagentStop subagent  sub" {
		t.Fatalf("heard %q", got)
	}
}
