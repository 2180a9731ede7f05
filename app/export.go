package app

import (
	"context"
	"flag"
	"fmt"
	"github.com/freeact/desktop/app/adapter"
	"path/filepath"
	"strings"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/export"
	"github.com/freeact/desktop/agent/session"
	"github.com/freeact/desktop/internal/atomicfile"
)

// ExportSession asks where to save the current session and writes it as a
// Jupyter notebook ("ipynb"), Markdown ("md") or an HTML page ("html"),
// with the model's thoughts when thoughts is set. It returns the path
// written, or "" when the dialog was cancelled.
func (d *Desktop) ExportSession(format string, thoughts bool) (string, error) {
	ext, ok := adapter.ExportExt[format]
	if !ok {
		return "", fmt.Errorf("unknown export format %q: want ipynb, md or html", format)
	}
	ws, err := d.current()
	if err != nil {
		return "", err
	}
	// The conversation the window shows, read from its session file: it
	// needs no running agent (right after a fork, or a restart, the new
	// one is still starting).
	ws.mu.Lock()
	id, cfg := ws.session, ws.cfg
	if ws.agent != nil && ws.agent.SessionID() != "" {
		id = ws.agent.SessionID()
	}
	ws.mu.Unlock()
	if id == "" || !adapter.SessionExists(cfg, id) {
		return "", fmt.Errorf("there is no session to export yet: send a prompt first (or turn enable_persistence on)")
	}
	data, err := adapter.Export(cfg, id, format, thoughts, d.build.Dirs)
	if err != nil {
		return "", err
	}
	name := "session-" + id[:min(8, len(id))]
	if list, err := session.List(cfg.SessionsDir(), sessionTitle); err == nil {
		for _, s := range list {
			if s.ID == id {
				name = adapter.ExportName(s.Title, name)
			}
		}
	}
	return d.saveAs("Export the session", ws.dir, name+ext, data, "export")
}

// runExport is `freeact export`: a saved session as a notebook, Markdown or
// HTML, to a file or stdout.
func runExport(_ context.Context, args []string, b Build, s Streams) error {
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
