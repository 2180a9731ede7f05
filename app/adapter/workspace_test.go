package adapter

import (
	"errors"
	"fmt"
	"testing"

	"github.com/freeact/desktop/agent/session"
)

// Both front ends tell a conversation another freeact process writes from
// any other failure by BusySession, wrapped or not, with the writer's pid
// when the lock names it.
func TestBusySessionFindsTheLockOfAnotherProcess(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		pid  int
		busy bool
	}{
		{"the lock's error", &session.BusyError{PID: 4242}, 4242, true},
		{"wrapped", fmt.Errorf("start agent: %w", &session.BusyError{PID: 7}), 7, true},
		{"an unknown writer", &session.BusyError{}, 0, true},
		{"the sentinel alone", fmt.Errorf("open: %w", session.ErrBusy), 0, true},
		{"another failure", errors.New("no API key"), 0, false},
		{"none", nil, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pid, busy := BusySession(tc.err)
			if pid != tc.pid || busy != tc.busy {
				t.Errorf("BusySession(%v) = %d, %v; want %d, %v", tc.err, pid, busy, tc.pid, tc.busy)
			}
		})
	}
}

func TestPIDTextNamesOnlyAKnownProcess(t *testing.T) {
	if got := PIDText(4242); got != ", pid 4242" {
		t.Errorf("PIDText(4242) = %q", got)
	}
	if got := PIDText(0); got != "" {
		t.Errorf("PIDText(0) = %q, want nothing", got)
	}
}
