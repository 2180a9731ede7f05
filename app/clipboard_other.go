//go:build !linux || !(desktop || dev)

package app

import "errors"

// clipboardImage needs the desktop window's GTK.
func clipboardImage([]byte) error {
	return errors.New("copying images needs the desktop app: use Save image as… instead")
}
