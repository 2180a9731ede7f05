package mcpglue

import (
	"errors"
	"sync"
	"testing"
)

// The servers that failed are written by the start and by servers still
// connecting in the background while the window reads them
// (Failures): under -race, writers and readers at once report nothing.
func TestMCPFailuresWrittenWhileRead(t *testing.T) {
	m := &Hub{}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for range 200 {
				if i%2 == 0 {
					m.failed("ptc_servers", errors.New("no such server"))
				} else {
					m.noteFailure(nil, "slow", "still connecting")
				}
			}
		})
		wg.Go(func() {
			for range 200 {
				_ = m.Failures()
			}
		})
	}
	wg.Wait()
	if got := len(m.Failures()); got != 2*200+1 {
		t.Errorf("%d failures kept, want %d (each failed call one, the noted server once)", got, 2*200+1)
	}
}
