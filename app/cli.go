package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/app/desktop"
	"github.com/freeact/desktop/app/terminal"
)

// Build is what the binary hands the front ends (adapter.Build).
type Build = adapter.Build

// AppName is the product's name as users see it.
const AppName = adapter.AppName

// Streams are the standard input and outputs a command uses
// (adapter.Streams).
type Streams = adapter.Streams

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, b Build, s Streams) error
	// ownsInterrupt marks a command that handles Ctrl-C itself (the
	// terminal mode cancels a turn with it); others stop on it.
	ownsInterrupt bool
}

func commands() []command {
	return []command{
		{name: "init", summary: "create .freeact/ in a workspace (configuration, permissions, skills)", run: terminal.RunInit},
		{name: "run", summary: "chat with the agent in the terminal", run: terminal.RunRun, ownsInterrupt: true},
		{name: "acp", summary: "serve the Agent Client Protocol on stdio, for editors and notebooks (docs/acp.md)", run: runACP},
		{name: "export", summary: "write a saved session as a Jupyter notebook, Markdown or HTML", run: terminal.RunExport},
		{name: "mcp", summary: "sign in to or out of the workspace's OAuth-protected MCP servers, or show their state", run: terminal.RunMCP},
		{name: "hooks", summary: "list the hooks that run, trust a workspace's .freeact/hooks.json, or import Claude Code's", run: terminal.RunHooks},
		{name: "remote", summary: "sign in to or out of the JupyterHub the workspace's jupyter_url names (token on stdin, or --browser)", run: terminal.RunRemote},
		{name: "worktree", summary: "list, review, merge back or remove the git worktrees of conversations (run --worktree NAME makes one)", run: terminal.RunWorktree},
		{name: "checkpoints", summary: "list, diff or revert the file changes of turns and actions", run: terminal.RunCheckpoints},
		{name: "version", summary: "print the version and exit", run: runVersion},
	}
}

// Main runs the command line: no arguments opens the desktop window, a
// subcommand runs in the terminal. It returns the process exit status.
// The caller's ctx should end on SIGTERM; Ctrl-C (SIGINT) is handled here.
func Main(ctx context.Context, args []string, b Build, s Streams) int {
	err := dispatch(ctx, args, b, s)
	stderr := s.Err
	var status adapter.ExitStatus
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &status):
		return int(status)
	case errors.As(err, new(adapter.UsageError)):
		fmt.Fprintf(stderr, "%s: %v\n", AppName, err)
		return 2
	default:
		fmt.Fprintf(stderr, "%s: %v\n", AppName, err)
		return 1
	}
}

func dispatch(ctx context.Context, args []string, b Build, s Streams) error {
	if len(args) == 0 || desktopArgs(args) {
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
		defer stop()
		return desktop.RunDesktop(ctx, b, "")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		printUsage(s.Out)
		return nil
	case "-version", "--version":
		return runVersion(ctx, nil, b, s)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			if !c.ownsInterrupt {
				var stop context.CancelFunc
				ctx, stop = signal.NotifyContext(ctx, os.Interrupt)
				defer stop()
			}
			return c.run(ctx, args[1:], b, s)
		}
	}
	if len(args) == 1 && !strings.HasPrefix(args[0], "-") {
		// freeact PATH opens the window on a workspace, like `code .`.
		dir, err := workspaceArg(args[0])
		if err != nil {
			return adapter.UsageError{Err: err}
		}
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
		defer stop()
		return desktop.RunDesktop(ctx, b, dir)
	}
	printUsage(s.Err)
	return adapter.UsageError{Err: fmt.Errorf("unknown command %q: run '%s --help' for the list of commands", args[0], AppName)}
}

// workspaceArg checks the folder of `freeact PATH` and returns it absolute.
func workspaceArg(arg string) (string, error) {
	dir, err := filepath.Abs(adapter.ExpandHome(arg))
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", arg, err)
	}
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return "", fmt.Errorf("%q is neither a command nor a folder: no folder %s (create it with mkdir -p, or run '%s --help' for the commands)", arg, dir, AppName)
	case !st.IsDir():
		return "", fmt.Errorf("%s is a file: give the folder to work in", dir)
	}
	return dir, nil
}

// desktopArgs reports whether args are flags for the desktop window rather
// than a subcommand. Only development builds take such flags (Wails reads
// -devserver, -assetdir, ... itself).
func desktopArgs(args []string) bool {
	return desktop.DevBuild && strings.HasPrefix(args[0], "-") && !isHelpOrVersion(args[0])
}

func isHelpOrVersion(a string) bool {
	switch a {
	case "-h", "-help", "--help", "-version", "--version":
		return true
	}
	return false
}

func printUsage(w io.Writer) {
	fmt.Fprintf(w, "%s — a code-action agent that runs on your machine.\n\n", AppName)
	fmt.Fprintf(w, "Usage:\n  %s              open the desktop app (on the workspace last open)\n  %s PATH         open the desktop app on the workspace folder PATH\n  %s <command> [flags]\n\nCommands:\n", AppName, AppName, AppName)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun '%s <command> --help' for a command's flags.\n", AppName)
}

func runVersion(_ context.Context, args []string, b Build, s Streams) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if err := adapter.ParseFlags(fs, args, s.Err); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return adapter.UsageError{Err: fmt.Errorf("version takes no arguments, got %q", fs.Args())}
	}
	fmt.Fprintln(s.Out, adapter.Version(b))
	return nil
}
