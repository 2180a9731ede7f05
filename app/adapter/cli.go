package adapter

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/freeact/desktop/internal/appdirs"
)

// AppName is the product's name as users see it.
const AppName = "freeact"

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

// Streams are the standard input and outputs a command uses.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
}

// UsageError is an error in how a command was called; the command line
// answers it with exit status 2.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// ExitStatus ends the program with a status whose reason was already
// shown.
type ExitStatus int

func (e ExitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// ParseFlags parses a subcommand's flags, printing flag errors and help to
// stderr; a bad flag is a UsageError.
func ParseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	fs.SetOutput(stderr)
	err := fs.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return UsageError{Err: fmt.Errorf("%s: %w", fs.Name(), err)}
}

// ExpandHome replaces a leading ~ (alone or before /) with the home folder.
func ExpandHome(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return p
	}
	return filepath.Join(home, strings.TrimPrefix(p, "~"))
}

// SlogWriter turns standard-logger lines (the log package's, which some
// libraries write to) into debug records of the front end's logger.
type SlogWriter struct{ L *slog.Logger }

func (w SlogWriter) Write(p []byte) (int, error) {
	w.L.Debug(strings.TrimSpace(string(p)))
	return len(p), nil
}
