//go:build !unix

package session

import "os"

// lockFile: without flock, a session has no writer lock.
func lockFile(path string) (*os.File, error) { return os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644) }

// lockLegacy: without flock, no lock of earlier versions either.
func lockLegacy(string) *os.File { return nil }
