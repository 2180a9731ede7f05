package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/freeact/desktop/internal/appdirs"
)

// Build is what the binary hands the front ends: its version and the assets
// embedded at compile time.
type Build struct {
	// Version is what the build named (make passes scripts/version.sh
	// through -ldflags); empty for a plain go build.
	Version string
	// Release is the tracked VERSION file, embedded: what a plain go build
	// reports, with the commit Go records.
	Release string
	// Dirs are the folders the app keeps its files in, read once at start
	// (appdirs.FromXDG); tests give folders of their own.
	Dirs   appdirs.Dirs
	Assets fs.FS  // the built frontend, rooted above frontend/dist
	Icon   []byte // PNG window icon
}

// AppName is the product's name as users see it.
const AppName = "freeact"

// Streams are the standard input and outputs a command uses.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
}

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
		{name: "init", summary: "create .freeact/ in a workspace (configuration, permissions, skills)", run: runInit},
		{name: "run", summary: "chat with the agent in the terminal", run: runRun, ownsInterrupt: true},
		{name: "export", summary: "write a saved session as a Jupyter notebook, Markdown or HTML", run: runExport},
		{name: "mcp", summary: "sign in to or out of the workspace's OAuth-protected MCP servers, or show their state", run: runMCP},
		{name: "hooks", summary: "list the hooks that run, or trust a workspace's .freeact/hooks.json", run: runHooks},
		{name: "checkpoints", summary: "list, diff or revert the file changes of turns and actions", run: runCheckpoints},
		{name: "version", summary: "print the version and exit", run: runVersion},
	}
}

// usageError is an error in how the command was called; Main answers it
// with exit status 2.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// Main runs the command line: no arguments opens the desktop window, a
// subcommand runs in the terminal. It returns the process exit status.
// The caller's ctx should end on SIGTERM; Ctrl-C (SIGINT) is handled here.
func Main(ctx context.Context, args []string, b Build, s Streams) int {
	err := dispatch(ctx, args, b, s)
	stderr := s.Err
	var status exitStatus
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &status):
		return int(status)
	case errors.As(err, new(usageError)):
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
		return RunDesktop(ctx, b, "")
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
			return usageError{err}
		}
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
		defer stop()
		return RunDesktop(ctx, b, dir)
	}
	printUsage(s.Err)
	return usageError{fmt.Errorf("unknown command %q: run '%s --help' for the list of commands", args[0], AppName)}
}

// workspaceArg checks the folder of `freeact PATH` and returns it absolute.
func workspaceArg(arg string) (string, error) {
	dir, err := filepath.Abs(expandHome(arg))
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

// expandHome replaces a leading ~ (alone or before /) with the home folder.
func expandHome(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return p
	}
	return filepath.Join(home, strings.TrimPrefix(p, "~"))
}

// desktopArgs reports whether args are flags for the desktop window rather
// than a subcommand. Only development builds take such flags (Wails reads
// -devserver, -assetdir, ... itself).
func desktopArgs(args []string) bool {
	return devBuild && strings.HasPrefix(args[0], "-") && !isHelpOrVersion(args[0])
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

// VersionInfo describes the running binary.
type VersionInfo struct {
	Version   string `json:"version"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
	Commit    string `json:"commit"`
}

func versionInfo(b Build) VersionInfo {
	v := VersionInfo{GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	var settings []debug.BuildSetting
	if bi, ok := debug.ReadBuildInfo(); ok {
		settings = bi.Settings
	}
	v.Version, v.Commit = buildVersion(b.Version, b.Release, settings)
	return v
}

// buildVersion is the version a binary reports and the commit it was built
// from. A version set at link time wins; without one (a plain go build) it
// is the embedded release plus the commit Go's build info records, in the
// form scripts/version.sh uses: 0.3.0+git.1a2b3c4, ".dirty" when the tree
// had changes. Without either it is "dev".
func buildVersion(linked, release string, settings []debug.BuildSetting) (version, commit string) {
	var revision string
	modified := false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if len(revision) >= 12 {
		commit = revision[:12]
	}
	release = strings.TrimSpace(release)
	switch {
	case linked != "":
		return linked, commit
	case release == "":
		return "dev", commit
	case len(revision) >= 7:
		version = release + "+git." + revision[:7]
		if modified {
			version += ".dirty"
		}
		return version, commit
	default:
		return release + "+dev", commit
	}
}

func (v VersionInfo) String() string {
	s := fmt.Sprintf("%s %s (%s, %s)", AppName, v.Version, v.GoVersion, v.Platform)
	if v.Commit != "" {
		s += " commit " + v.Commit
	}
	return s
}

func runVersion(_ context.Context, args []string, b Build, s Streams) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if err := parseFlags(fs, args, s.Err); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("version takes no arguments, got %q", fs.Args())}
	}
	fmt.Fprintln(s.Out, versionInfo(b))
	return nil
}

// parseFlags parses a subcommand's flags, printing flag errors and help to
// stderr; a bad flag is a usage error.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	fs.SetOutput(stderr)
	err := fs.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return usageError{fmt.Errorf("%s: %w", fs.Name(), err)}
}
