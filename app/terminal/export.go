package terminal

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/export"
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/internal/atomicfile"
)

// RunExport is `freeact export`: a saved session as a notebook, Markdown or
// HTML, to a file or stdout.
func RunExport(_ context.Context, args []string, b adapter.Build, s adapter.Streams) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	ws := fs.String("workspace", ".", "the workspace `directory`")
	id := fs.String("session", "", "the `id` of the session to export (a folder name under .freeact/sessions)")
	format := fs.String("format", export.FormatNotebook, "ipynb (a Jupyter notebook), md or html")
	out := fs.String("o", "", "write to this `file` instead of stdout")
	thoughts := fs.Bool("thoughts", false, "include the model's thoughts")
	if err := adapter.ParseFlags(fs, args, s.Err); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return adapter.UsageError{Err: fmt.Errorf("export takes no arguments, got %q (use --session ID)", fs.Args())}
	case *id == "":
		return adapter.UsageError{Err: fmt.Errorf("export needs --session ID: the ids are the folder names in %s", filepath.Join(*ws, ".freeact", "sessions"))}
	}
	if _, ok := adapter.ExportExt[*format]; !ok {
		return adapter.UsageError{Err: fmt.Errorf("--format %q: use ipynb, md or html", *format)}
	}
	dir, err := filepath.Abs(*ws)
	if err != nil {
		return fmt.Errorf("workspace %s: %w", *ws, err)
	}
	// The sessions are what is read: agent.json need not load (its models'
	// prices are used when it does).
	cfg := &config.Config{Dir: dir, FreeactDir: filepath.Join(dir, config.FreeactDir)}
	if loaded, err := config.Load(dir, config.LoadOptions{}); err == nil {
		cfg.Options = loaded.Options
	}
	data, err := adapter.Export(cfg, *id, *format, *thoughts, b.Dirs)
	if err != nil {
		return err
	}
	if *out == "" {
		_, err := s.Out.Write(data)
		return err
	}
	if err := atomicfile.Write(*out, data, 0o644); err != nil {
		return fmt.Errorf("export to %s: %w", *out, err)
	}
	if !strings.HasSuffix(*out, adapter.ExportExt[*format]) {
		fmt.Fprintf(s.Err, "note: %s is a %s file but does not end with %s\n", *out, *format, adapter.ExportExt[*format])
	}
	return nil
}
