package testenv

import (
	"testing"
	"time"
)

// Eventually waits for a state the test cannot be told about (a process
// gone, a file another process writes, a line on a terminal): it calls
// check until it returns nil and fails the test with check's last error
// when within has passed. within is a safety net, not a measurement: make
// it generous (tens of seconds), since the machine may be loaded. When the
// code under test offers an event (a callback, a channel, output the test
// reads), wait for that instead.
func Eventually(t testing.TB, within time.Duration, check func() error) {
	t.Helper()
	deadline := time.Now().Add(within)
	pause := 5 * time.Millisecond
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still not so after %s: %v", within, err)
			return
		}
		time.Sleep(pause)
		pause = min(2*pause, 200*time.Millisecond)
	}
}

// Receive waits for a value on ch and returns it; when within passes first
// it fails the test saying what did not come. within is a safety net, so
// that a test fails with a message instead of hanging: make it generous.
func Receive[T any](t testing.TB, ch <-chan T, within time.Duration, what string) T {
	t.Helper()
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("%s: nothing within %s", what, within)
		var zero T
		return zero
	}
}
