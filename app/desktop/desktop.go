package desktop

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
	"github.com/freeact/desktop/app/adapter"
	"github.com/freeact/desktop/app/internal/webview"
)

// Names of the events the window receives with runtime.EventsOn.
const (
	// EventAgent carries a batch (a JSON array) of agent events.
	EventAgent = "agent:events"
	// EventKernel carries a KernelStatus.
	EventKernel = "kernel:status"
	// EventWorkspace carries the WorkspaceInfo of a workspace just opened,
	// sent before any event of its agent (its kernel status follows as
	// EventKernel). Every page on the backend shows the workspace the
	// backend has open, whichever page opened it: a page that asked
	// Workspace and Launch while another page (the window, or a browser
	// on the dev server) was opening the launch workspace got neither.
	EventWorkspace = "workspace:open"
)

// Desktop is the object bound to the frontend: each exported method becomes
// a function in the generated JavaScript bindings (frontend/wailsjs). Its
// methods translate between the frontend and the agent and hold no domain
// logic of their own.
type Desktop struct {
	build adapter.Build
	host  host
	store *config.AppStore
	log   *slog.Logger
	// launch is the workspace named on the command line (freeact PATH);
	// Launch hands it to the window once.
	launch     string
	launchOnce sync.Once

	mu sync.Mutex
	ws *workspace // the conversation in view; nil until a workspace is opened
	// others are the live conversations not in view (live.go); tick
	// orders their use.
	others []*workspace
	tick   uint64
	// viewMu orders what conversations send the window with a change of
	// the one in view (live.go); taken before d.mu and a conversation's
	// transcript lock, never while holding them.
	viewMu sync.Mutex

	notifyOnce sync.Once
	notify     *notifier

	// hookRuns are the hooks' last runs, for Settings → Hooks (hooks.go).
	hookRuns hookRuns

	sendMu sync.Mutex
	seq    uint64 // of the last message sent to the window

	// mcp shows MCP sign-ins and forms as cards (mcpUser).
	mcpOnce sync.Once
	mcp     *mcpUser

	// guard wraps the window's web view (windowguard.go); capability is
	// what every call of its page must carry.
	guard      windowGuard
	capability string
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
	// pickDirectory asks for a folder, starting in dir ("": the dialog's
	// choice).
	pickDirectory(title, dir string) (string, error)
	// saveFile asks where to save a file named name, starting in dir.
	saveFile(title, dir, name string) (string, error)
	// openFile asks for a file to open in dir whose name matches pattern
	// ("*.ipynb"), described as kind; "" when cancelled.
	openFile(title, dir, kind, pattern string) (string, error)
	// pickFiles asks for files to open in dir (several at once).
	pickFiles(title, dir string, filters []runtime.FileFilter) ([]string, error)
	setTitle(title string)
	// raise shows the window in front (a notification was clicked).
	raise()
	copyImage(data []byte) error
	pasteImage() ([]byte, error)
	context() context.Context
}

// NewDesktop returns the bindings for one window.
func NewDesktop(b adapter.Build) *Desktop {
	return &Desktop{
		build: b,
		host:  &wailsHost{ctx: context.Background()},
		store: adapter.KeyStore(b.Dirs),
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

func (h *wailsHost) pickDirectory(title, dir string) (string, error) {
	return runtime.OpenDirectoryDialog(h.context(), runtime.OpenDialogOptions{Title: title, DefaultDirectory: dir, CanCreateDirectories: true})
}

func (h *wailsHost) openFile(title, dir, kind, pattern string) (string, error) {
	return runtime.OpenFileDialog(h.context(), runtime.OpenDialogOptions{
		Title: title, DefaultDirectory: dir, Filters: []runtime.FileFilter{{DisplayName: kind, Pattern: pattern}},
	})
}

func (h *wailsHost) pickFiles(title, dir string, filters []runtime.FileFilter) ([]string, error) {
	return runtime.OpenMultipleFilesDialog(h.context(), runtime.OpenDialogOptions{Title: title, DefaultDirectory: dir, Filters: filters})
}

func (h *wailsHost) copyImage(data []byte) error { return clipboardImage(data) }
func (h *wailsHost) pasteImage() ([]byte, error) { return readClipboardImage() }

func (h *wailsHost) setTitle(title string) {
	if ctx := h.context(); ctx.Value("events") != nil {
		runtime.WindowSetTitle(ctx, title)
	}
}

func (h *wailsHost) raise() {
	if ctx := h.context(); ctx.Value("events") != nil {
		runtime.WindowUnminimise(ctx)
		runtime.WindowShow(ctx)
	}
}

func (h *wailsHost) saveFile(title, dir, name string) (string, error) {
	return runtime.SaveFileDialog(h.context(), runtime.SaveDialogOptions{Title: title, DefaultDirectory: dir, DefaultFilename: name})
}

// Version describes the running binary; the About line shows it.
func (d *Desktop) Version() adapter.VersionInfo { return adapter.Version(d.build) }

// shutdown stops the live conversations' agents when the window closes.
func (d *Desktop) shutdown() {
	d.closeAll()
	d.notifier().close()
}

// setTitle names the window after the open workspace, like an editor.
func (d *Desktop) setTitle(workspace string) {
	title := adapter.AppName
	if workspace != "" {
		title = workspace + " — " + adapter.AppName
	}
	d.host.setTitle(title)
}

// RunDesktop opens the desktop window and blocks until it is closed or ctx
// is cancelled. A workspace path (freeact PATH) opens the window on it.
func RunDesktop(ctx context.Context, b adapter.Build, workspace string) error {
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
	d.launch = workspace
	if d.capability, err = webview.NewCapability(nil); err != nil {
		return err
	}
	wh := d.host.(*wailsHost)
	err = wails.Run(&options.App{
		Title:            adapter.AppName,
		Width:            1180,
		Height:           800,
		MinWidth:         640,
		MinHeight:        480,
		BackgroundColour: &options.RGBA{R: 250, G: 250, B: 249, A: 255},
		AssetServer:      &assetserver.Options{Assets: assets, Middleware: capabilityPage(d.capability)},
		OnStartup: func(wctx context.Context) {
			wh.set(wctx)
			if !generatingBindings {
				d.guardWindow(wctx)
			}
			// Ctrl-C or SIGTERM in the launching terminal closes the window.
			go func() {
				<-ctx.Done()
				runtime.Quit(wctx)
			}()
		},
		OnDomReady: func(context.Context) { d.domReady() },
		OnShutdown: func(context.Context) { d.shutdown() },
		DragAndDrop: &options.DragAndDrop{
			// The web view must stay a GTK drop target: Wails reads the
			// paths of a drop from WebKit's drag data (text/uri-list),
			// and DisableWebViewDrop would unset the target, so a drop
			// from a file manager would deliver nothing. Its runtime
			// prevents the page's default handling of the drop.
			EnableFileDrop:     true,
			DisableWebViewDrop: false,
			CSSDropProperty:    "--wails-drop-target",
			CSSDropValue:       "drop",
		},
		Bind: []any{d},
		Linux: &linux.Options{
			Icon:             b.Icon,
			ProgramName:      adapter.AppName,
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
		"The terminal mode needs no display: %s run", os.Args[0], adapter.AppName)
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
