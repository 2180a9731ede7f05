package app

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"

	"github.com/freeact/desktop/agent"
	"github.com/freeact/desktop/app/acp"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/kernel"
)

// runACP is `freeact acp`: an Agent Client Protocol agent on stdin and
// stdout for editors and notebooks (package acp). stdout carries only the
// protocol; the log goes to stderr.
func runACP(ctx context.Context, args []string, b Build, s Streams) error {
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	workspace := fs.String("workspace", "", "work in this `directory` whatever folder the client sends (default: the client's cwd)")
	logLevel := fs.String("log-level", "warn", "log `level` on stderr: debug, info, warn or error")
	if err := adapter.ParseFlags(fs, args, s.Err); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return adapter.UsageError{Err: fmt.Errorf("acp takes no arguments, got %q: the client sends the prompts on stdin", fs.Args())}
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return adapter.UsageError{Err: fmt.Errorf("--log-level %q: use debug, info, warn or error", *logLevel)}
	}
	logger := slog.New(slog.NewTextHandler(s.Err, &slog.HandlerOptions{Level: level}))
	log.SetOutput(adapter.SlogWriter{L: logger})
	defer log.SetOutput(os.Stderr)
	dir := ""
	if *workspace != "" {
		d, err := workspaceArg(*workspace)
		if err != nil {
			return adapter.UsageError{Err: err}
		}
		dir = d
	}
	return acp.Serve(ctx, s.In, s.Out, acp.Options{
		Workspace: dir,
		Dirs:      b.Dirs,
		Keys:      adapter.KeyStore(b.Dirs),
		Log:       logger,
		Version:   adapter.Version(b).Version,
		AgentOptions: []agent.Option{
			agent.WithLogger(logger),
			agent.WithProvisionProgress(func(p kernel.Progress) { logger.Info("setting up Python", "step", p.Step) }),
		},
	})
}
