// Command freeact is the freeact desktop app: with no arguments it opens the
// desktop window; its subcommands are the terminal front end. All logic lives
// in package app; main only hands it the embedded assets and the build's
// version.
package main

import (
	"context"
	"embed"
	"os"
	"os/signal"
	"syscall"

	"github.com/freeact/desktop/app"
)

//go:embed all:frontend/dist
var frontendAssets embed.FS

//go:embed build/appicon.png
var appIcon []byte

// version is set at link time: -ldflags "-X main.version=1.2.3".
var version = "dev"

func main() {
	// SIGTERM ends every command; app.Main decides what Ctrl-C does (the
	// terminal mode cancels a turn with it).
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	code := app.Main(ctx, os.Args[1:], app.Build{
		Version: version,
		Assets:  frontendAssets,
		Icon:    appIcon,
	}, app.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
