package zmqwire

import (
	"fmt"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/testenv"
)

// TestStopped: the heartbeat's check of a process's state, on a real one.
func TestStopped(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pid := cmd.Process.Pid
	for _, step := range []struct {
		sig  syscall.Signal
		want bool
	}{{syscall.SIGSTOP, true}, {syscall.SIGCONT, false}} {
		if err := syscall.Kill(pid, step.sig); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, 10*time.Second, func() error {
			if got := Stopped(pid); got != step.want {
				return fmt.Errorf("after %v stopped is %v", step.sig, got)
			}
			return nil
		})
	}
	if Stopped(1 << 30) {
		t.Fatal("a process that does not exist is stopped")
	}
}
