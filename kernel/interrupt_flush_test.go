package kernel

import (
	"context"
	"strings"
	"testing"
	"time"
)

// flushInterrupt is Python that makes the next flush of a stream's buffer
// that ipykernel schedules on its IO thread meet a SIGINT at the worst
// point: after the flush is queued, before the IO thread is woken to run
// it (ipykernel's OutStream.flush → IOPubThread.schedule). Until something
// else wakes the thread, what the buffer holds stays there. The patch
// undoes itself when it fires; armed() arms it for the flush that
// ipykernel makes after the cell's code, before it sends the reply.
const flushInterrupt = `
import signal as _s, sys as _sys
_pt = _sys.stdout.pub_thread
_orig_schedule = _pt.schedule
_armed = [%s]
def _schedule(f):
    if _armed[0] and getattr(f, "__name__", "") == "_flush":
        _pt.schedule = _orig_schedule
        _pt._events.append(f)
        _s.raise_signal(_s.SIGINT)
        _pt._event_pipe.send(b"")
        return
    _orig_schedule(f)
_pt.schedule = _schedule
def _arm(*_):
    _armed[0] = True
    get_ipython().events.unregister("post_run_cell", _arm)
get_ipython().events.register("post_run_cell", _arm)
`

// A SIGINT inside ipykernel's own flush() — the one a cell's flush=True
// makes, and the one ipykernel makes after the cell's code before it
// reports the cell's end — must not hold the flushed output back until
// some later flush: it reaches the host before the cell's end, in the
// cell it belongs to, and the kernel keeps answering. On ipykernel 7 and
// Debian's 6.17.
func TestInterruptInsideFlush(t *testing.T) {
	for name, py := range pythons(t) {
		t.Run(name, func(t *testing.T) {
			k := startKernel(t, sharedServer(t, py), KernelOptions{})
			for _, tc := range []struct {
				name, armed, code string
			}{
				// The cell's own flush: the interrupt is the cell's
				// KeyboardInterrupt.
				{"in the cell", "True", "print('before the flush', flush=True)\nprint('not' + ' reached')"},
				// ipykernel's flush after the cell: the interrupt came
				// late, the cell's output is whole.
				{"after the cell", "False", "print('before the flush')"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					res := run(t, k, strings.Replace(flushInterrupt, "%s", tc.armed, 1)+tc.code)
					if !strings.Contains(res.Text, "before the flush\n") {
						t.Fatalf("the output flushed before the interrupt is not in the cell's result: %q", res.Text)
					}
					if strings.Contains(res.Text, "not reached") {
						t.Fatalf("the cell went on after the interrupt: %q", res.Text)
					}
					// Nothing of it arrives later, in the next cell.
					ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
					defer cancel()
					next, err := k.Execute(ctx, "import time; time.sleep(0.3); print('next')", nil)
					if err != nil {
						t.Fatalf("the kernel does not answer after the interrupt: %v", err)
					}
					if next.Text != "next\n" {
						t.Fatalf("the next cell's output is %q, want only its own", next.Text)
					}
				})
			}
		})
	}
}
