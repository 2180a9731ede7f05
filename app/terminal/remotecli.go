package terminal

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/internal/redact"
	"github.com/freeact/desktop/internal/visible"
	"github.com/freeact/desktop/kernel/hub"
)

// RunRemote is `freeact remote login | logout [--workspace DIR]`: the
// token of the JupyterHub that the workspace's jupyter_url names, checked
// against the Hub and kept in the key store (never in agent.json).
func RunRemote(ctx context.Context, args []string, b adapter.Build, s adapter.Streams) error {
	usage := adapter.UsageError{Err: errors.New("remote takes login or logout: e.g. freeact remote login --workspace DIR < token.txt")}
	if len(args) == 0 {
		return usage
	}
	if args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(s.Out, "Usage: freeact remote login | logout [--workspace DIR]\n\nlogin reads a JupyterHub token (scopes "+strings.Join(hub.Scopes, ", ")+") from stdin.")
		return nil
	}
	sub := args[0]
	if sub != "login" && sub != "logout" {
		return usage
	}
	fs := flag.NewFlagSet("remote "+sub, flag.ContinueOnError)
	ws := fs.String("workspace", ".", "the workspace `directory`")
	if err := adapter.ParseFlags(fs, args[1:], s.Err); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return adapter.UsageError{Err: fmt.Errorf("remote %s takes no arguments (have %q)", sub, fs.Args())}
	}
	dir, err := filepath.Abs(*ws)
	if err != nil {
		return err
	}
	cfg, err := config.Load(dir, config.LoadOptions{})
	if err != nil {
		return err
	}
	o := cfg.Options
	if o.JupyterURL == nil || *o.JupyterURL == "" {
		return fmt.Errorf("%s sets no jupyter_url\nfix: set jupyter_url to the JupyterHub's address (https://hub.example.org/) first", filepath.Join(cfg.FreeactDir, config.AgentFile))
	}
	base, err := hub.Base(*o.JupyterURL)
	if err != nil {
		return fmt.Errorf("jupyter_url: %w", err)
	}
	keys := adapter.KeyStore(b.Dirs)
	name := hub.TokenName(base)
	if sub == "logout" {
		if _, err := keys.SetAPIKey(name, ""); err != nil {
			return err
		}
		fmt.Fprintf(s.Out, "Signed out of %s (%s removed from the key store).\n", visible.Line(redact.URL(base.String())), name)
		return nil
	}
	if f, ok := s.In.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			return fmt.Errorf("remote login reads the token from stdin, which is a terminal here\nfix: create a token on %s and pass it in, e.g. freeact remote login --workspace %s < token.txt", base.JoinPath("hub", "token"), dir)
		}
	}
	raw, err := io.ReadAll(io.LimitReader(s.In, 1<<16))
	if err != nil {
		return fmt.Errorf("read the token from stdin: %w", err)
	}
	caFile := ""
	if o.JupyterCAFile != nil && *o.JupyterCAFile != "" {
		caFile = *o.JupyterCAFile
		if !filepath.IsAbs(caFile) {
			caFile = filepath.Join(cfg.Dir, caFile)
		}
	}
	client, err := hub.HTTPClient(caFile)
	if err != nil {
		return err
	}
	_, user, err := hub.SignIn(ctx, client, *o.JupyterURL, string(raw))
	if err != nil {
		return err
	}
	where, err := keys.SetAPIKey(name, strings.TrimSpace(string(raw)))
	if err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "Signed in to %s as %s; the token is kept in %s as %s.\n", visible.Line(redact.URL(base.String())), visible.Line(user), visible.Line(where.Where), name)
	return nil
}
