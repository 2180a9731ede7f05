package kernel

import (
	"strings"
	"testing"
)

// Issue 35: before a request goes to the host the hooks hand the cell's
// output on to ipykernel's IO thread, asking it once for both streams and
// not at all when nothing is buffered (ipykernel's own flush asks twice per
// stream, every time); what was printed is on the iopub socket before the
// request is sent.
func TestCallbackFlushWakesIOThreadOnlyForOutput(t *testing.T) {
	// The IO thread's schedule() counted from the main thread, apart from
	// the one a stream's write makes to arm its timer; and, when the
	// request is built, whether the text printed before it was sent.
	const probe = `
import sys, threading, freeact_kernel
_pub = sys.stdout.pub_thread
_orig_schedule, _orig_send = _pub.schedule, _pub._really_send
_main, _wakes, _sent = threading.get_ident(), [0], []
def _schedule(f):
    if threading.get_ident() == _main and getattr(f, "__name__", "") != "_schedule_in_thread":
        _wakes[0] += 1
    return _orig_schedule(f)
def _really_send(msg, *a, **kw):
    _sent.append(b"".join(p if isinstance(p, bytes) else bytes(p) for p in msg))
    return _orig_send(msg, *a, **kw)
_session = freeact_kernel._state["channel"].kernel.session
_orig_header = _session.msg_header
_seen = []
def _msg_header(msg_type, *a, **kw):
    if msg_type == "input_request":
        _seen.append(any(b"printed-" b"before-asking" in m for m in _sent))
    return _orig_header(msg_type, *a, **kw)
_pub.schedule, _pub._really_send, _session.msg_header = _schedule, _really_send, _msg_header
try:
    %s
    freeact_kernel.approve_shell("ls")
finally:
    del _pub.schedule, _pub._really_send, _session.msg_header
print("wakes", _wakes[0], "sent-first", _seen)
`
	for name, py := range pythons(t) {
		t.Run(name, func(t *testing.T) {
			s := sharedServer(t, py)
			k := startKernel(t, s, KernelOptions{Host: &testHost{}})
			for _, c := range []struct {
				name, code, want string
			}{
				{"nothing printed", "pass", "wakes 0 sent-first [False]"},
				{"stdout", "print('printed-' 'before-asking', end='')", "wakes 1 sent-first [True]"},
				{"stdout and stderr", "print('printed-' 'before-asking'); print('err', file=sys.stderr)", "wakes 1 sent-first [True]"},
			} {
				t.Run(c.name, func(t *testing.T) {
					res := run(t, k, strings.Replace(probe, "%s", c.code, 1))
					if res.Error != nil {
						t.Fatalf("cell raised %v\n%s", res.Error, res.Error.Traceback)
					}
					if !strings.Contains(res.Text, c.want) {
						t.Errorf("got %q, want %q", res.Text, c.want)
					}
				})
			}
		})
	}
}

// The stdin channel reads replies itself (not Session.recv): a reply counts
// only with the session's signature, once, and only as an input_reply.
func TestCallbackReplyMustBeSigned(t *testing.T) {
	const probe = `
import zmq, freeact_kernel
ch = freeact_kernel._state["channel"]
session = ch.kernel.session
class FakeSocket:
    def __init__(self, frames): self.frames = frames
    def recv_multipart(self, flags=0): return self.frames
def frames(msg_type="input_reply", sign=True, tamper=False):
    header = session.msg_header(msg_type)
    parts = [session.pack(header), session.pack({"msg_id": "req-1"}), b"{}", session.pack({"status": "ok", "value": "yes"})]
    sig = session.sign(parts) if sign else b""
    if tamper:
        parts[3] = session.pack({"status": "ok", "value": "forged"})
    return [b"ident", b"<IDS|MSG>", sig] + parts
def read(f):
    fake = object.__new__(freeact_kernel._Channel)
    fake.socket = FakeSocket(f)
    return freeact_kernel._Channel._recv(fake, session)
good = frames()
print("signed", read(good))
print("replayed", read(good))
print("unsigned", read(frames(sign=False)))
print("tampered", read(frames(tamper=True)))
print("not a reply", read(frames(msg_type="execute_request")))
print("no delimiter", read([b"junk"]))
`
	want := []string{
		"signed ('req-1', 'yes')",
		"replayed None",
		"unsigned None",
		"tampered None",
		"not a reply None",
		"no delimiter None",
	}
	for name, py := range pythons(t) {
		t.Run(name, func(t *testing.T) {
			s := sharedServer(t, py)
			k := startKernel(t, s, KernelOptions{Host: &testHost{}})
			res := run(t, k, probe)
			if res.Error != nil {
				t.Fatalf("cell raised %v\n%s", res.Error, res.Error.Traceback)
			}
			for _, w := range want {
				if !strings.Contains(res.Text, w+"\n") {
					t.Errorf("want %q in\n%s", w, res.Text)
				}
			}
		})
	}
}
