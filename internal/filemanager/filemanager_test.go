package filemanager

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/freeact/desktop/internal/testenv"
)

// sessionBus starts a private dbus-daemon for the test and returns its
// address; the daemon stops when the test ends.
func sessionBus(t *testing.T) string {
	t.Helper()
	testenv.Integration(t, "dbus-daemon")
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		testenv.Missing(t, "dbus-daemon is not installed (Debian's dbus-daemon)")
	}
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	return strings.TrimSpace(addr)
}

// fileManager is a FileManager1 object as a file manager exports it.
type fileManager struct{ shown chan []string }

func (f *fileManager) ShowItems(uris []string, startup string) *dbus.Error {
	f.shown <- uris
	return nil
}

func TestShowItemAsksTheFileManager(t *testing.T) {
	addr := sessionBus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	// No file manager on the bus yet: said so, in words.
	err := ShowItem(ctx, "/tmp/x y/out.txt")
	if !errors.Is(err, ErrNone) {
		t.Fatalf("ShowItem without a file manager = %v, want ErrNone", err)
	}

	conn, err := dbus.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		t.Fatal(err)
	}
	if err := conn.Hello(); err != nil {
		t.Fatal(err)
	}
	fm := &fileManager{shown: make(chan []string, 1)}
	if err := conn.Export(fm, Path, Name); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName(Name, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v %v", Name, reply, err)
	}
	if err := ShowItem(ctx, "/tmp/x y/out.txt"); err != nil {
		t.Fatalf("ShowItem = %v", err)
	}
	got := testenv.Receive(t, fm.shown, 10*time.Second, "the file manager's ShowItems")
	if len(got) != 1 || got[0] != "file:///tmp/x%20y/out.txt" {
		t.Errorf("the file manager was asked to show %q, want the file's URI", got)
	}
}

func TestShowItemWithoutASessionBus(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	if err := ShowItem(context.Background(), "/tmp/out.txt"); !errors.Is(err, ErrNone) || !strings.Contains(err.Error(), "no session bus") {
		t.Errorf("ShowItem without a bus = %v, want ErrNone (no session bus)", err)
	}
}
