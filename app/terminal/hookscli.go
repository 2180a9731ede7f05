package terminal

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/freeact/desktop/agent/gate"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/freeact/desktop/agent/hooks"
	"github.com/freeact/desktop/app/adapter"
)

// RunHooks is `freeact hooks list|trust|import [--workspace DIR]`: the
// user's own hooks and a workspace's, with whether the workspace's are
// trusted; trust shows the workspace's hooks file and records the user's
// trust in exactly that content (and the scripts beside it); import shows
// the hooks of the project's Claude Code settings and adds them to its
// .freeact/hooks.json.
func RunHooks(_ context.Context, args []string, b adapter.Build, s adapter.Streams) error {
	usage := adapter.UsageError{Err: errors.New("hooks takes list, trust or import: e.g. freeact hooks trust --workspace DIR")}
	if len(args) == 0 {
		return usage
	}
	if args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(s.Out, "Usage: freeact hooks list | trust | import [--workspace DIR] [--yes]")
		return nil
	}
	sub := args[0]
	fs := flag.NewFlagSet("hooks "+sub, flag.ContinueOnError)
	ws := fs.String("workspace", ".", "the workspace `directory`")
	yes := fs.Bool("yes", false, "trust or import without asking")
	if err := adapter.ParseFlags(fs, args[1:], s.Err); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return adapter.UsageError{Err: fmt.Errorf("hooks %s takes no arguments, only --workspace DIR (got %q)", sub, fs.Args())}
	}
	dir, err := filepath.Abs(*ws)
	if err != nil {
		return err
	}
	trust := gate.Trust(b.Dirs)
	switch sub {
	case "list":
		return listHooks(s.Out, b.Dirs.Config, dir, trust)
	case "trust":
		return trustHooks(s, dir, trust, *yes)
	case "import":
		return importHooks(s, dir, trust, *yes)
	}
	return usage
}

func listHooks(out io.Writer, configDir, dir string, trust *hooks.Trust) error {
	user := filepath.Join(configDir, hooks.FileName)
	sets, st, err := hooks.Load(configDir, dir, trust)
	if err != nil {
		return err
	}
	userSet := slices.IndexFunc(sets, func(s hooks.Set) bool { return s.Source == hooks.SourceUser })
	if userSet < 0 {
		fmt.Fprintf(out, "Your hooks (%s): none\n", user)
	} else {
		fmt.Fprintf(out, "Your hooks (%s), always run:\n", user)
		printHooks(out, sets[userSet].Settings)
	}
	switch {
	case !st.Exists:
		fmt.Fprintf(out, "Workspace hooks (%s): none\n", st.Path)
		return nil
	case st.Trusted:
		fmt.Fprintf(out, "Workspace hooks (%s), trusted:\n", st.Path)
	case st.Changed:
		fmt.Fprintf(out, "Workspace hooks (%s), CHANGED since you trusted them, not run (freeact hooks trust to run them):\n", st.Path)
	default:
		fmt.Fprintf(out, "Workspace hooks (%s), NOT trusted, not run (freeact hooks trust to run them):\n", st.Path)
	}
	s, err := hooks.Parse(st.Content)
	if err != nil {
		return fmt.Errorf("%s: %w", st.Path, err)
	}
	printHooks(out, s)
	return nil
}

func printHooks(out io.Writer, s hooks.Settings) {
	for _, ev := range hooks.Events {
		for _, m := range s.Hooks[ev] {
			matcher := m.Matcher
			if matcher == "" {
				matcher = "*"
			}
			for _, h := range m.Hooks {
				what := h.Command
				if h.Type == hooks.TypeHTTP {
					what = "POST " + h.URL
				}
				fmt.Fprintf(out, "  %-18s %-20s %s\n", ev, matcher, what)
			}
		}
	}
}

func trustHooks(s adapter.Streams, dir string, trust *hooks.Trust, yes bool) error {
	st, err := trust.Workspace(dir)
	if err != nil {
		return err
	}
	if !st.Exists {
		return fmt.Errorf("%s has no hooks file (%s): nothing to trust", dir, st.Path)
	}
	if _, err := hooks.Parse(st.Content); err != nil {
		return fmt.Errorf("%s: %w", st.Path, err)
	}
	if st.Trusted {
		fmt.Fprintf(s.Out, "The hooks of %s are trusted as they are.\n", dir)
		return nil
	}
	fmt.Fprintf(s.Out, "%s runs these commands on your machine, as you, at the agent's events:\n\n%s\n\n", st.Path, strings.TrimSpace(string(st.Content)))
	fmt.Fprintf(s.Out, "Trust also covers the files below %s as they are now.\n", filepath.Join(dir, ".freeact", hooks.ScriptsDir))
	if !yes {
		fmt.Fprint(s.Out, "Trust them? [y/N] ")
		line, _ := bufio.NewReader(s.In).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(s.Out, "Not trusted: the workspace's hooks do not run.")
			return nil
		}
	}
	if err := trust.Grant(dir, st.Digest); err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "Trusted. A change to the file or its scripts asks again.\n")
	return nil
}

// importHooks shows the hooks of dir's Claude Code settings, asks, and
// adds them to .freeact/hooks.json: trusted, since the user saw them,
// unless the workspace already had hooks the user had not trusted.
func importHooks(s adapter.Streams, dir string, trust *hooks.Trust, yes bool) error {
	imp, err := hooks.ReadClaude(dir)
	if err != nil {
		return err
	}
	any := false
	for _, f := range imp.Files {
		if f.Hooks == "" {
			fmt.Fprintf(s.Out, "%s: no hooks\n", f.Path)
			continue
		}
		any = true
		fmt.Fprintf(s.Out, "%s has these hooks, which would run on your machine, as you, at the agent's events:\n\n%s\n\n", f.Path, f.Hooks)
	}
	if !any {
		return fmt.Errorf("%s: the Claude Code settings hold no hooks: nothing to import", dir)
	}
	if !yes {
		fmt.Fprintf(s.Out, "Import them into %s? [y/N] ", hooks.WorkspaceFile(dir))
		line, _ := bufio.NewReader(s.In).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(s.Out, "Nothing imported.")
			return nil
		}
	}
	trusted, err := hooks.ImportClaudeTrusted(dir, imp.Digest, trust)
	if err != nil {
		return err
	}
	if trusted {
		fmt.Fprintf(s.Out, "Imported into %s and trusted.\n", hooks.WorkspaceFile(dir))
	} else {
		fmt.Fprintf(s.Out, "Imported into %s. Its other hooks are not trusted, so none run: review them with freeact hooks trust.\n", hooks.WorkspaceFile(dir))
	}
	return nil
}
