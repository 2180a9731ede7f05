// Package agent is the freeact SDK: the Agent type, its typed events, tool
// calls and approvals, the turn loop and subagents. Front ends in package app
// drive it; the state, model and tool packages beneath it do the work.
//
// Use:
//
//	cfg, err := config.Load(workspace, config.LoadOptions{})
//	a, err := agent.New(cfg, agent.WithPermissions(perm))
//	err = a.Start(ctx) // model, session, Jupyter server and kernel
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
package agent
