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
	"github.com/freeact/desktop/agent/remote"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/internal/opener"
	"github.com/freeact/desktop/internal/redact"
	"github.com/freeact/desktop/internal/visible"
	"github.com/freeact/desktop/kernel/hub"
)

// RunRemote is `freeact remote login [--browser] | logout [--workspace
// DIR]`: the token of the JupyterHub that the workspace's jupyter_url
// names, from stdin or, with --browser, from the Hub's OAuth sign-in in
// the browser, checked against the Hub and kept in the key store (never
// in agent.json).
func RunRemote(ctx context.Context, args []string, b adapter.Build, s adapter.Streams) error {
	usage := adapter.UsageError{Err: errors.New("remote takes login or logout: e.g. freeact remote login --workspace DIR < token.txt, or freeact remote login --browser --workspace DIR")}
	if len(args) == 0 {
		return usage
	}
	if args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(s.Out, "Usage: freeact remote login [--browser] | logout [--workspace DIR]\n\nlogin reads a JupyterHub token (scopes "+strings.Join(hub.Scopes, ", ")+") from stdin;\nwith --browser it signs in through the Hub in the browser (OAuth, when the Hub's\nadministrator registered freeact: jupyter_oauth_client_id).")
		return nil
	}
	sub := args[0]
	if sub != "login" && sub != "logout" {
		return usage
	}
	fs := flag.NewFlagSet("remote "+sub, flag.ContinueOnError)
	ws := fs.String("workspace", ".", "the workspace `directory`")
	browser := false
	if sub == "login" {
		fs.BoolVar(&browser, "browser", false, "sign in through the Hub in the browser (OAuth) instead of a token on stdin")
	}
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
	keys := adapter.KeyStore(b.Dirs)
	// The key store's keys too: ${VAR} in jupyter_oauth_client_secret.
	stored, err := keys.APIKeys()
	if err != nil {
		return err
	}
	cfg, err := config.Load(dir, config.LoadOptions{APIKeys: stored})
	if err != nil {
		return err
	}
	h, err := remote.OpenHub(cfg)
	if err != nil {
		return err
	}
	shown := visible.Line(redact.URL(h.URL.String()))
	if sub == "logout" {
		if _, err := keys.SetAPIKey(h.TokenName, ""); err != nil {
			return err
		}
		fmt.Fprintf(s.Out, "Signed out of %s (%s removed from the key store).\n", shown, h.TokenName)
		return nil
	}
	var user, token string
	if browser {
		user, token, err = h.SignInBrowser(ctx, func(ctx context.Context, name, authURL string) error {
			fmt.Fprintf(s.Err, "Sign in to %s in your browser. If it did not open, open this link:\n  %s\n", visible.Line(name), visible.Line(authURL))
			if _, err := (opener.Opener{}).OpenURL(ctx, authURL); err != nil {
				fmt.Fprintf(s.Err, "The browser was not opened: %s\n", visible.Line(err.Error()))
			}
			return nil
		})
		if err != nil {
			return err
		}
	} else {
		if f, ok := s.In.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
				advice := ""
				if h.OAuthClientID != "" {
					advice = ", or sign in in the browser: freeact remote login --browser --workspace " + dir
				}
				return fmt.Errorf("remote login reads the token from stdin, which is a terminal here\nfix: create a token on %s and pass it in, e.g. freeact remote login --workspace %s < token.txt%s", h.TokenPage(), dir, advice)
			}
		}
		raw, err := io.ReadAll(io.LimitReader(s.In, 1<<16))
		if err != nil {
			return fmt.Errorf("read the token from stdin: %w", err)
		}
		token = strings.TrimSpace(string(raw))
		if user, err = h.CheckToken(ctx, token); err != nil {
			return err
		}
	}
	where, err := keys.SetAPIKey(h.TokenName, token)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "Signed in to %s as %s; the token is kept in %s as %s.\n", shown, visible.Line(user), visible.Line(where.Where), h.TokenName)
	return nil
}
