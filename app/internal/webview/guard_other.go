//go:build !linux || !cgo

package webview

import "errors"

// Guard is the wrapper around the window's web view (Linux only).
type Guard struct{}

// Attach is not available here: the desktop window is Linux only.
func Attach(Config) (*Guard, error) {
	return nil, errors.New("guard the window's page: only on Linux")
}

// Reload does nothing here.
func (g *Guard) Reload() {}

// Say does nothing here.
func (g *Guard) Say(title, message string) {}

// Origin is "" here.
func (g *Guard) Origin() string { return "" }
