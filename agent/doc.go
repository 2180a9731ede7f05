// Package agent is the freeact SDK: the Agent type, its typed events, tool
// calls and approvals, the turn loop and subagents. Front ends in package app
// drive it; the state, model and tool packages beneath it do the work.
// Concerns that need no Agent live in packages of their own between those
// and this one (agent/event, agent/history, agent/longsession, agent/ckpt,
// agent/cells, agent/approval, agent/variables, agent/mcpglue,
// agent/remote, agent/export, agent/failure, agent/tooldefs,
// agent/executor, agent/modelopen, agent/sandboxcfg, agent/kernelhost);
// none of them imports this package, which keeps aliases for the SDK
// names that moved. Where one needs the agent (agent/ckpt, agent/cells,
// agent/mcpglue, agent/kernelhost), it says what in a small interface
// that this package implements. This package's own files are layered:
// each uses only files beneath it, but for the subagent_task call that
// starts a subagent (docs/architecture.md lists them).
//
// Use:
//
//	ws, err := agent.OpenWorkspace(dir, agent.WorkspaceOptions{}) // .freeact/, config, permissions
//	a, err := ws.StartAgent(ctx, ws.Config) // model, session, Jupyter server and kernel
//	defer a.Stop()
//	for ev := range a.Stream(ctx, agent.Text("Plot sin(x)")) {
//		switch e := ev.(type) {
//		case *agent.ApprovalRequest:
//			e.Approve(true) // or e.Answer(agent.Always, pattern)
//		case *agent.InputRequest:
//			e.Reply("an answer to the cell's input()")
//		case *agent.ResponseChunk:
//			fmt.Print(e.Text)
//		}
//	}
//
// A turn sends the conversation to the model, runs the tool calls of each
// reply (in parallel, each after its approval), and repeats until a reply
// without calls, max_turns, a rejection ("Tool call rejected" ends the turn),
// Cancel (a Cancelled event) or a failure (a Failed event; the turn is taken
// back from the history). Code actions run in the agent's kernel; while they
// run, each shell command and programmatic tool call in them is asked for
// separately. Every event names its agent ("main" or "sub-xxxx") and, when it
// belongs to a tool call, the call's id, which ties the approval, the output
// chunks and the result together. Messages go to the session file at each
// step.
//
// Code actions run in an Executor, one per agent and subagent: a kernel on
// the Jupyter server the agent starts (or connects to with jupyter_url, or
// is given with WithKernelServer), or whatever WithExecutors starts;
// agent/agenttest scripts executors for tests that run without Python.
//
// MCP servers of agent.json take part in two ways (agent/mcp). Those in
// mcp_servers are connected at Start, in parallel, and their tools are
// offered to the model as "<server>_<tool>" JSON tool calls, each approved as
// a GenericCall. Those in ptc_servers are called from code through the
// modules generated under .freeact/generated/mcptools (agent/apigen; Start
// generates the folders that are missing, mcpglue.GenerateTools regenerates
// them); they connect on their first call, which is approved as a
// GenericCall with PTC set. A failing server gives an error result, never
// the end of a turn, and is restarted on its next call. The model finds
// Python tools with pytools_list_categories / pytools_list_tools, or with
// pytools_search_tools when tool_search is "hybrid" (agent/toolsearch).
// Subagents open their own MCP connections; Stop closes them all. An
// agent's servers are an mcpglue.Hub; the methods here hand it the
// agent's state.
//
// Hooks (agent/hooks, docs/hooks.md) run at every call the agent approves
// and at prompts, stops and sessions, in Claude Code's protocol.
// Workspace.StartAgent runs the user's hooks.json and a trusted
// .freeact/hooks.json; a program adds Go functions with WithHooks:
//
//	var set hooks.Set
//	set.Add(hooks.PreToolUse, "Bash", "no-rm", func(ctx context.Context, in hooks.Input) (hooks.Output, error) {
//		if strings.Contains(string(in.ToolInput), "rm -rf") {
//			return hooks.Output{Specific: &hooks.SpecificOutput{PermissionDecision: hooks.Deny, PermissionDecisionReason: "no rm -rf"}}, nil
//		}
//		return hooks.Output{}, nil
//	})
//	a, err := ws.StartAgent(ctx, ws.Config, agent.WithHooks(&hooks.Runner{Dir: dir, Sets: []hooks.Set{set}}))
package agent
