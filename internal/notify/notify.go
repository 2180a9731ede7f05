// Package notify owns desktop notifications: the freedesktop
// Notifications interface on the session bus (GNOME Shell, KDE Plasma,
// dunst, mako and others answer it). A notification carries one action,
// the default one (a click on it), which the client reports back.
package notify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/godbus/dbus/v5"
)

// The Notifications service, its object and interface.
const (
	Name      = "org.freedesktop.Notifications"
	Path      = "/org/freedesktop/Notifications"
	Interface = "org.freedesktop.Notifications"
	// DefaultAction is the key of a click on the notification itself.
	DefaultAction = "default"
)

// ErrNone is returned (wrapped) when there is no session bus to talk to.
var ErrNone = errors.New("no session bus for desktop notifications")

// Client sends notifications and reports the clicks on them.
type Client struct {
	conn    *dbus.Conn
	signals chan *dbus.Signal
	done    chan struct{}
	once    sync.Once
}

// SessionAddress is the address of the session bus: the one of
// $DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus; "" when there is
// none (none is started, as dbus-launch would, leaving a bus behind).
func SessionAddress() string {
	if addr := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); addr != "" {
		return addr
	}
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" {
		if _, err := os.Stat(filepath.Join(rt, "bus")); err == nil {
			return "unix:path=" + filepath.Join(rt, "bus")
		}
	}
	return ""
}

// Dial connects to the bus at addr ("" is an error wrapping ErrNone) and
// calls clicked with the id of each notification of its own the user
// clicks, until Close.
func Dial(ctx context.Context, addr string, clicked func(id uint32)) (*Client, error) {
	if addr == "" {
		return nil, ErrNone
	}
	// Not dbus.WithContext(ctx): the connection lives past ctx, which
	// would close it when done.
	conn, err := dbus.Dial(addr)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrNone, err)
	}
	if err := conn.Auth(nil); err != nil {
		conn.Close()
		return nil, fmt.Errorf("%w (%v)", ErrNone, err)
	}
	if err := conn.Hello(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("%w (%v)", ErrNone, err)
	}
	if err := conn.AddMatchSignalContext(ctx, dbus.WithMatchInterface(Interface), dbus.WithMatchMember("ActionInvoked")); err != nil {
		conn.Close()
		return nil, fmt.Errorf("listen for clicks on notifications: %w", err)
	}
	c := &Client{conn: conn, signals: make(chan *dbus.Signal, 16), done: make(chan struct{})}
	conn.Signal(c.signals)
	go func() {
		defer close(c.done)
		for s := range c.signals {
			if s.Name != Interface+".ActionInvoked" || len(s.Body) != 2 {
				continue
			}
			id, ok1 := s.Body[0].(uint32)
			key, ok2 := s.Body[1].(string)
			if ok1 && ok2 && key == DefaultAction && clicked != nil {
				clicked(id)
			}
		}
	}()
	return c, nil
}

// Notify shows a notification of app with summary and body, clickable;
// it returns the id the server gave it.
func (c *Client) Notify(ctx context.Context, app, summary, body string) (uint32, error) {
	var id uint32
	hints := map[string]dbus.Variant{"urgency": dbus.MakeVariant(byte(1))}
	call := c.conn.Object(Name, Path).CallWithContext(ctx, Interface+".Notify", 0,
		app, uint32(0), "", summary, body, []string{DefaultAction, "Open"}, hints, int32(-1))
	if call.Err != nil {
		return 0, fmt.Errorf("send a desktop notification: %w", call.Err)
	}
	if err := call.Store(&id); err != nil {
		return 0, fmt.Errorf("send a desktop notification: %w", err)
	}
	return id, nil
}

// Close disconnects; no click is reported after it returns.
func (c *Client) Close() {
	c.once.Do(func() {
		// Closing the connection closes the signal channel too.
		c.conn.Close()
		<-c.done
	})
}
