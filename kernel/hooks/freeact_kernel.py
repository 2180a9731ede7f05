"""In-kernel side of freeact: asks the host (the Go process driving this kernel)
before shell commands run, forwards programmatic tool calls and user input to
it, and keeps the working directory pinned to the workspace.

All talk with the host goes over the Jupyter stdin channel. A request is an
``input_request`` whose prompt is MARKER followed by JSON; the host answers
with an ``input_reply`` whose value is JSON. One background thread owns the
stdin socket (zmq sockets are not thread-safe) and matches replies to requests
by the request's msg_id, so callers on any thread can wait at the same time.
Each request's parent header is the execute_request of the cell the calling
code belongs to (a thread belongs to the cell that started it), so the host
can refuse requests of cells that have ended.

Shell commands. Every IPython route to a subprocess ends in one of a few
functions (``InteractiveShell.system``/``getoutput``, the process utilities of
``IPython.utils``, the ``%%script`` family). They are replaced, on the classes,
the instance, the magics registry and every module that imported them, by
functions here that ask first and then run exactly what was shown: ``!`` lines
with bash (whose grammar the host parsed), scripts with the interpreter shown.
No function here starts a process without asking first, and the replaced
originals are not kept. Underneath, a gate on process creation (Popen, os.system,
posix_spawn, fork) asks for any process that IPython or ipykernel code starts
some other way, with its exact argv. Everything is checked and re-installed
before each cell. Code of the cell itself that calls subprocess or os.system
is not intercepted: that is the sandbox's job.

The Go side loads this source as the module ``freeact_kernel`` and then as an
IPython extension; ``freeact_runtime`` is the small module generated tool APIs
import (``call_tool``).
"""

import _signal
import atexit
import builtins
import codecs
import collections
import contextvars
import errno
import hmac
import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
import types

import zmq

MARKER = "\x1dfreeact:"

_state = {
    "channel": None,
    "workspace": None,
    "timeout": 86400.0,
    "ip": None,
}


class CallbackTimeout(TimeoutError):
    """The host did not answer a request before its deadline."""


class ToolCallError(Exception):
    """Base class of errors raised by call_tool."""


class ToolRejected(ToolCallError):
    """The user (or a permission rule) rejected the tool call."""


class ToolTimeout(ToolCallError, TimeoutError):
    """No approval or no result came before the deadline."""


class ToolFailed(ToolCallError):
    """The tool ran and reported an error, or could not be reached."""


class CellEnded(RuntimeError):
    """The request came from code (a thread, task or callback) of a cell that
    has ended; only the running cell may ask the host for anything."""


# ---------------------------------------------------------------------------
# Which cell a piece of code belongs to
# ---------------------------------------------------------------------------

# Work handed to a thread pool runs with the origin of the code that submitted it.
_tls = threading.local()


def _current_cell():
    """The (client ident, header) of the execute_request the calling code
    runs under, as ipykernel tracks it: per asyncio task on ipykernel 7, the
    latest request on 6. None before the first request."""
    ch = _state["channel"]
    if ch is None:
        return None
    k = ch.kernel
    try:
        ident = k._parent_ident["shell"]
        parent = k.get_parent("shell") or {}
    except Exception:
        return None
    return (ident or ch.latest[0], parent)


def _origin():
    """Where a request from the calling code must say it comes from: the cell
    its thread (or the thread pool work) was started by, else the cell being
    run."""
    work = getattr(_tls, "work", None)
    if work is not None:
        return work[0]
    o = getattr(threading.current_thread(), "_freeact_origin", None)
    if o is not None:
        return o
    return _current_cell()


class _Slot:
    __slots__ = ("done", "value", "msg_id")

    def __init__(self):
        self.done = threading.Event()
        self.value = None
        self.msg_id = None


