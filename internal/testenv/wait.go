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
