// Command freeact is the freeact desktop app: with no arguments it opens the
// desktop window (app/desktop, whose Desktop Wails binds); its subcommands
// are the terminal front end (app/terminal). Package app picks the front
// end; main only hands it the embedded assets and the build's version.
package main

import (
	"context"
	"embed"
	"os"
	"os/signal"
	"syscall"

	"github.com/freeact/desktop/app"
	"github.com/freeact/desktop/internal/appdirs"
)

//go:embed all:frontend/dist
var frontendAssets embed.FS

// windowIcon is the window's own icon (the taskbar shows it without the
// .desktop file): build/appicon.png at 256×256. GDK leaves out a window
// icon as large as the 1024×1024 original (4 MiB of pixels), so the
// window would have none.
//
//go:embed build/windowicon.png
var windowIcon []byte

// version is set at link time by make: -ldflags "-X main.version=0.3.0".
// A plain go build leaves it empty and reports release with the commit Go
// records.
var version string

// release is the tracked VERSION file: the release this tree is, or follows.
//
//go:embed VERSION
var release string

func main() {
	// SIGTERM ends every command; app.Main decides what Ctrl-C does (the
	// terminal mode cancels a turn with it).
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	code := app.Main(ctx, os.Args[1:], app.Build{
		Version: version,
		Release: release,
		Dirs:    appdirs.FromXDG(),
		Assets:  frontendAssets,
		Icon:    windowIcon,
	}, app.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
