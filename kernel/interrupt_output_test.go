package kernel

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freeact/desktop/internal/testenv"
)

// An interrupt may land while the kernel hooks hand a batch of output on to
// ipykernel (freeact_kernel's _OutputBatch). Whatever the cell wrote before
// it must reach the host exactly once: each stream is a gap-free prefix of
// the numbered lines the cell wrote, ending with the last line it wrote
// before the KeyboardInterrupt. The host interrupts at many points of the
// output: with both streams written in turn nearly every write hands on a
// batch (the other stream's), so nearly every interrupt finds one under
// way; with one stream a batch goes at 64 KiB, fewer interrupts find one,
// and each round, printing until the interrupt arrives, costs more.
func TestInterruptKeepsOutput(t *testing.T) {
	cells := []struct {
		name, loop string
		rounds     int
	}{
		{"both streams", "        out.write('%d\\n' % i)\n        err.write('%d\\n' % i)\n", 60},
		{"one stream", "        out.write('%d\\n' % i)\n", 15},
	}
	for name, py := range pythons(t) {
		t.Run(name, func(t *testing.T) {
			k := startKernel(t, sharedServer(t, py), KernelOptions{})
			for _, c := range cells {
				t.Run(c.name, func(t *testing.T) {
					code := "import sys\nout, err, i = sys.stdout, sys.stderr, 0\ntry:\n    while True:\n" + c.loop +
						"        i += 1\nexcept KeyboardInterrupt:\n    pass\nout.write('end %d\\n' % i)"
					for round := range c.rounds {
						// The interrupt goes once the host has seen this many
						// stdout lines, so it lands at a different point of the
						// batches each round.
						after := 1 + round*97%1500
						interruptedCell(t, k, code, after, c.name == "both streams")
					}
				})
			}
		})
	}
}

// interruptedCell runs code, interrupts it once the host has seen after
// lines on stdout, and checks what the host received.
func interruptedCell(t *testing.T, k *Kernel, code string, after int, stderr bool) {
	t.Helper()
	var out, errOut strings.Builder
	seen := make(chan struct{})
	lines, closed := 0, false
	done := make(chan outcome, 1)
	go func() {
		res, err := k.Execute(context.Background(), code, func(c Chunk) {
			// Chunks come from one goroutine.
			switch c.Kind {
			case ChunkStdout:
				out.WriteString(c.Text)
				lines += strings.Count(c.Text, "\n")
				if lines >= after && !closed {
					closed = true
					close(seen)
				}
			case ChunkStderr:
				errOut.WriteString(c.Text)
			}
		})
		done <- outcome{res, err}
	}()
	select {
	case <-seen:
	case o := <-done:
		t.Fatalf("the cell ended before it was interrupted: %+v %v", o.res, o.err)
	case <-time.After(time.Minute):
		t.Fatalf("no %d lines of output within a minute", after)
	}
	if err := k.Interrupt(context.Background()); err != nil {
		t.Fatal(err)
	}
	o := testenv.Receive(t, done, time.Minute, "the end of the interrupted cell")
	if o.err != nil || o.res.Error != nil {
		t.Fatalf("cell failed: %v %+v", o.err, o.res.Error)
	}
	stdout := out.String()
	cut := strings.LastIndex(strings.TrimSuffix(stdout, "\n"), "\n") + 1
	var written int
	if _, err := fmt.Sscanf(stdout[cut:], "end %d\n", &written); err != nil {
		t.Fatalf("interrupted after %d lines: stdout does not end with the cell's count: %q", after, tail(stdout))
	}
	outLines := checkNumbered(t, "stdout", stdout[:cut], written)
	if stderr {
		// stderr is written after stdout in each round of the loop.
		if errLines := checkNumbered(t, "stderr", errOut.String(), written); errLines > outLines {
			t.Fatalf("stderr has %d lines, stdout %d: stdout is written first", errLines, outLines)
		}
	}
}

// checkNumbered checks that text is the lines 0, 1, ... n-1, where the cell
// counted written whole writes (n may be one more: a write whose hand-off
// was interrupted got its line out), and returns n.
func checkNumbered(t *testing.T, stream, text string, written int) int {
	t.Helper()
	lines := strings.Split(text, "\n")
	if lines[len(lines)-1] != "" {
		t.Fatalf("%s: last line unfinished: %q", stream, tail(text))
	}
	lines = lines[:len(lines)-1]
	for i, l := range lines {
		if l != strconv.Itoa(i) {
			t.Fatalf("%s: line %d is %q (lost or repeated output) in %q", stream, i, l, around(lines, i))
		}
	}
	if n := len(lines); n != written && n != written+1 {
		t.Fatalf("%s: %d lines, but the cell wrote %d: the last output before the interrupt is lost", stream, n, written)
	}
	return len(lines)
}

func tail(s string) string { return s[max(0, len(s)-200):] }

func around(lines []string, i int) []string { return lines[max(0, i-3):min(len(lines), i+3)] }
