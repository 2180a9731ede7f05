//go:build unix

package session

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A session has one writer: a second store is refused, naming the pid,
// until the first closes.
func TestLockOneWriter(t *testing.T) {
	dir := t.TempDir()
	b, _ := Open[string](dir, "s1")
	// Another process holds it.
	cmd := exec.Command("flock", "--nonblock", b.LockFile(), "sh", "-c", "echo 4242 > "+b.LockFile()+"; echo locked; read x")
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Skipf("flock(1) is not available: %v", err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	buf := make([]byte, 7)
	if _, err := out.Read(buf); err != nil || string(buf) != "locked\n"[:7] {
		t.Fatalf("child: %q, %v", buf, err)
	}
	err := b.Lock()
	var busy *BusyError
	if !errors.As(err, &busy) || !errors.Is(err, ErrBusy) || busy.PID != 4242 {
		t.Fatalf("Lock = %v, want a BusyError naming pid 4242", err)
	}
	if !strings.Contains(err.Error(), "open in another freeact window, pid 4242") {
		t.Errorf("message %q", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "s1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Delete(dir, "s1"); err == nil || !errors.Is(err, ErrBusy) {
		t.Errorf("Delete of a session open elsewhere = %v", err)
	}
	stdin.Close()
	_ = cmd.Wait()
	if err := b.Lock(); err != nil {
		t.Fatalf("after the writer exited: %v", err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "s1.lock"))
	if strings.TrimSpace(string(data)) != fmt.Sprint(os.Getpid()) {
		t.Errorf("lock file holds %q", data)
	}
	_ = b.Close()
}
