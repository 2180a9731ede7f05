package terminal

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/mcp"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/internal/opener"
	"github.com/freeact/desktop/internal/visible"
)

// terminalSignIn shows the browser step of an MCP sign-in in the
// terminal: the link is printed (for a browser elsewhere) and the system
// browser opened.
func terminalSignIn(s adapter.Streams) mcp.SignInOptions {
	return mcp.SignInOptions{Browser: func(ctx context.Context, server, u string) error {
		// The link comes from the server's metadata: one line, so that
		// it cannot print lines of its own.
		shown, host := u, ""
		if l, err := opener.CheckURL(u); err == nil {
			shown, host = l.URL, l.Host
		}
		fmt.Fprintf(s.Err, "Sign in to the MCP server %s in your browser (at %s); if it does not open, visit:\n  %s\nWaiting for the browser…\n",
			visible.Line(strconv.Quote(server)), visible.Line(host), visible.Line(shown))
		if _, err := (opener.Opener{}).OpenURL(ctx, u); err != nil {
			fmt.Fprintf(s.Err, "(%s)\n", visible.Line(err.Error()))
		}
		return nil
	}}
}

// RunMCP is `freeact mcp login NAME | logout NAME | status`: the sign-in
// of the workspace's HTTP MCP servers.
func RunMCP(ctx context.Context, args []string, b adapter.Build, s adapter.Streams) error {
	usage := adapter.UsageError{Err: errors.New("mcp takes login NAME, logout NAME or status: e.g. freeact mcp login github --workspace DIR")}
	if len(args) == 0 {
		return usage
	}
	if args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(s.Out, "Usage: freeact mcp login NAME | logout NAME | status [--workspace DIR]")
		return nil
	}
	sub := args[0]
	fs := flag.NewFlagSet("mcp "+sub, flag.ContinueOnError)
	ws := fs.String("workspace", ".", "the workspace `directory`")
	// Flags go before or after the server's name (the usage gives
	// `mcp login NAME --workspace DIR`).
	var names []string
	for rest := args[1:]; ; {
		if err := adapter.ParseFlags(fs, rest, s.Err); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		names, rest = append(names, fs.Arg(0)), fs.Args()[1:]
	}
	dir, err := filepath.Abs(*ws)
	if err != nil {
		return err
	}
	cfg, err := config.Load(dir, config.LoadOptions{})
	if err != nil {
		return err
	}
	servers := map[string]config.Server{}
	for _, group := range []map[string]config.Server{cfg.Options.MCPServers, cfg.Options.PTCServers} {
		for name, srv := range group {
			if srv.URL != "" {
				servers[name] = srv
			}
		}
	}
	signIn := terminalSignIn(s)
	signIn.Dir = b.Dirs.MCPSignIn()
	m := mcp.NewManager(servers, mcp.Options{ClientName: adapter.AppName, SignIn: signIn})
	defer m.Close()
	var name string
	if len(names) > 0 {
		name = names[0]
	}
	need := func() error {
		if len(names) != 1 {
			return adapter.UsageError{Err: fmt.Errorf("mcp %s takes the name of one HTTP server (have: %v)", sub, slices.Sorted(maps.Keys(servers)))}
		}
		return nil
	}
	switch sub {
	case "login":
		if err := need(); err != nil {
			return err
		}
		if err := m.Login(ctx, name); err != nil {
			return err
		}
		fmt.Fprintf(s.Out, "Signed in to %s.\n", name)
	case "logout":
		if err := need(); err != nil {
			return err
		}
		if err := m.Logout(name); err != nil {
			return err
		}
		fmt.Fprintf(s.Out, "Signed out of %s (the client registration is kept).\n", name)
	case "status":
		if len(servers) == 0 {
			fmt.Fprintln(s.Out, "No HTTP MCP servers in this workspace.")
		}
		for _, n := range m.Servers() {
			st, err := m.SignInStatus(n)
			switch {
			case err != nil:
				fmt.Fprintf(s.Out, "%s\tcannot read the sign-in: %s\n", n, visible.Line(err.Error()))
			case st.Dropped != "":
				fmt.Fprintf(s.Out, "%s\tnot signed in: %s\n", n, visible.Line(st.Dropped))
			case !st.SignedIn:
				fmt.Fprintf(s.Out, "%s\tnot signed in (sign in with `freeact mcp login %s`)\n", n, n)
			case st.Expiry.IsZero():
				fmt.Fprintf(s.Out, "%s\tsigned in\n", n)
			default:
				how := "signs in again then"
				if st.Refreshable {
					how = "refreshed silently"
				}
				fmt.Fprintf(s.Out, "%s\tsigned in; token expires %s (%s)\n", n, st.Expiry.Local().Format(time.DateTime), how)
			}
		}
	default:
		return usage
	}
	return nil
}
