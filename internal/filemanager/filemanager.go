// Package filemanager owns asking the desktop's file manager to show a
// file: the freedesktop FileManager1 interface on the session bus, which
// Nautilus, Dolphin, Nemo, Thunar and others answer (started on demand by
// the bus), and which opens the file's folder with the file selected. It
// needs no xdg-open.
package filemanager

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/godbus/dbus/v5"
)

// The FileManager1 service, its object and its method.
const (
	Name   = "org.freedesktop.FileManager1"
	Path   = "/org/freedesktop/FileManager1"
	method = Name + ".ShowItems"
)

// ErrNone is returned (wrapped) when no file manager answers: there is no
// session bus, or no program on it (running or startable) owns the
// FileManager1 name.
var ErrNone = errors.New("no file manager answers on the session bus")

// ShowItem asks the session bus's file manager to show the file at the
// absolute path abs in its folder, selected. The bus is the one of
// $DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus; none is started
// (as dbus-launch would, leaving a bus behind).
func ShowItem(ctx context.Context, abs string) error {
	addr := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	if addr == "" {
		if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" {
			if _, err := os.Stat(filepath.Join(rt, "bus")); err == nil {
				addr = "unix:path=" + filepath.Join(rt, "bus")
			}
		}
	}
	if addr == "" {
		return fmt.Errorf("%w (no session bus)", ErrNone)
	}
	conn, err := dbus.Dial(addr, dbus.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("%w (%v)", ErrNone, err)
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		return fmt.Errorf("%w (%v)", ErrNone, err)
	}
	if err := conn.Hello(); err != nil {
		return fmt.Errorf("%w (%v)", ErrNone, err)
	}
	uri := (&url.URL{Scheme: "file", Path: abs}).String()
	call := conn.Object(Name, Path).CallWithContext(ctx, method, 0, []string{uri}, "")
	if call.Err != nil {
		var de dbus.Error
		if errors.As(call.Err, &de) && (de.Name == "org.freedesktop.DBus.Error.ServiceUnknown" || de.Name == "org.freedesktop.DBus.Error.NameHasNoOwner") {
			return fmt.Errorf("%w (%s)", ErrNone, de.Name)
		}
		return fmt.Errorf("ask the file manager to show %s: %w", abs, call.Err)
	}
	return nil
}
