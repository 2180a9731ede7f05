//go:build linux && cgo && (desktop || dev)

package webviewtest

/*
#cgo linux,!webkit2_41 pkg-config: gtk+-3.0 webkit2gtk-4.0
#cgo linux,webkit2_41 pkg-config: gtk+-3.0 webkit2gtk-4.1
#include "window.h"
*/
import "C"

import (
	"errors"
	"os"
	"sync"
	"unsafe"
)

// Window is the one window of a test process.
type Window struct {
	mu       sync.Mutex
	pages    map[string]string
	served   []string
	received chan string
}

var (
	once sync.Once
	win  *Window
)

// Open makes the window with pages (address → HTML; others are served
// an empty page). Call it on the main thread (TestMain), then Main.
func Open(pages map[string]string) (*Window, error) {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return nil, errors.New("no display: run under xvfb-run")
	}
	var err error
	once.Do(func() {
		if C.fake_init() == 0 {
			err = errors.New("GTK cannot start")
			return
		}
		win = &Window{pages: pages, received: make(chan string, 100)}
		C.fake_window()
	})
	return win, err
}

// Main runs GTK's main loop; it never returns.
func Main() { C.fake_main() }

// Load loads uri in the web view.
func (w *Window) Load(uri string) {
	c := C.CString(uri)
	defer C.free(unsafe.Pointer(c))
	C.fake_load(c)
}

// Terminate ends the web process.
func (w *Window) Terminate() { C.fake_terminate() }

// Received delivers the messages that reached the stand-in of Wails'
// handler.
func (w *Window) Received() <-chan string { return w.received }

// Served returns the addresses served so far.
func (w *Window) Served() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.served...)
}

//export fakeReceived
func fakeReceived(m *C.char) { win.received <- C.GoString(m) }

//export fakePage
func fakePage(uri *C.char) *C.char {
	u := C.GoString(uri)
	win.mu.Lock()
	win.served = append(win.served, u)
	html := win.pages[u]
	win.mu.Unlock()
	return C.CString(html)
}
