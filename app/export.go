package app

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/freeact/desktop/agent/config"
	"github.com/freeact/desktop/agent/export"
	"github.com/freeact/desktop/agent/notebook"
	"github.com/freeact/desktop/agent/session"
	"github.com/freeact/desktop/internal/atomicfile"
)

// exportExt is the file name extension of each export format.
var exportExt = map[string]string{export.FormatNotebook: ".ipynb", export.FormatMarkdown: ".md", export.FormatHTML: ".html"}

// ExportSession asks where to save the current session and writes it as a
// Jupyter notebook ("ipynb"), Markdown ("md") or an HTML page ("html"),
// with the model's thoughts when thoughts is set. It returns the path
// written, or "" when the dialog was cancelled.
func (d *Desktop) ExportSession(format string, thoughts bool) (string, error) {
	ext, ok := exportExt[format]
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
	if id == "" || !sessionExists(cfg, id) {
		return "", fmt.Errorf("there is no session to export yet: send a prompt first (or turn enable_persistence on)")
	}
	data, err := export.ExportSession(cfg, id, format, notebook.Options{Thoughts: thoughts}, export.Stores{Checkpoints: d.build.Dirs.Checkpoints(), Keys: d.build.Dirs.Config})
	if err != nil {
		return "", err
	}
	name := "session-" + id[:min(8, len(id))]
	if list, err := session.List(cfg.SessionsDir(), sessionTitle); err == nil {
		for _, s := range list {
			if s.ID == id {
				name = exportName(s.Title, name)
			}
		}
	}
	return d.saveAs("Export the session", ws.dir, name+ext, data, "export")
}

// exportName is a file name (without extension) made of a conversation's
// title: its words joined by "-", without characters file systems or
// shells trip on, at most 60 characters; fallback when nothing is left.
func exportName(title, fallback string) string {
	var b strings.Builder
	for _, word := range strings.FieldsFunc(strings.ToLower(title), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if b.Len() > 0 && b.Len()+1+len(word) > 60 {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteString(word)
	}
	if b.Len() == 0 {
		return fallback
	}
	return b.String()
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
	if err := parseFlags(fs, args, s.Err); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageError{fmt.Errorf("export takes no arguments, got %q (use --session ID)", fs.Args())}
	case *id == "":
		return usageError{fmt.Errorf("export needs --session ID: the ids are the folder names in %s", filepath.Join(*ws, ".freeact", "sessions"))}
	}
	if _, ok := exportExt[*format]; !ok {
		return usageError{fmt.Errorf("--format %q: use ipynb, md or html", *format)}
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
	data, err := export.ExportSession(cfg, *id, *format, notebook.Options{Thoughts: *thoughts}, export.Stores{Checkpoints: b.Dirs.Checkpoints(), Keys: b.Dirs.Config})
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
	if !strings.HasSuffix(*out, exportExt[*format]) {
		fmt.Fprintf(s.Err, "note: %s is a %s file but does not end with %s\n", *out, *format, exportExt[*format])
	}
	return nil
}