class _Channel:
    """Owns the kernel's stdin socket; see the module doc string."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.socket = kernel.stdin_socket
        self.lock = threading.Lock()
        self.outbox = collections.deque()
        self.pending = {}
        self.latest = (None, {})
        self._parent_packed = None  # (parent header, its packed bytes): the last one sent
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        self.stopping = False
        self.thread = threading.Thread(target=self._run, name="freeact-stdin", daemon=True)
        self.thread.start()

    def stop(self):
        """Let go of the stdin socket before ipykernel closes it at exit (a
        socket still being polled by this thread delays shutdown by seconds)."""
        self.stopping = True
        try:
            os.write(self.wake_w, b"x")
        except OSError:
            pass
        self.thread.join(1.0)

    def capture_parent(self):
        """Remember the client identity and header of the execute_request
        being run now (the fallback for code of unknown origin)."""
        k = self.kernel
        try:
            ident = k._parent_ident["shell"]
        except Exception:
            ident = None
        if ident:
            self.latest = (ident, k.get_parent("shell") or {})

    def request(self, prompt, password=False, timeout=None):
        __tracebackhide__ = True
        if timeout is None:
            timeout = _state["timeout"]
        origin = _origin() or self.latest
        slot = _Slot()
        item = (prompt, password, origin, slot)
        with self.lock:
            self.outbox.append(item)
        os.write(self.wake_w, b"x")
        deadline = time.monotonic() + timeout
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise CallbackTimeout(f"no answer from the host within {timeout:g} s")
                # Short waits keep the main thread responsive to SIGINT.
                if slot.done.wait(min(left, 0.1)):
                    return slot.value
        finally:
            with self.lock:
                if slot.msg_id is not None:
                    self.pending.pop(slot.msg_id, None)
                else:
                    try:
                        self.outbox.remove(item)
                    except ValueError:
                        pass

    # Session.send and Session.recv spent about 0.2 ms per request on work
    # an input_request and its reply do not need (the parent header packed
    # again each time, dates parsed, metadata and buffers handled). These two
    # build and read the same wire format (the Jupyter messaging spec, with
    # the session's own header, packer and signature) for just those.
    _DELIM = b"<IDS|MSG>"

    def _send(self, session, ident, parent, prompt, password):
        """Send an input_request (parent: the header it answers to) and
        return its msg_id."""
        header = session.msg_header("input_request")
        cached = self._parent_packed
        if cached is not None and cached[0] is parent:
            p_parent = cached[1]
        else:
            p_parent = session.pack(parent)
            self._parent_packed = (parent, p_parent)
        pack = session.pack
        parts = [pack(header), p_parent, b"{}", pack({"prompt": prompt, "password": password})]
        frames = list(ident) if isinstance(ident, list) else [ident]
        frames.append(self._DELIM)
        frames.append(session.sign(parts))
        frames.extend(parts)
        self.socket.send_multipart(frames)
        return header["msg_id"]

    def _recv(self, session):
        """Read one message: (its parent's msg_id, the reply's value) for a
        signed input_reply, else None (dropped: unsigned, replayed, or not
        a reply)."""
        frames = self.socket.recv_multipart(zmq.NOBLOCK)
        try:
            i = frames.index(self._DELIM)
        except ValueError:
            return None
        sig, parts = frames[i + 1], frames[i + 2 : i + 6]
        if len(parts) < 4:
            return None
        if session.auth is not None:
            if not sig or not hmac.compare_digest(sig, session.sign(parts)):
                return None
            # Session.recv refuses a signature it has seen (a replay).
            if sig in session.digest_history:
                return None
            session._add_digest(sig)
        header, parent, content = (session.unpack(p) for p in (parts[0], parts[1], parts[3]))
        if (header or {}).get("msg_type") != "input_reply":
            return None
        return (parent or {}).get("msg_id"), (content or {}).get("value", "")

    def _run(self):
        poller = zmq.Poller()
        poller.register(self.socket, zmq.POLLIN)
        poller.register(self.wake_r, zmq.POLLIN)
        session = self.kernel.session
        while not self.stopping:
            try:
                events = dict(poller.poll())
                if self.stopping:
                    return
                if self.wake_r in events:
                    try:
                        os.read(self.wake_r, 4096)
                    except BlockingIOError:
                        pass
                while True:
                    with self.lock:
                        if not self.outbox:
                            break
                        prompt, password, (ident, parent), slot = self.outbox.popleft()
                        slot.msg_id = self._send(session, ident, parent, prompt, password)
                        self.pending[slot.msg_id] = slot
                # Only when there is something to read: a read that finds
                # nothing raises, and that costs more than asking.
                while self.socket.getsockopt(zmq.EVENTS) & zmq.POLLIN:
                    reply = self._recv(session)
                    if reply is None:
                        continue
                    pid, value = reply
                    with self.lock:
                        slot = self.pending.pop(pid, None)
                    if slot is not None:
                        slot.value = value
                        slot.done.set()
            except zmq.ContextTerminated:
                return
            except Exception as e:  # keep serving; a bad message must not stop the channel
                try:
                    sys.__stderr__.write(f"freeact stdin channel: {e!r}\n")
                except Exception:
                    pass


def _call(kind, timeout=None, **fields):
    """Send a marker request and return the decoded reply object."""
    __tracebackhide__ = True
    fields["kind"] = kind
    if timeout is None:
        timeout = _state["timeout"]
    fields["timeout"] = timeout
    raw = _state["channel"].request(MARKER + json.dumps(fields), False, timeout)
    try:
        return json.loads(raw)
    except ValueError:
        return {"ok": False, "error": {"kind": "protocol", "message": f"bad reply from host: {raw[:200]!r}"}}


def _flush():
    """Hand what was printed to stdout and stderr on to ipykernel's IO
    thread before a request goes to the host, so that the host has the
    output first.

    ipykernel's OutStream.flush waits for a round trip to its IO thread
    even when nothing is buffered, and flushing both streams took two.
    Here the streams' buffers are looked at (their internals, 6.x and 7.x)
    and the IO thread is asked once, for both, only when one holds output;
    it runs their flushes, which queue the sends, and then answers, so the
    sends are on the socket before this returns (ipykernel's own flush
    answers before them). Streams whose buffers cannot be seen (another
    ipykernel, a redirect, a subprocess) are flushed as before."""
    try:
        _output.flush()
    except Exception:
        pass
    due = []
    for s in (sys.stdout, sys.stderr):
        state = _buffered(s)
        if state is None:
            try:
                s.flush()
            except Exception:
                pass
        elif state:
            due.append(s)
    if due:
        _flush_on_io_thread(due)


def _buffered(stream):
    """Whether an ipykernel OutStream has output waiting to be sent; None
    when that cannot be told (not an OutStream of a known layout, its IO
    thread gone or the caller's, an echo to flush, a forked child)."""
    d = getattr(stream, "__dict__", None)
    if d is None or d.get("echo") is not None:
        return None
    pub = d.get("pub_thread")
    thread = getattr(pub, "thread", None)
    if thread is None or not thread.is_alive() or thread.ident == threading.get_ident():
        return None
    if d.get("_master_pid") != os.getpid():
        return None
    if "_buffers" in d:  # ipykernel >= 6.2x: one buffer per parent header
        return bool(d["_buffers"])
    buf = d.get("_buffer")  # ipykernel 6.17: one StringIO
    if buf is not None and hasattr(buf, "tell"):
        return buf.tell() > 0
    return None


def _flush_on_io_thread(streams):
    """Flush streams (of one IO thread, else one by one) with one round
    trip: the IO thread runs their _flush, which queues the sends behind
    it, then queues the answer behind those."""
    pub = streams[0].pub_thread
    if any(s.pub_thread is not pub for s in streams):
        for s in streams:
            s.flush()
        return
    done = threading.Event()

    def on_io_thread():
        try:
            for s in streams:
                s._flush()
        finally:
            pub.schedule(done.set)

    # An interrupt between queueing and waking the IO thread would leave
    # the output queued until something else wakes it.
    held = _interrupts.hold()
    try:
        pub.schedule(on_io_thread)
    finally:
        _interrupts.release(held)
    if not done.wait(getattr(streams[0], "flush_timeout", 10.0)):
        print("IOStream.flush timed out", file=sys.__stderr__)


def approve_shell(command, script=None, argv=None):
    """Ask the host whether a shell command may run. True means yes.

    `command` is the command line (or, with `script`, the script text);
    `script` names the interpreter command a script is fed to; `argv` marks
    a process started directly (no shell parses `command`)."""
    __tracebackhide__ = True
    _flush()
    fields = {"command": command}
    try:
        # Where the command's relative paths lead (%cd, os.chdir).
        fields["cwd"] = os.getcwd()
    except OSError:
        pass
    if script is not None:
        fields["interpreter"] = script
    if argv is not None:
        fields["argv"] = list(argv)
    reply = _call("shell", **fields)
    if reply.get("ok"):
        return bool(reply.get("result"))
    err = reply.get("error") or {}
    if err.get("kind") == "cell_ended":
        raise CellEnded(f"shell command refused, not run: {err.get('message', '')}")
    raise RuntimeError(f"shell approval failed: {err.get('message', 'unknown error')}")


def _deny(command):
    _flush()
    print(f"Shell command rejected, not run: {command}", file=sys.stderr)
    _flush()


def call_tool(server, tool, args=None, timeout=None):
    """Call tool `tool` of MCP server `server` through the host and return its
    result (decoded JSON). Raises ToolRejected, ToolTimeout or ToolFailed."""
    __tracebackhide__ = True
    try:
        reply = _call("tool", timeout=timeout, server=server, tool=tool, args=args if args is not None else {})
    except CallbackTimeout as e:
        raise ToolTimeout(f"{server}.{tool}: {e}") from None
    if reply.get("ok"):
        return reply.get("result")
    err = reply.get("error") or {}
    kind, msg = err.get("kind"), err.get("message", "")
    if kind == "rejected":
        raise ToolRejected(f"{server}.{tool}: tool call rejected")
    if kind == "timeout":
        raise ToolTimeout(f"{server}.{tool}: {msg}")
    if kind == "cell_ended":
        raise ToolFailed(f"{server}.{tool}: refused: {msg}")
    raise ToolFailed(f"{server}.{tool}: {msg}")


def _input_value(value):
    __tracebackhide__ = True
    if value == "\x04":
        raise EOFError
    if value.startswith(MARKER):  # the host refused the request
        try:
            err = json.loads(value[len(MARKER):]).get("error") or {}
        except (ValueError, AttributeError):
            err = {}
        raise CellEnded(f"input refused: {err.get('message', value[len(MARKER):])}")
    return value


def _raw_input(prompt=""):
    __tracebackhide__ = True
    _flush()
    return _input_value(_state["channel"].request(str(prompt), False))


def _getpass(prompt="Password: ", stream=None, **_ignored):
    __tracebackhide__ = True
    _flush()
    return _input_value(_state["channel"].request(str(prompt), True))


# ---------------------------------------------------------------------------
# Running approved commands
# ---------------------------------------------------------------------------


def _find_bash():
    for p in ("/bin/bash", "/usr/bin/bash"):
        if os.access(p, os.X_OK):
            return p
    import shutil

    return shutil.which("bash")


# The shell of every `!` command, found once: the host splits commands with
# a bash parser, so bash (not $SHELL, which may be dash or anything `%env`
# set) runs them.
_BASH = _find_bash()

# Variables that make bash run code that was never shown: a startup file,
# exported functions standing in for commands, options and a prompt with
# command substitutions for xtrace.
_HIDDEN_CODE_VARS = ("BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND")


def _child_env():
    env = {}
    for k, v in os.environ.items():
        if k in _HIDDEN_CODE_VARS or k.startswith("BASH_FUNC_"):
            continue
        env[k] = v
    return env


def _spawn_shell(command, **popen):
    """Ask for `command`; when approved, start it with bash and return the
    Popen, else report the rejection and return None."""
    __tracebackhide__ = True
    if _BASH is None:
        raise FileNotFoundError(errno.ENOENT, "bash not found: freeact runs shell commands with bash; install it")
    if not approve_shell(command):
        _deny(command)
        return None
    return subprocess.Popen([_BASH, "-c", command], env=_child_env(), close_fds=True, **popen)


def _spawn_script(argv, script, **popen):
    """Ask for `script` run by the program `argv` (its name resolved on PATH
    now, so what is shown is the file that runs); when approved, start it
    and return the Popen (its stdin must then be fed `script`), else None.
    A program that is not found raises FileNotFoundError without asking."""
    __tracebackhide__ = True
    argv = list(argv)
    if os.sep not in argv[0]:
        import shutil

        found = shutil.which(argv[0])
        if found is None:
            raise FileNotFoundError(errno.ENOENT, "program not found", argv[0])
        argv[0] = found
    shown = shlex.join(argv)
    if not approve_shell(script, script=shown):
        _deny(f"{shown} script")
        return None
    return subprocess.Popen(list(argv), env=_child_env(), close_fds=True, **popen)


def _stop(p, grace=0.2):
    """Interrupt a child started in its own session, then kill it."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except OSError:
            pass
        try:
            p.wait(grace)
            return
        except subprocess.TimeoutExpired:
            pass


def _exit_code(rc):
    # IPython's convention: a signal (or a shell's 128+N) is -N.
    if rc is None:
        return 0
    if rc > 128:
        return -(rc - 128)
    return rc


def _system(cmd):
    """Run `cmd` (already expanded) after approval, with its output on a
    pseudo-terminal streamed live to stdout like IPython's system(); return
    the exit code."""
    __tracebackhide__ = True
    import termios

    _flush()
    master, slave = os.openpty()
    try:
        attrs = termios.tcgetattr(slave)
        attrs[1] &= ~termios.ONLCR  # keep \n as the program wrote it
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        p = _spawn_shell(cmd, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, start_new_session=True)
    except BaseException:
        os.close(master)
        raise
    finally:
        os.close(slave)
    if p is None:
        os.close(master)
        return 1
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    try:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError as e:
                if e.errno == errno.EIO:  # every holder of the terminal closed it
                    break
                raise
            if not data:
                break
            sys.stdout.write(decoder.decode(data))
            sys.stdout.flush()
        rest = decoder.decode(b"", final=True)
        if rest:
            sys.stdout.write(rest)
        p.wait()
    except KeyboardInterrupt:
        _stop(p)
        raise
    finally:
        os.close(master)
    _flush()
    return _exit_code(p.returncode)


def _communicate(p, stdin=None):
    """communicate() that stops the child on an interrupt."""
    try:
        return p.communicate(stdin)
    except KeyboardInterrupt:
        _stop(p)
        raise


def _decode(b):
    return (b or b"").decode("utf-8", "replace")


def _getoutput(cmd):
    """stdout and stderr of `cmd` together, after approval (IPython's
    process getoutput)."""
    __tracebackhide__ = True
    _flush()
    p = _spawn_shell(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    if p is None:
        return ""
    return _decode(_communicate(p)[0])


def _process_handler(cmd, callback, stderr=None):
    """IPython.utils._process_common.process_handler, asking first; a list
    is run as the shell-quoted command line it stands for."""
    __tracebackhide__ = True
    if stderr is None:
        stderr = subprocess.PIPE
    _flush()
    command = cmd if isinstance(cmd, str) else shlex.join(os.fsdecode(c) for c in cmd)
    p = _spawn_shell(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, start_new_session=True)
    if p is None:
        return None
    try:
        return callback(p)
    finally:
        if p.returncode is None:
            _stop(p, grace=0.05)


def _ph_system(self, cmd):
    __tracebackhide__ = True
    return _system(cmd)


def _ph_getoutput(self, cmd):
    __tracebackhide__ = True
    return _getoutput(cmd)


def _ip_system(self, cmd):
    """InteractiveShell.system / system_piped: `!cmd`."""
    __tracebackhide__ = True
    if cmd.rstrip().endswith("&"):
        raise OSError("Background processes not supported.")
    ec = _system(self.var_expand(cmd, depth=1))
    self.user_ns["_exit_code"] = ec
    if getattr(self, "system_raise_on_error", False) and ec != 0:
        raise subprocess.CalledProcessError(ec, cmd)


def _ip_system_raw(self, cmd):
    """InteractiveShell.system_raw: output straight to the kernel's own
    descriptors (background jobs allowed)."""
    __tracebackhide__ = True
    expanded = self.var_expand(cmd, depth=1)
    _flush()
    p = _spawn_shell(expanded, stdin=subprocess.DEVNULL, start_new_session=True)
    if p is None:
        ec = 1
    else:
        try:
            ec = _exit_code(p.wait())
        except KeyboardInterrupt:
            _stop(p)
            raise
    self.user_ns["_exit_code"] = ec
    if getattr(self, "system_raise_on_error", False) and ec != 0:
        raise subprocess.CalledProcessError(ec, cmd)


def _ip_getoutput(self, cmd, split=True, depth=0):
    """InteractiveShell.getoutput: `x = !cmd`, %sx, %%!."""
    __tracebackhide__ = True
    from IPython.utils.text import LSString, SList

    if cmd.rstrip().endswith("&"):
        raise OSError("Background processes not supported.")
    expanded = self.var_expand(cmd, depth=depth + 1)
    raise_on_error = getattr(self, "system_raise_on_error", False)
    _flush()
    p = _spawn_shell(
        expanded,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE if raise_on_error else subprocess.STDOUT,
        start_new_session=True,
    )
    if p is None:
        self.user_ns["_exit_code"] = 1
        return SList([]) if split else LSString("")
    out, err = _communicate(p)
    out = _decode(out) + _decode(err)
    ec = _exit_code(p.returncode)
    self.user_ns["_exit_code"] = ec
    if raise_on_error and ec != 0:
        raise subprocess.CalledProcessError(ec, cmd)
    return SList(out.splitlines()) if split else LSString(out)


def _pump(p, data, out, err):
    """Feed `data` to p's stdin and hand its stdout/stderr text to out/err as
    it arrives, until both end."""
    import selectors

    sel = selectors.DefaultSelector()
    decoders = {}
    if p.stdin is not None:
        if data:
            os.set_blocking(p.stdin.fileno(), False)
            sel.register(p.stdin, selectors.EVENT_WRITE)
        else:
            p.stdin.close()
    for f, sink in ((p.stdout, out), (p.stderr, err)):
        if f is not None:
            decoders[f] = (codecs.getincrementaldecoder("utf-8")("replace"), sink)
            sel.register(f, selectors.EVENT_READ)
    view = memoryview(data or b"")
    try:
        while sel.get_map():
            for key, _ in sel.select():
                f = key.fileobj
                if f is p.stdin:
                    try:
                        n = os.write(f.fileno(), view[:65536])
                    except BrokenPipeError:
                        n = len(view)
                    view = view[n:]
                    if not view:
                        sel.unregister(f)
                        f.close()
                    continue
                chunk = os.read(f.fileno(), 65536)
                dec, sink = decoders[f]
                text = dec.decode(chunk, final=not chunk)
                if text:
                    sink(text)
                if not chunk:
                    sel.unregister(f)
                    f.close()
    finally:
        sel.close()


def _shebang(self, line, cell):
    """%%script and the cell magics made from it (%%bash, %%perl, ...):
    run the cell by the program named on the line, after approval of both."""
    __tracebackhide__ = True
    from IPython.utils.process import arg_split

    argv = arg_split(line, posix=True)
    args, cmd = self.shebang.parser.parse_known_args(argv)
    if not cmd:
        print("%%script needs the program to run the cell with, e.g. %%script bash", file=sys.stderr)
        return
    ns = self.shell.user_ns
    for name in (args.out, args.err):
        if name:
            ns[name] = ""
    if not cell.endswith("\n"):
        cell += "\n"
    _flush()
    try:
        p = _spawn_script(
            cmd, cell, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
        )
    except OSError as e:
        if e.errno == errno.ENOENT:
            print("Couldn't find program: %r" % cmd[0])
            return
        raise
    if p is None:
        return
    data = cell.encode("utf-8", "replace")
    if args.bg:
        bg = getattr(self, "bg_processes", None)
        if isinstance(bg, list):
            bg.append(p)
        if args.out:
            ns[args.out] = p.stdout
        if args.err:
            ns[args.err] = p.stderr
        if args.proc:
            ns[args.proc] = p

        def finish():
            _pump(
                types.SimpleNamespace(stdin=p.stdin, stdout=None if args.out else p.stdout, stderr=None if args.err else p.stderr),
                data, lambda s: None, lambda s: None,
            )
            p.wait()

        threading.Thread(target=finish, name="freeact-script-bg", daemon=True).start()
        return

    def sink(name, stream):
        if name:
            return lambda s: ns.__setitem__(name, ns[name] + s)
        return lambda s: (stream.write(s), stream.flush())

    try:
        _pump(p, data, sink(args.out, sys.stdout), sink(args.err, sys.stderr))
        p.wait()
    except KeyboardInterrupt:
        _stop(p, grace=0.1)
        raise
    if getattr(args, "raise_error", False) and p.returncode != 0:
        raise subprocess.CalledProcessError(p.returncode, cell)


# ---------------------------------------------------------------------------
# The gate: processes that IPython code starts by any other route
# ---------------------------------------------------------------------------


def _dir_of(modname):
    try:
        import importlib.util

        spec = importlib.util.find_spec(modname)
    except Exception:
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(os.path.realpath(list(spec.submodule_search_locations)[0]), "")


def _classify_paths():
    stdlib = os.path.join(os.path.realpath(os.path.dirname(os.__file__)), "")
    machinery = [d for d in (_dir_of("pexpect"), _dir_of("ptyprocess")) if d]
    ipython = [d for d in (_dir_of("IPython"), _dir_of("ipykernel")) if d]
    return stdlib, tuple(machinery), tuple(ipython)


_STDLIB, _MACHINERY, _IPYTHON = _classify_paths()
_file_kind = {}  # co_filename -> "machinery" | "ipython" | "other"


def _kind(filename):
    k = _file_kind.get(filename)
    if k is not None:
        return k
    if filename.startswith("<frozen ") or filename == "<freeact_kernel>":
        k = "machinery"
    else:
        real = os.path.realpath(filename) if os.path.isabs(filename) else filename
        if real.startswith(_IPYTHON):
            k = "ipython"
        elif real.startswith(_MACHINERY) or (
            real.startswith(_STDLIB) and "site-packages" not in real and "dist-packages" not in real
        ):
            k = "machinery"
        else:
            k = "other"
    _file_kind[filename] = k
    return k


_SPAWNERS = set()  # code objects of the functions here that ask before they start a process


def _from_ipython(frame):
    """Whether the nearest caller at or above `frame` that is not process
    machinery (the standard library, pexpect, the plumbing here) is IPython
    or ipykernel code. The approving spawners here are not IPython; a stack
    that ends in machinery belongs to whoever started the thread."""
    f = frame
    while f is not None:
        code = f.f_code
        if code in _SPAWNERS:
            return False
        k = _kind(code.co_filename)
        if k == "ipython":
            return True
        if k == "other":
            return False
        f = f.f_back
    work = getattr(_tls, "work", None)
    if work is not None:
        return work[1]
    return getattr(threading.current_thread(), "_freeact_from_ipython", False)


def _gate(argv, stdin_from_caller=False):
    """Ask for a process IPython code starts directly; raise if refused. A
    program given nothing to work on but input IPython writes to it (an
    interpreter reading its script from stdin) is refused without asking:
    what it would run cannot be shown."""
    __tracebackhide__ = True
    argv = [os.fsdecode(a) for a in argv]
    shown = shlex.join(argv)
    if stdin_from_caller:
        if all(a == "-" or a.startswith("-") for a in argv[1:]):
            raise PermissionError(
                errno.EPERM, "freeact: refused: IPython code tried to start a program that would read what to do "
                "from input IPython writes to it, which cannot be shown for approval", shown)
        shown += "  # IPython writes to its input"
    if not approve_shell(shown, argv=argv):
        _deny(shown)
        raise PermissionError(errno.EPERM, "freeact: the command was rejected and did not run", shown)


def _popen_argv(args, executable, shell):
    if isinstance(args, (str, bytes, os.PathLike)):
        argv = [args]
    else:
        argv = list(args)
    argv = [os.fsdecode(a) for a in argv]
    if shell:
        argv = ["/bin/sh", "-c"] + argv
    if executable is not None:
        argv[0] = os.fsdecode(executable)
    return argv


def _make_gate(originals):
    popen_init = originals["Popen.__init__"]
    system, spawn, spawnp = originals["os.system"], originals["os.posix_spawn"], originals["os.posix_spawnp"]
    fork, forkpty = originals["os.fork"], originals["os.forkpty"]

    def __init__(self, args, *rest, **kw):
        __tracebackhide__ = True
        if _from_ipython(sys._getframe(1)):
            executable = kw.get("executable", rest[1] if len(rest) > 1 else None)
            stdin = kw.get("stdin", rest[2] if len(rest) > 2 else None)
            shell = kw.get("shell", rest[7] if len(rest) > 7 else False)
            _gate(_popen_argv(args, executable, shell), stdin == subprocess.PIPE)
        popen_init(self, args, *rest, **kw)

    def os_system(command):
        __tracebackhide__ = True
        if _from_ipython(sys._getframe(1)):
            _gate(["/bin/sh", "-c", os.fsdecode(command)])
        return system(command)

    def os_posix_spawn(path, argv, env, *rest, **kw):
        __tracebackhide__ = True
        if _from_ipython(sys._getframe(1)):
            _gate([os.fsdecode(path)] + [os.fsdecode(a) for a in list(argv)[1:]])
        return spawn(path, argv, env, *rest, **kw)

    def os_posix_spawnp(path, argv, env, *rest, **kw):
        __tracebackhide__ = True
        if _from_ipython(sys._getframe(1)):
            _gate([os.fsdecode(path)] + [os.fsdecode(a) for a in list(argv)[1:]])
        return spawnp(path, argv, env, *rest, **kw)

    def pty_spawn(cls, argv, *a, **kw):
        # pexpect's way to start a program: its argv is known before the fork.
        __tracebackhide__ = True
        if not _from_ipython(sys._getframe(1)):
            return pty_spawn_orig.__func__(cls, argv, *a, **kw)
        _gate(argv)
        _tls.fork_ok = True
        try:
            return pty_spawn_orig.__func__(cls, argv, *a, **kw)
        finally:
            _tls.fork_ok = False

    pty_spawn_orig = originals.get("PtyProcess.spawn")

    def refuse_fork(name, orig):
        def f(*a, **kw):
            __tracebackhide__ = True
            if _from_ipython(sys._getframe(1)) and not getattr(_tls, "fork_ok", False):
                raise PermissionError(
                    errno.EPERM,
                    "freeact: IPython code tried to fork a process whose command cannot be shown for approval; refused",
                )
            return orig(*a, **kw)

        f.__name__ = name
        return f

    gates = {
        "Popen.__init__": __init__,
        "os.system": os_system,
        "os.posix_spawn": os_posix_spawn,
        "os.posix_spawnp": os_posix_spawnp,
        "os.fork": refuse_fork("fork", fork),
        "os.forkpty": refuse_fork("forkpty", forkpty),
    }
    if pty_spawn_orig is not None:
        gates["PtyProcess.spawn"] = classmethod(pty_spawn)
    return gates


def _make_thread_patches(orig_start, orig_submit):
    def start(self):
        # A thread belongs to the cell whose code started it; a helper thread
        # of IPython's (an event loop it keeps) serves whichever cell runs.
        self._freeact_from_ipython = _from_ipython(sys._getframe(1))
        if not self._freeact_from_ipython:
            self._freeact_origin = _origin()
        return orig_start(self)

    def run_as(origin, from_ipython, fn, *args, **kwargs):
        prev = getattr(_tls, "work", None)
        _tls.work = (origin, from_ipython)
        try:
            return fn(*args, **kwargs)
        finally:
            _tls.work = prev

    def submit(self, fn, /, *args, **kwargs):
        return orig_submit(self, run_as, _origin(), _from_ipython(sys._getframe(1)), fn, *args, **kwargs)

    return start, submit


# ---------------------------------------------------------------------------
# Installing and checking the hooks
# ---------------------------------------------------------------------------

_IP_METHODS = {
    "system": _ip_system,
    "system_piped": _ip_system,
    "system_raw": _ip_system_raw,
    "getoutput": _ip_getoutput,
}

_SHELL_CLASSES = (("IPython.core.interactiveshell", "InteractiveShell"), ("ipykernel.zmqshell", "ZMQInteractiveShell"))

# Original IPython functions that start processes, by defining file and
# name, and what replaces them where a module imported them.
_MODULE_REPLACEMENTS = {
    ("_process_posix.py", "system"): _system,
    ("_process_posix.py", "getoutput"): _getoutput,
    ("_process_common.py", "process_handler"): _process_handler,
}

for _f in (_spawn_shell, _spawn_script):
    _SPAWNERS.add(_f.__code__)
for _f in (_ip_system, _ip_system_raw, _ip_getoutput, _shebang, _ph_system, _ph_getoutput, _process_handler, _system, _getoutput):
    _f._freeact = True

_installed = {"slots": [], "gate": None, "threads": None}


def _ours(v):
    return getattr(getattr(v, "__func__", v), "_freeact", False)


def _replacement_for(v):
    fn = getattr(v, "__func__", v)
    code = getattr(fn, "__code__", None)
    if code is None or getattr(fn, "_freeact", False):
        return None
    return _MODULE_REPLACEMENTS.get((os.path.basename(code.co_filename), getattr(fn, "__name__", "")))


def _raw(owner, name):
    """owner.name without the descriptor protocol (a classmethod as stored)."""
    if isinstance(owner, type):
        for cls in owner.__mro__:
            if name in cls.__dict__:
                return cls.__dict__[name]
    return getattr(owner, name, None)


def _set(owner, name, value, slots):
    try:
        setattr(owner, name, value)
    except (AttributeError, TypeError):
        return
    slots.append((owner, name, value))


def _install(ip):
    """Put every replacement in place and record where (see _verify)."""
    import concurrent.futures
    import importlib

    slots = []
    # The shell: its classes (and the ones its modules now hold, after a
    # reload) and the instance.
    classes = list(type(ip).__mro__)
    for modname, clsname in _SHELL_CLASSES:
        cls = getattr(sys.modules.get(modname), clsname, None)
        if isinstance(cls, type) and cls not in classes:
            classes.append(cls)
    for cls in classes:
        for name, fn in _IP_METHODS.items():
            if name in cls.__dict__:
                _set(cls, name, fn, slots)
    for name, fn in _IP_METHODS.items():
        _set(ip, name, types.MethodType(fn, ip), slots)

    # IPython's process utilities, and every module that imported them.
    for modname in ("IPython.utils._process_posix", "IPython.utils._process_common", "IPython.utils.process",
                    "IPython.core.magics.script", "IPython.core.magics.osm", "IPython.core.magics.packaging"):
        try:
            importlib.import_module(modname)
        except Exception:
            pass
    ph = getattr(sys.modules.get("IPython.utils._process_posix"), "ProcessHandler", None)
    if ph is not None:
        for name, fn in (("system", _ph_system), ("getoutput", _ph_getoutput), ("getoutput_pexpect", _ph_getoutput)):
            if hasattr(ph, name):
                _set(ph, name, fn, slots)
    for modname, mod in list(sys.modules.items()):
        if not modname.startswith(("IPython.", "ipykernel.")) or mod is None:
            continue
        for name, v in list(getattr(mod, "__dict__", {}).items()):
            rep = _replacement_for(v) if callable(v) else None
            if rep is not None:
                _set(mod, name, rep, slots)
        for name in ("system", "getoutput", "process_handler"):
            v = mod.__dict__.get(name)
            if _ours(v):
                slots.append((mod, name, v))

    # The %%script family: the class, and methods already bound in registries.
    sm_cls = getattr(sys.modules.get("IPython.core.magics.script"), "ScriptMagics", None)
    if sm_cls is not None:
        orig = sm_cls.__dict__.get("shebang")
        if orig is not None and not _ours(orig):
            _shebang.parser = getattr(orig, "parser", getattr(_shebang, "parser", None))
            _shebang.__doc__ = orig.__doc__
        _set(sm_cls, "shebang", _shebang, slots)
    mm = ip.magics_manager
    for kind in ("cell", "line"):
        table = mm.magics.get(kind, {})
        for name, fn in list(table.items()):
            if getattr(getattr(fn, "__func__", None), "__name__", "") == "shebang" and not _ours(fn):
                table[name] = types.MethodType(_shebang, fn.__self__)
    for inst in list(dict.values(mm.registry)):
        table = getattr(inst, "magics", {}).get("cell", {})
        for name, fn in list(table.items()):
            if getattr(getattr(fn, "__func__", None), "__name__", "") == "shebang" and not _ours(fn):
                table[name] = types.MethodType(_shebang, inst)

    # The gate on process creation, and the origin of threads and pool work.
    targets = {
        "Popen.__init__": (subprocess.Popen, "__init__"),
        "os.system": (os, "system"),
        "os.posix_spawn": (os, "posix_spawn"),
        "os.posix_spawnp": (os, "posix_spawnp"),
        "os.fork": (os, "fork"),
        "os.forkpty": (os, "forkpty"),
    }
    try:
        import ptyprocess

        targets["PtyProcess.spawn"] = (ptyprocess.PtyProcess, "spawn")
    except Exception:
        pass
    gate = _installed["gate"]
    if gate is None or any(_raw(o, n) is not gate[0].get(k) for k, (o, n) in targets.items()):
        originals = {}
        for k, (o, n) in targets.items():
            cur = _raw(o, n)
            originals[k] = gate[1][k] if gate is not None and cur is gate[0].get(k) else cur
        gate = (_make_gate(originals), originals)
        _installed["gate"] = gate
    for k, (o, n) in targets.items():
        _set(o, n, gate[0][k], slots)
    threads = _installed["threads"]
    tpe = concurrent.futures.ThreadPoolExecutor
    if threads is None:
        threads = _make_thread_patches(threading.Thread.start, tpe.submit)
        _installed["threads"] = threads
    _set(threading.Thread, "start", threads[0], slots)
    _set(tpe, "submit", threads[1], slots)

    # A third trigger of the check before each cell, besides the events.
    kcls = next((c for c in type(ip.kernel).__mro__ if "do_execute" in c.__dict__), None)
    if kcls is not None:
        cur = kcls.__dict__["do_execute"]
        if not _ours(cur):
            _installed["do_execute"] = _make_do_execute(cur)
        if _installed.get("do_execute") is not None:
            _set(kcls, "do_execute", _installed["do_execute"], slots)

    _installed["slots"] = slots


def _make_do_execute(orig):
    import inspect

    if inspect.iscoroutinefunction(orig):

        async def do_execute(self, *args, **kwargs):
            _before_cell()
            return await orig(self, *args, **kwargs)

    else:

        def do_execute(self, *args, **kwargs):
            _before_cell()
            return orig(self, *args, **kwargs)

    do_execute._freeact = True
    return do_execute


def _verify():
    """Re-install the hooks when earlier code changed any of them (or
    reloaded a module that holds them); report that it happened."""
    ip = _state["ip"]
    if ip is None:
        return
    changed = any(_raw(o, n) is not v for o, n, v in _installed["slots"])
    if not changed:
        for key in (("IPython.utils._process_posix", "ProcessHandler", "system"),
                    ("IPython.core.magics.script", "ScriptMagics", "shebang"),
                    ("IPython.core.interactiveshell", "InteractiveShell", "system_piped")):
            obj = sys.modules.get(key[0])
            for part in key[1:]:
                obj = getattr(obj, part, None)
            if obj is not None and not _ours(obj):
                changed = True
                break
    if not changed:
        for cls in type(ip).__mro__:
            if any(name in cls.__dict__ and not _ours(cls.__dict__[name]) for name in _IP_METHODS):
                changed = True
                break
        changed = changed or any(not _ours(ip.__dict__.get(name)) for name in _IP_METHODS)
    for event in ("pre_execute", "pre_run_cell"):
        cbs = ip.events.callbacks.get(event, [])
        if _before_cell not in cbs:
            cbs.insert(0, _before_cell)
    if changed:
        _install(ip)
        print("freeact: the shell-approval hooks had been changed by earlier code and were restored", file=sys.stderr)


def _post_run_cell(*_args):
    ws = _state["workspace"]
    if not ws:
        return
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = None
    if cwd == ws:
        return
    try:
        os.chdir(ws)
    except OSError as e:
        print(f"freeact: could not return to the workspace {ws}: {e}", file=sys.stderr)
        return
    from IPython.display import publish_display_data

    publish_display_data({"application/x.freeact.cwd-reset+json": {"from": cwd, "to": ws}})


def _before_cell(*_args):
    ch = _state["channel"]
    if ch is not None:
        ch.capture_parent()
    _verify()


def _split_stream_messages(session, limit=1 << 20):
    """Send stdout/stderr text in messages of at most `limit` characters.
    ipykernel otherwise sends everything printed within its flush interval
    as one message, and a tight loop can make that hundreds of megabytes."""
    orig = session.send
    if getattr(orig, "_freeact", False):
        return

    def send(stream, msg_or_type, content=None, parent=None, *args, **kwargs):
        if isinstance(msg_or_type, dict):  # a prepared message (ipykernel >= 6.2x)
            is_stream = (msg_or_type.get("header") or {}).get("msg_type") == "stream"
            body = msg_or_type.get("content")
            parent = msg_or_type.get("parent_header")
        else:
            is_stream = msg_or_type == "stream"
            body = content
        text = body.get("text") if is_stream and isinstance(body, dict) else None
        if not isinstance(text, str) or len(text) <= limit:
            return orig(stream, msg_or_type, content, parent, *args, **kwargs)
        msg = None
        for i in range(0, len(text), limit):
            piece = session.msg("stream", dict(body, text=text[i : i + limit]), parent=parent)
            msg = orig(stream, piece, None, None, *args, **kwargs)
        return msg

    send._freeact = True
    session.send = send


class _InterruptHold:
    """Holds off the KeyboardInterrupt of a SIGINT while state is changed
    that must change whole (a batch of output handed on, the streams
    wrapped or given back), then raises it.

    A KeyboardInterrupt can be raised between any two bytecodes of the main
    thread: inside the code a batch is handed to (IPython's history tee,
    ipykernel's OutStream.write) it would lose the batch, and putting the
    batch back instead would repeat whatever part of it had arrived; inside
    threading's Event.set it can leave the Event's lock taken for good. While
    held, SIGINT's Python handler only notes the signal; on release the
    handler that was there is put back and the signal raised again, so that
    handler (KeyboardInterrupt, or the user's own) sees it after the change.
    Python runs signal handlers in the main thread only, so other threads
    hold nothing. The C module _signal is used: the signal module's wrappers
    cost ten times as much (enum conversions)."""

    def __init__(self):
        self.main = threading.main_thread().ident
        self.previous = None  # SIGINT's handler while held
        self.pending = False
        os.register_at_fork(after_in_child=self._after_fork)

    def _after_fork(self):
        # The forking thread is the child's main thread, and a hold of the
        # parent's main thread must not stay in the child.
        self.main = threading.get_ident()
        if self.previous is not None:
            _signal.signal(signal.SIGINT, self.previous)
        self.previous, self.pending = None, False

    def _note(self, signum, frame):
        self.pending = True

    def hold(self):
        """Hold interrupts off; returns whether this call holds them (False
        when already held, or not the main thread). A SIGINT already pending
        raises here, before anything changed."""
        if self.previous is not None or threading.get_ident() != self.main:
            return False
        previous = _signal.getsignal(signal.SIGINT)
        if previous is None:  # installed outside Python: cannot be put back
            return False
        _signal.signal(signal.SIGINT, self._note)
        self.previous = previous
        return True

    def release(self, held):
        """End a hold begun by hold() returning held, raising the interrupt
        that came meanwhile."""
        if not held:
            return
        try:
            _signal.signal(signal.SIGINT, self.previous)
        finally:
            pending, self.pending, self.previous = self.pending, False, None
        if pending:
            _signal.raise_signal(signal.SIGINT)


_interrupts = _InterruptHold()


class _OutputBatch:
    """Gathers what a cell prints to stdout and stderr and hands it on in
    batches.

    Each write to an ipykernel stream costs several microseconds: IPython's
    output capture for its history (``InteractiveShell._tee``, which replaces
    the streams' write while a cell runs), then ipykernel's OutStream.write
    (the parent header, a frozenset of it, a lock, a flush scheduled on the IO
    thread). print() writes twice, so a loop printing 100,000 lines spent over
    a second there. While a cell runs (pre_run_cell to post_run_cell) the
    streams' write is replaced, on the instances as IPython does it, by one
    that appends to a list; the batch goes to the write it replaced (so
    IPython's history still gets all of it), in the context of the code that
    wrote it (its parent header), when it holds `limit` characters, when the
    other stream is written to (so ipykernel gets the writes in their order),
    when anything flushes a stream (ipykernel does before every display,
    input request and reply; the host requests here do too), at the end of
    the cell, and at most `interval` seconds after its first write (a
    background thread), so output still streams while the code runs. A
    forked child writes straight through. ipykernel's own flush interval is
    shortened from 0.2 s to 0.02 s meanwhile, so that a big output is on its
    way to the host while the code is still printing it. An interrupt waits
    while a batch is begun or handed on (_InterruptHold), so what was written
    before it arrives once, and a write it stops is not written at all, or
    whole."""

    def __init__(self, interval=0.02, limit=1 << 16):
        self.interval, self.limit = interval, limit
        self.lock = threading.Lock()
        self.parts = []
        self.size = 0
        self.target = None  # the write the parts go to
        self.context = None  # the writer's context when the batch began
        self.due = threading.Event()
        self.thread = None
        self.forked = False
        self.depth = 0  # cells running (run_cell can nest)
        self.saved = []  # (stream, its instance attributes before begin)
        os.register_at_fork(after_in_child=self._after_fork)

    def _after_fork(self):
        self.forked = True
        self.lock = threading.Lock()
        self.parts, self.size, self.target = [], 0, None

    def begin(self):
        """Batch the streams' writes until end()."""
        held = _interrupts.hold()
        try:
            self.depth += 1
            if self.depth > 1 or self.forked:
                return
            try:
                from ipykernel.iostream import OutStream
            except ImportError:
                return
            for stream in (sys.stdout, sys.stderr):
                if isinstance(stream, OutStream):
                    self.saved.append((stream, {n: vars(stream)[n] for n in ("write", "flush", "flush_interval") if n in vars(stream)}))
                    self._wrap(stream)
                    stream.flush_interval = 0.02
        finally:
            _interrupts.release(held)

    def end(self):
        """Deliver what is gathered and give the streams their writes back."""
        held = _interrupts.hold()
        try:
            self.depth = max(0, self.depth - 1)
            if self.depth:
                return
            try:
                self.flush()
            finally:
                for stream, attrs in self.saved:
                    for name in ("write", "flush", "flush_interval"):
                        if name in attrs:
                            setattr(stream, name, attrs[name])
                        else:
                            vars(stream).pop(name, None)
                self.saved = []
        finally:
            _interrupts.release(held)

    def _wrap(self, stream):
        write, flush = stream.write, stream.flush
        batch = self

        def batched_write(string):
            if type(string) is not str or batch.forked:
                return write(string)
            with batch.lock:
                if batch.target is not write:
                    batch._start_locked(write, string)
                else:
                    batch.parts.append(string)
                    batch.size += len(string)
                    if batch.size >= batch.limit:
                        batch._send_locked()
            return len(string)

        def batched_flush():
            batch.flush()
            # ipykernel's flush queues the send on its IO thread, then wakes
            # the thread: an interrupt between the two would leave the
            # output queued until something else wakes it.
            held = _interrupts.hold()
            try:
                flush()
            finally:
                _interrupts.release(held)

        stream.write, stream.flush = batched_write, batched_flush

    def _start_locked(self, target, string):
        """Begin a batch for target with string, after handing on the other
        stream's batch; an interrupt waits until the batch is armed."""
        held = _interrupts.hold()
        try:
            if self.parts:
                self._send_locked()
            self.target, self.context = target, contextvars.copy_context()
            self.parts.append(string)
            self.size = len(string)
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="freeact-output", daemon=True)
                self.thread.start()
            self.due.set()
        finally:
            _interrupts.release(held)

    def _run(self):
        while True:
            self.due.wait()
            time.sleep(self.interval)
            self.due.clear()
            try:
                self.flush()
            except Exception:  # a closed stream: nothing left to write to
                pass

    def flush(self):
        with self.lock:
            if self.parts:
                self._send_locked()

    def _send_locked(self):
        """Hand the batch on, whole: an interrupt waits until it is."""
        held = _interrupts.hold()
        try:
            text = "".join(self.parts)
            target, context = self.target, self.context
            self.parts, self.size, self.target, self.context = [], 0, None, None
            context.run(target, text)
        finally:
            _interrupts.release(held)


_output = _OutputBatch()


def _begin_output(*_args):
    _output.begin()


def _late_interrupt(signum, frame):
    """SIGINT's handler from the end of a cell's code (post_run_cell) to
    the end of ipykernel's execute request: a SIGINT then, with nothing
    left to interrupt, is dropped. Raised, the KeyboardInterrupt would land
    in ipykernel's own work after the cell (the flush of the cell's output,
    the reply): inside its flush it left the output queued and the reply
    unsent, so the host saw the kernel hang. ipykernel sets its handler
    again before each request (pre_handler_hook) and puts the one from
    before back after it."""


def _end_output(*_args):
    if _output.depth <= 1 and threading.get_ident() == _interrupts.main:
        _signal.signal(signal.SIGINT, _late_interrupt)
    _output.end()


def configure(workspace=None, timeout=None, env=None, python_path=None):
    """Set the workspace the cwd returns to after each cell, the default
    deadline (seconds) of host requests, environment variables and sys.path
    entries."""
    for key, value in (env or {}).items():
        os.environ[key] = value
    for entry in reversed(python_path or []):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    if workspace:
        _state["workspace"] = os.path.abspath(workspace)
        os.chdir(_state["workspace"])
    elif _state["workspace"] is None:
        _state["workspace"] = os.getcwd()
    if timeout:
        _state["timeout"] = float(timeout)


def load_ipython_extension(ip):
    if _state["channel"] is not None:
        return
    kernel = ip.kernel
    _state["ip"] = ip
    _state["channel"] = _Channel(kernel)
    _state["channel"].capture_parent()
    # atexit runs handlers last-in first-out: this one before ipykernel's
    # socket cleanup, which was registered when the kernel started.
    atexit.register(_state["channel"].stop)

    # User input goes through the same channel (plain prompts, no marker).
    # ipykernel installs kernel.raw_input/getpass as builtins before each
    # cell, so replacing them on the instance covers input() and getpass().
    kernel.raw_input = _raw_input
    kernel.getpass = _getpass
    builtins.input = _raw_input
    import getpass as _gp

    _gp.getpass = _getpass

    _install(ip)
    _split_stream_messages(kernel.session)

    ip.events.register("pre_execute", _before_cell)
    ip.events.register("pre_run_cell", _before_cell)
    ip.events.register("post_run_cell", _post_run_cell)
    ip.events.register("pre_run_cell", _begin_output)
    ip.events.register("post_run_cell", _end_output)

    runtime = types.ModuleType("freeact_runtime")
    runtime.__doc__ = "Calls into the freeact host from code running in the kernel."
    for obj in (call_tool, ToolCallError, ToolRejected, ToolTimeout, ToolFailed, CallbackTimeout, CellEnded):
        setattr(runtime, obj.__name__, obj)
    sys.modules["freeact_runtime"] = runtime
