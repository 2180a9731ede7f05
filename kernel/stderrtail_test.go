package kernel

import (
	"strings"
	"testing"
)

// The messages that quote a kernel's last output (it died, or did not
// start) leave out the warnings ipykernel prints on every start: they
// say nothing about why it stopped, and the tail keeps its lines for
// what does.
func TestProcessTailLeavesOutBenignWarnings(t *testing.T) {
	const warning = "[W 2026-11-28 08:00:00.000 kernelapp] Kernel is running over TCP without encryption. " +
		"All communication (including code and outputs) is sent in plain text and is susceptible to eavesdropping. " +
		"Use IPC transport or launch with kernel manager-provisioned CurveZMQ keys to enable transport encryption."
	for _, tc := range []struct {
		name, out, want string
		n               int
	}{
		{"the warning alone", warning + "\n", "", 8},
		{"the warning before the cause", "starting\n" + warning + "\nTraceback (most recent call last):\nMemoryError\n",
			"starting\nTraceback (most recent call last):\nMemoryError", 8},
		{"the last lines counted without it", "one\ntwo\n" + warning + "\nthree\n", "two\nthree", 2},
		{"other warnings kept", "[W kernelapp] something else went wrong\n" + warning + "\n", "[W kernelapp] something else went wrong", 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf := &tailBuffer{max: 64 << 10}
			_, _ = buf.Write([]byte(tc.out))
			p := &process{logTail: buf}
			got := p.tail(tc.n)
			if got != tc.want {
				t.Errorf("tail(%d) = %q, want %q", tc.n, got, tc.want)
			}
			if strings.Contains(got, "eavesdropping") {
				t.Errorf("the tail quotes the TCP warning: %q", got)
			}
		})
	}
}
