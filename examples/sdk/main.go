// Command sdk shows the freeact Go SDK in a few lines: load a workspace,
// start an agent, stream one request and answer its approval requests.
//
//	go run ./examples/sdk -workspace . "Plot sin(x) and save it as sin.png"
//
// It approves code actions and shell commands that look harmless and asks
// on the terminal for everything else.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/freeact/desktop/agent"
)

func main() {
	workspace := flag.String("workspace", ".", "workspace directory")
	flag.Parse()
	prompt := strings.Join(flag.Args(), " ")
	if prompt == "" {
		fmt.Fprintln(os.Stderr, "usage: sdk [-workspace DIR] REQUEST")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *workspace, prompt); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, workspace, prompt string) error {
	// Creates .freeact/ when missing, loads agent.json and the permission
	// rules; calls the rules allow come without an ApprovalRequest.
	ws, err := agent.OpenWorkspace(workspace, agent.WorkspaceOptions{})
	if err != nil {
		return err
	}
	a, err := ws.StartAgent(ctx, ws.Config)
	if err != nil {
		return err
	}
	defer a.Stop()
	stdin := bufio.NewScanner(os.Stdin)
	for event := range a.Stream(ctx, agent.Text(prompt)) {
		switch e := event.(type) {
		case *agent.ApprovalRequest:
			switch call := e.ToolCall.(type) {
			case agent.CodeAction:
				fmt.Printf("\n[%s] running code:\n%s\n", e.AgentID, call.Code)
				e.Approve(true)
			case agent.ShellAction:
				ok := !strings.Contains(call.Command, "rm ")
				fmt.Printf("[%s] shell: %s (approved: %v)\n", e.AgentID, call.Command, ok)
				e.Approve(ok)
			default:
				fmt.Printf("[%s] allow %s? [y/n] ", e.AgentID, call.Name())
				e.Approve(stdin.Scan() && strings.HasPrefix(strings.ToLower(stdin.Text()), "y"))
			}
		case *agent.Thoughts:
			fmt.Printf("(thinking) %s\n", e.Text)
		case *agent.CodeExecutionOutput:
			fmt.Printf("output:\n%s\n", e.Text)
		case *agent.ToolOutput:
			if e.ToolName != agent.ExecuteTool {
				fmt.Printf("%s: %s\n", e.ToolName, e.Content)
			}
		case *agent.Response:
			fmt.Printf("\n%s\n", e.Text)
		case *agent.Failed:
			return fmt.Errorf("turn failed: %s", e.Error)
		case *agent.Cancelled:
			fmt.Printf("cancelled during %s\n", e.Phase)
		}
	}
	return nil
}
