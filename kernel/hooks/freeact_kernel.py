"""In-kernel side of freeact: asks the host (the Go process driving this kernel)
before shell commands run, forwards programmatic tool calls and user input to
it, and keeps the working directory pinned to the workspace.

All talk with the host goes over the Jupyter stdin channel. A request is an
``input_request`` whose prompt is MARKER followed by JSON; the host answers
with an ``input_reply`` whose value is JSON. One background thread owns the
stdin socket (zmq sockets are not thread-safe) and matches replies to requests
by the request's msg_id, so callers on any thread can wait at the same time.

The Go side loads this source as the module ``freeact_kernel`` and then as an
IPython extension; ``freeact_runtime`` is the small module generated tool APIs
import (``call_tool``).
"""

import atexit
import builtins
import collections
import json
import os
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
        self.ident = None
        self.parent = {}
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
        """Remember where the current execute_request came from, so requests
        from threads and from after the cell still reach the same client."""
        k = self.kernel
        try:
            ident = k._parent_ident["shell"]
        except Exception:
            ident = None
        if ident:
            self.ident = ident
            self.parent = k.get_parent("shell") or {}

    def request(self, prompt, password=False, timeout=None):
        __tracebackhide__ = True
        if timeout is None:
            timeout = _state["timeout"]
        slot = _Slot()
        with self.lock:
            self.outbox.append((prompt, password, slot))
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
                        self.outbox.remove((prompt, password, slot))
                    except ValueError:
                        pass

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
                        prompt, password, slot = self.outbox.popleft()
                        content = {"prompt": prompt, "password": password}
                        msg = session.send(
                            self.socket, "input_request", content, self.parent, ident=self.ident
                        )
                        slot.msg_id = msg["header"]["msg_id"]
                        self.pending[slot.msg_id] = slot
                while True:
                    try:
                        _, reply = session.recv(self.socket, zmq.NOBLOCK)
                    except zmq.ZMQError:
                        break
                    if reply is None:
                        break
                    pid = (reply.get("parent_header") or {}).get("msg_id")
                    with self.lock:
                        slot = self.pending.pop(pid, None)
                    if slot is not None:
                        slot.value = (reply.get("content") or {}).get("value", "")
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
    for s in (sys.stdout, sys.stderr):
        try:
            s.flush()
        except Exception:
            pass


def approve_shell(command, script=None):
    """Ask the host whether a shell command may run. True means yes."""
    __tracebackhide__ = True
    _flush()
    fields = {"command": command}
    if script is not None:
        fields["interpreter"] = script
    reply = _call("shell", **fields)
    if reply.get("ok"):
        return bool(reply.get("result"))
    err = reply.get("error") or {}
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
    raise ToolFailed(f"{server}.{tool}: {msg}")


def _raw_input(prompt=""):
    __tracebackhide__ = True
    _flush()
    value = _state["channel"].request(str(prompt), False)
    if value == "\x04":
        raise EOFError
    return value


def _getpass(prompt="Password: ", stream=None, **_ignored):
    __tracebackhide__ = True
    _flush()
    value = _state["channel"].request(str(prompt), True)
    if value == "\x04":
        raise EOFError
    return value


class _NoExpand:
    """Makes the original IPython shell functions skip their own variable
    expansion, because the wrappers below already expanded the command."""

    def __init__(self, ip):
        self.ip = ip

    def __enter__(self):
        self.ip.var_expand = lambda cmd, depth=0, formatter=None: cmd

    def __exit__(self, *exc):
        try:
            del self.ip.var_expand
        except AttributeError:
            pass


def _wrap_system(ip, name):
    orig = getattr(ip, name)

    def wrapper(cmd, *args, **kwargs):
        __tracebackhide__ = True
        expanded = ip.var_expand(cmd, depth=1)
        if not approve_shell(expanded):
            _deny(expanded)
            ip.user_ns["_exit_code"] = 1
            return None
        with _NoExpand(ip):
            return orig(expanded, *args, **kwargs)

    wrapper.__name__ = name
    wrapper.__wrapped__ = orig
    return wrapper


def _wrap_getoutput(ip):
    orig = ip.getoutput

    def getoutput(cmd, split=True, depth=0):
        __tracebackhide__ = True
        expanded = ip.var_expand(cmd, depth=depth + 1)
        if not approve_shell(expanded):
            _deny(expanded)
            from IPython.utils.text import LSString, SList

            return SList([]) if split else LSString("")
        with _NoExpand(ip):
            return orig(expanded, split=split, depth=depth)

    getoutput.__wrapped__ = orig
    return getoutput


# Cell magics that hand their cell to another program. IPython loads some
# of them lazily, so instead of replacing the registered functions (which a
# lazy load would overwrite) the hook sits in run_cell_magic, through which
# every %%magic cell runs.
_SCRIPT_MAGICS = {"script", "sh", "bash", "zsh", "csh", "ksh", "fish", "perl", "ruby",
                  "python", "python2", "python3", "pypy", "node"}


def _wrap_run_cell_magic(ip):
    orig = ip.run_cell_magic

    def run_cell_magic(magic_name, line, cell):
        __tracebackhide__ = True
        if magic_name in _script_magic_names(ip):
            interpreter = magic_name if magic_name != "script" else (line.split() or ["script"])[0]
            if not approve_shell(cell, script=interpreter):
                _deny(f"%%{magic_name} {line}".rstrip() + " cell")
                return None
        return orig(magic_name, line, cell)

    run_cell_magic.__wrapped__ = orig
    return run_cell_magic


def _script_magic_names(ip):
    names = set(_SCRIPT_MAGICS)
    sm = ip.magics_manager.registry.get("ScriptMagics")
    names.update(getattr(sm, "script_magics", None) or [])
    return names


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


def _pre_execute(*_args):
    ch = _state["channel"]
    if ch is not None:
        ch.capture_parent()


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

    ip.system_piped = _wrap_system(ip, "system_piped")
    ip.system_raw = _wrap_system(ip, "system_raw")
    ip.system = ip.system_piped
    ip.getoutput = _wrap_getoutput(ip)
    ip.run_cell_magic = _wrap_run_cell_magic(ip)

    _split_stream_messages(kernel.session)

    ip.events.register("pre_execute", _pre_execute)
    ip.events.register("post_run_cell", _post_run_cell)

    runtime = types.ModuleType("freeact_runtime")
    runtime.__doc__ = "Calls into the freeact host from code running in the kernel."
    for obj in (call_tool, ToolCallError, ToolRejected, ToolTimeout, ToolFailed, CallbackTimeout):
        setattr(runtime, obj.__name__, obj)
    sys.modules["freeact_runtime"] = runtime
