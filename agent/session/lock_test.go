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
	dir, locks := t.TempDir(), t.TempDir()
	b, _ := Open[string](dir, "s1")
	// Another process holds it.
	cmd := exec.Command("flock", "--nonblock", b.LockFile(locks), "sh", "-c", "echo 4242 > "+b.LockFile(locks)+"; echo locked; read x")
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
	err := b.Lock(locks)
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
	if err := Delete(locks, dir, "s1"); err == nil || !errors.Is(err, ErrBusy) {
		t.Errorf("Delete of a session open elsewhere = %v", err)
	}
	stdin.Close()
	_ = cmd.Wait()
	if err := b.Lock(locks); err != nil {
		t.Fatalf("after the writer exited: %v", err)
	}
	data, _ := os.ReadFile(b.LockFile(locks))
	if strings.TrimSpace(string(data)) != fmt.Sprint(os.Getpid()) {
		t.Errorf("lock file holds %q", data)
	}
	_ = b.Close()
}

// The lock lives in the folder of locks, not in the workspace: code that
// can open every file of the workspace (a sandboxed kernel) cannot hold
// it. Earlier versions' lock beside the session is taken when free, so
// they see the session busy, and ignored when held.
func TestLockOutsideTheWorkspace(t *testing.T) {
	dir, locks := t.TempDir(), t.TempDir()
	b, _ := Open[string](dir, "s1")
	if filepath.Dir(b.LockFile(locks)) != locks {
		t.Fatalf("lock file %s is not in %s", b.LockFile(locks), locks)
	}
	// Someone holds the old lock beside the session's folder.
	legacy := filepath.Join(dir, "s1.lock")
	cmd := exec.Command("flock", "--nonblock", legacy, "sh", "-c", "echo locked; read x")
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
	if err := b.Lock(locks); err != nil {
		t.Fatalf("a held lock in the workspace kept the session closed: %v", err)
	}
	_ = b.Close()
	stdin.Close()
	_ = cmd.Wait()
	// Free: taken, so an earlier version sees the session busy.
	c, _ := Open[string](dir, "s1")
	if err := c.Lock(locks); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := exec.Command("flock", "--nonblock", legacy, "true").Run(); err == nil {
		t.Error("the old lock file is free while the session is open")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 || entries[0].Name() != "s1.lock" {
		t.Errorf("the workspace holds %v", entries)
	}
}
