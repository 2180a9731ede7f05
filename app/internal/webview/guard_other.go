//go:build !linux || !cgo || !(desktop || dev)

package webview

import "errors"

// Guard is the wrapper around the window's web view (the desktop and
// dev builds on Linux only).
type Guard struct{}

// Attach is not available here: the window is guarded in the desktop
// and dev builds on Linux (with cgo), the only ones that open it.
func Attach(Config) (*Guard, error) {
	return nil, errors.New("guard the window's page: only in the desktop build on Linux")
}

// Reload does nothing here.
func (g *Guard) Reload() {}

// Say does nothing here.
func (g *Guard) Say(title, message string) {}

// Origin is "" here.
func (g *Guard) Origin() string { return "" }
