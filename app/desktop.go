package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	goruntime "runtime"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// Desktop is the object bound to the frontend: each exported method becomes
// a function in the generated JavaScript bindings (frontend/wailsjs). Its
// methods translate between the frontend and the agent and hold no domain
// logic of their own.
type Desktop struct {
	build Build
}

// NewDesktop returns the bindings for one window.
func NewDesktop(b Build) *Desktop { return &Desktop{build: b} }

// Version describes the running binary; the About line shows it.
func (d *Desktop) Version() VersionInfo { return versionInfo(d.build) }

// WorkspaceInfo is what the header shows about the open workspace.
type WorkspaceInfo struct {
	Path string `json:"path"` // absolute path; empty when none is open
	Name string `json:"name"` // the folder's base name
}

// Workspace returns the open workspace; none can be opened before the
// workspace picker lands, so it is always empty for now.
func (d *Desktop) Workspace() WorkspaceInfo { return WorkspaceInfo{} }

// errNoAgent is what Send answers until the agent core is wired in.
var errNoAgent = errors.New("the agent is not connected in this build yet: open a workspace once the workspace picker is available")

// Send submits a prompt to the agent.
func (d *Desktop) Send(prompt string) error {
	if prompt == "" {
		return errors.New("the prompt is empty: type a request first")
	}
	return errNoAgent
}

// RunDesktop opens the desktop window and blocks until it is closed or ctx
// is cancelled.
func RunDesktop(ctx context.Context, b Build) error {
	if !generatingBindings {
		if err := checkDisplay(os.Getenv); err != nil {
			return err
		}
	}
	assets, err := fs.Sub(b.Assets, "frontend/dist")
	if err != nil {
		return fmt.Errorf("open embedded frontend: %w", err)
	}
	d := NewDesktop(b)
	err = wails.Run(&options.App{
		Title:            AppName,
		Width:            1180,
		Height:           800,
		MinWidth:         640,
		MinHeight:        480,
		BackgroundColour: &options.RGBA{R: 250, G: 250, B: 249, A: 255},
		AssetServer:      &assetserver.Options{Assets: assets},
		OnStartup: func(wctx context.Context) {
			// Ctrl-C or SIGTERM in the launching terminal closes the window.
			go func() {
				<-ctx.Done()
				runtime.Quit(wctx)
			}()
		},
		Bind: []any{d},
		Linux: &linux.Options{
			Icon:             b.Icon,
			ProgramName:      AppName,
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	})
	if err != nil {
		return fmt.Errorf("run desktop window: %w", err)
	}
	return nil
}

// checkDisplay fails early, with the fix, where a window cannot be opened.
func checkDisplay(getenv func(string) string) error {
	if goruntime.GOOS != "linux" {
		return nil
	}
	if getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != "" {
		return nil
	}
	return fmt.Errorf("no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset).\n"+
		"Run it inside a graphical session, or on a headless machine under a virtual display:\n"+
		"  xvfb-run -a -s \"-screen 0 1280x900x24\" %s\n"+
		"The terminal mode needs no display: %s run", os.Args[0], AppName)
}
