//go:build !linux || !(desktop || dev)

package desktop

import "errors"

var errNoClipboard = errors.New("images on the clipboard need the desktop app: use Save image as… and Attach instead")

// clipboardImage needs the desktop window's GTK.
func clipboardImage([]byte) error { return errNoClipboard }

// readClipboardImage needs the desktop window's GTK.
func readClipboardImage() ([]byte, error) { return nil, errNoClipboard }
