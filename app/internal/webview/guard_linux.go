//go:build linux && cgo && (desktop || dev)

package webview

/*
#cgo linux,!webkit2_41 pkg-config: gtk+-3.0 webkit2gtk-4.0
#cgo linux,webkit2_41 pkg-config: gtk+-3.0 webkit2gtk-4.1
#include <stdlib.h>
#include "guard.h"
*/
import "C"

import (
	"errors"
	"runtime/cgo"
	"sync"
	"unsafe"
)

// Guard is the wrapper around the window's web view.
type Guard struct {
	cfg    Config
	handle cgo.Handle
	g      *C.guard

	mu       sync.Mutex
	origin   string
	attached chan error
	said     chan struct{}
}

// Attach wraps the web view of the app's window (made by Wails before
// OnStartup runs) on the GTK main thread and waits until it is wrapped.
// Call it once, from OnStartup.
func Attach(cfg Config) (*Guard, error) {
	g := &Guard{cfg: cfg, origin: cfg.Origin, attached: make(chan error, 1), said: make(chan struct{}, 1)}
	g.handle = cgo.NewHandle(g)
	g.g = C.guard_new(C.uintptr_t(g.handle))
	C.guard_attach(g.g)
	if err := <-g.attached; err != nil {
		return nil, err
	}
	return g, nil
}

// Reload loads the app's page again (in a new web process after one
// died).
func (g *Guard) Reload() { C.guard_reload(g.g) }

// Say shows message in a dialog over the window whose one button is
// Quit, and returns when it is closed.
func (g *Guard) Say(title, message string) {
	t, m := C.CString(title), C.CString(message)
	defer C.free(unsafe.Pointer(t))
	defer C.free(unsafe.Pointer(m))
	C.guard_say(g.g, t, m)
	<-g.said
}

//export guardSaid
func guardSaid(h C.uintptr_t) { guardOf(h).said <- struct{}{} }

// Origin is the app's origin the guard allows.
func (g *Guard) Origin() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.origin
}

func guardOf(h C.uintptr_t) *Guard { return cgo.Handle(h).Value().(*Guard) }

//export guardAttached
func guardAttached(h C.uintptr_t, uri, msg *C.char) {
	g := guardOf(h)
	if m := C.GoString(msg); m != "" {
		g.attached <- errors.New("guard the window's page: " + m)
		return
	}
	start := C.GoString(uri)
	g.mu.Lock()
	if g.origin == "" {
		g.origin = Origin(start)
	}
	ok := g.origin != ""
	g.mu.Unlock()
	if !ok {
		g.attached <- errors.New("guard the window's page: it shows no address of an origin: " + start)
		return
	}
	g.attached <- nil
}

//export guardDecide
func guardDecide(h C.uintptr_t, uri *C.char, kind, gesture C.int) C.int {
	g := guardOf(h)
	u := C.GoString(uri)
	v := Decide(g.Origin(), u, Kind(kind), gesture != 0)
	if v.Allow {
		return 1
	}
	if g.cfg.Refused != nil {
		g.cfg.Refused(u, v.Open)
	}
	return 0
}

//export guardMessage
func guardMessage(h C.uintptr_t, uri, message *C.char) C.int {
	g := guardOf(h)
	u := C.GoString(uri)
	if !Same(g.Origin(), u) {
		if g.cfg.Dropped != nil {
			g.cfg.Dropped(u)
		}
		return 0
	}
	if id, err := CheckCall(C.GoString(message), g.cfg.Capability); err != nil {
		if g.cfg.RefusedCall != nil {
			g.cfg.RefusedCall(id, err)
		}
		return 0
	}
	return 1
}

//export guardTerminated
func guardTerminated(h C.uintptr_t, reason C.int) {
	g := guardOf(h)
	if g.cfg.Terminated != nil {
		g.cfg.Terminated(terminationReason(int(reason)))
	}
}

// terminationReason names WebKit's WebKitWebProcessTerminationReason.
func terminationReason(r int) string {
	switch r {
	case 0:
		return "crashed"
	case 1:
		return "ran out of memory"
	case 2:
		return "was ended by the app"
	}
	return "ended"
}
