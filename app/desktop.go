package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	goruntime "runtime"
	"sync"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/freeact/desktop/agent/config"
)

// Names of the events the window receives with runtime.EventsOn.
const (
	// EventAgent carries a batch (a JSON array) of agent events.
	EventAgent = "agent:events"
	// EventKernel carries a KernelStatus.
	EventKernel = "kernel:status"
)

// Desktop is the object bound to the frontend: each exported method becomes
// a function in the generated JavaScript bindings (frontend/wailsjs). Its
// methods translate between the frontend and the agent and hold no domain
// logic of their own.
type Desktop struct {
	build Build
	host  host
	store *config.AppStore
	log   *slog.Logger

	mu sync.Mutex
	ws *workspace // nil until a workspace is opened

	sendMu sync.Mutex
	seq    uint64 // of the last message sent to the window
}

// Message is what every event to the window carries: a sequence number
// over all events, because a browser on the dev server can receive them
// out of order, and the payload.
type Message struct {
	Seq  uint64 `json:"seq"`
	Data any    `json:"data"`
}

// send emits one event with the next sequence number.
func (d *Desktop) send(name string, data any) {
	d.sendMu.Lock()
	defer d.sendMu.Unlock()
	d.seq++
	d.host.emit(name, Message{Seq: d.seq, Data: data})
}

// host is what the bindings need from the window: events, dialogs and the
// context of the app. Tests replace it.
type host interface {
	emit(name string, data any)
	pickDirectory(title string) (string, error)
	saveFile(title, name string) (string, error)
	openURL(url string)
	context() context.Context
}

// NewDesktop returns the bindings for one window.
func NewDesktop(b Build) *Desktop {
	return &Desktop{
		build: b,
		host:  &wailsHost{ctx: context.Background()},
		store: config.NewAppStore(config.DefaultAppDir()).WithKeyring(config.SecretService()),
		log:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
}

// wailsHost is the real window.
type wailsHost struct {
	mu  sync.Mutex
	ctx context.Context
}

func (h *wailsHost) set(ctx context.Context) {
	h.mu.Lock()
	h.ctx = ctx
	h.mu.Unlock()
}

func (h *wailsHost) context() context.Context {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ctx
}

func (h *wailsHost) emit(name string, data any) {
	ctx := h.context()
	if ctx.Value("events") == nil {
		return // no window (yet)
	}
	runtime.EventsEmit(ctx, name, data)
}

func (h *wailsHost) pickDirectory(title string) (string, error) {
	return runtime.OpenDirectoryDialog(h.context(), runtime.OpenDialogOptions{Title: title, CanCreateDirectories: true})
}

func (h *wailsHost) saveFile(title, name string) (string, error) {
	return runtime.SaveFileDialog(h.context(), runtime.SaveDialogOptions{Title: title, DefaultFilename: name})
}

func (h *wailsHost) openURL(url string) { runtime.BrowserOpenURL(h.context(), url) }

// Version describes the running binary; the About line shows it.
func (d *Desktop) Version() VersionInfo { return versionInfo(d.build) }

// shutdown stops the open workspace's agent when the window closes.
func (d *Desktop) shutdown() {
	d.mu.Lock()
	ws := d.ws
	d.ws = nil
	d.mu.Unlock()
	if ws != nil {
		ws.close()
	}
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
	wh := d.host.(*wailsHost)
	err = wails.Run(&options.App{
		Title:            AppName,
		Width:            1180,
		Height:           800,
		MinWidth:         640,
		MinHeight:        480,
		BackgroundColour: &options.RGBA{R: 250, G: 250, B: 249, A: 255},
		AssetServer:      &assetserver.Options{Assets: assets},
		OnStartup: func(wctx context.Context) {
			wh.set(wctx)
			// Ctrl-C or SIGTERM in the launching terminal closes the window.
			go func() {
				<-ctx.Done()
				runtime.Quit(wctx)
			}()
		},
		OnShutdown: func(context.Context) { d.shutdown() },
		DragAndDrop: &options.DragAndDrop{
			EnableFileDrop:     true,
			DisableWebViewDrop: true,
			CSSDropProperty:    "--wails-drop-target",
			CSSDropValue:       "drop",
		},
		Bind: []any{d},
		Linux: &linux.Options{
			Icon:             b.Icon,
			ProgramName:      AppName,
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	})
	d.shutdown()
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

// errNoWorkspace answers calls that need an open workspace.
var errNoWorkspace = errors.New("no workspace is open: choose a folder first")

// current returns the open workspace.
func (d *Desktop) current() (*workspace, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ws == nil {
		return nil, errNoWorkspace
	}
	return d.ws, nil
}
