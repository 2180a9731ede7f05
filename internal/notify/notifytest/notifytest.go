// Package notifytest runs a private session bus with a notification
// server on it that records what it got and can report a click.
package notifytest

import (
	"bufio"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/freeact/desktop/internal/notify"
)

// Notification is one Notify call the server got.
type Notification struct {
	ID      uint32
	App     string
	Summary string
	Body    string
	Actions []string
}

// Server owns org.freedesktop.Notifications on the private bus.
type Server struct {
	conn *dbus.Conn
	mu   sync.Mutex
	got  []Notification
}

// Bus starts a dbus-daemon of its own for the test (skipping the test
// when there is none) and returns its address; it stops with the test.
func Bus(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Skip("no dbus-daemon to run a private session bus")
	}
	sock := filepath.Join(t.TempDir(), "bus")
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address", "--address=unix:path="+sock)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start dbus-daemon: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("read the bus address: %v", err)
	}
	return strings.TrimSpace(line)
}

// Serve puts a notification server on the bus at addr.
func Serve(t testing.TB, addr string) *Server {
	t.Helper()
	conn, err := dbus.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.Auth(nil); err != nil {
		t.Fatal(err)
	}
	if err := conn.Hello(); err != nil {
		t.Fatal(err)
	}
	s := &Server{conn: conn}
	if err := conn.Export(s, notify.Path, notify.Interface); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName(notify.Name, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v (%v)", notify.Name, reply, err)
	}
	return s
}

// Notify is the D-Bus method.
func (s *Server) Notify(app string, _ uint32, _ string, summary, body string, actions []string, _ map[string]dbus.Variant, _ int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := uint32(len(s.got) + 1)
	s.got = append(s.got, Notification{ID: id, App: app, Summary: summary, Body: body, Actions: actions})
	return id, nil
}

// GetCapabilities is the D-Bus method.
func (s *Server) GetCapabilities() ([]string, *dbus.Error) {
	return []string{"actions", "body"}, nil
}

// Got returns the notifications received so far.
func (s *Server) Got() []Notification {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Notification(nil), s.got...)
}

// Click reports a click on notification id (its default action).
func (s *Server) Click(id uint32) error {
	if err := s.conn.Emit(notify.Path, notify.Interface+".ActionInvoked", id, notify.DefaultAction); err != nil {
		return fmt.Errorf("emit ActionInvoked: %w", err)
	}
	return nil
}
