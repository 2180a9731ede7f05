"""File operations of a remote freeact workspace, run in the kernel.

The host (kernel/files.go) installs this module in a kernel on a server
without a Contents API (and for what the Contents API cannot do) and calls
`call(request)` as a user expression of a silent execution; the result is
the reply as JSON in base64, which IPython shows as a plain string literal.

Paths come absolute and clean, with the links in them resolved already
(`resolve`): folders are opened one component at a time without following
links, and files relative to their folder, so a link swapped in after the
check cannot redirect a read or a write. Writes go to a temporary file in
the same folder that is synced and renamed over the target."""

import base64
import errno
import hashlib
import json
import os
import secrets
import stat

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR = os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC
_NOFOLLOW = os.O_NOFOLLOW


class _Fail(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


def _kind(mode):
    for test, name in (
        (stat.S_ISDIR, "directory"),
        (stat.S_ISLNK, "symbolic link"),
        (stat.S_ISFIFO, "named pipe"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
    ):
        if test(mode):
            return name
    return "irregular file"


def _open_dir(path, create=False):
    """Open the folder path without following a link at any component."""
    fd = os.open("/", _DIR)
    done = "/"
    try:
        for name in path.split("/"):
            if not name:
                continue
            try:
                nfd = os.open(name, _DIR | _NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise _Fail("not_exist", os.path.join(done, name) + " does not exist")
                try:
                    os.mkdir(name, 0o755, dir_fd=fd)
                except FileExistsError:
                    pass
                nfd = os.open(name, _DIR | _NOFOLLOW, dir_fd=fd)
            except OSError as e:
                try:
                    st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                except OSError:
                    st = None
                if st is not None and stat.S_ISLNK(st.st_mode):
                    raise _Fail("link_swapped", os.path.join(done, name) + " is a symbolic link")
                if e.errno == errno.ENOTDIR:
                    raise _Fail("not_exist", os.path.join(done, name) + " is not a folder")
                raise
            os.close(fd)
            fd = nfd
            done = os.path.join(done, name)
        return fd
    except BaseException:
        os.close(fd)
        raise


def _split(path):
    parent, base = os.path.split(path)
    if not base:
        raise _Fail("other", path + " names a folder, not a file")
    return parent, base


def _lstat(dfd, base):
    try:
        return os.stat(base, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _info(workdir=None):
    cwd = os.getcwd()
    root = cwd
    if workdir:
        root = os.path.abspath(os.path.expanduser(workdir))
        os.makedirs(root, exist_ok=True)
    return {"cwd": cwd, "home": os.path.expanduser("~"), "root": os.path.realpath(root)}


def _resolve(path):
    return {"path": os.path.realpath(path)}


def _stat(path):
    parent, base = os.path.split(path)
    if not base:
        return {"mode": os.stat(path).st_mode, "size": 0}
    dfd = _open_dir(parent)
    try:
        st = _lstat(dfd, base)
        if st is None:
            raise _Fail("not_exist", path + " does not exist")
        return {"mode": st.st_mode, "size": st.st_size}
    finally:
        os.close(dfd)


def _read(path, offset=0, size=1 << 20):
    parent, base = _split(path)
    dfd = _open_dir(parent)
    try:
        try:
            fd = os.open(base, os.O_RDONLY | _NOFOLLOW | os.O_NONBLOCK | _CLOEXEC, dir_fd=dfd)
        except FileNotFoundError:
            raise _Fail("not_exist", path + " does not exist")
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise _Fail("link_swapped", path + " is a symbolic link")
            raise
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise _Fail("not_regular", _kind(st.st_mode))
            data = os.pread(fd, size, offset)
        finally:
            os.close(fd)
    finally:
        os.close(dfd)
    return {"data": base64.b64encode(data).decode("ascii"), "size": st.st_size}


def _write(path, data="", tmp=None, last=True):
    """Write a chunk of a file: the first call (no tmp) checks the target and
    creates the temporary file, later ones append to it, the last one
    renames it over the target."""
    parent, base = _split(path)
    dfd = _open_dir(parent, create=tmp is None)
    created = False
    try:
        if tmp is None:
            st = _lstat(dfd, base)
            if st is not None and stat.S_ISLNK(st.st_mode):
                raise _Fail("link_swapped", path + " is a symbolic link")
            if st is not None and stat.S_ISDIR(st.st_mode):
                raise _Fail("is_dir", path + " is a directory")
            if st is not None and not stat.S_ISREG(st.st_mode):
                raise _Fail("not_regular", _kind(st.st_mode))
            created = st is None
            for _ in range(100):
                tmp = ".%s.%s.tmp" % (base, secrets.token_hex(4))
                try:
                    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o644, dir_fd=dfd)
                    break
                except FileExistsError:
                    continue
            else:
                raise _Fail("other", "no free temporary file name in " + parent)
            if st is not None:
                # A replaced file keeps its permissions exactly.
                os.fchmod(fd, stat.S_IMODE(st.st_mode))
        else:
            fd = os.open(tmp, os.O_WRONLY | os.O_APPEND | _NOFOLLOW | _CLOEXEC, dir_fd=dfd)
        try:
            try:
                view = memoryview(base64.b64decode(data))
                while view:
                    view = view[os.write(fd, view) :]
                if last:
                    os.fsync(fd)
            finally:
                os.close(fd)
            if last:
                st = _lstat(dfd, base)
                if st is not None and stat.S_ISLNK(st.st_mode):
                    raise _Fail("link_swapped", path + " is a symbolic link")
                os.replace(tmp, base, src_dir_fd=dfd, dst_dir_fd=dfd)
                try:
                    os.fsync(dfd)
                except OSError:
                    pass
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=dfd)
            except OSError:
                pass
            raise
    finally:
        os.close(dfd)
    return {"tmp": None if last else tmp, "created": created}


def _abort(path, tmp):
    parent, _ = _split(path)
    dfd = _open_dir(parent)
    try:
        os.unlink(tmp, dir_fd=dfd)
    except FileNotFoundError:
        pass
    finally:
        os.close(dfd)
    return {}


def _mkdirs(path):
    os.close(_open_dir(path, create=True))
    return {}


def _tree(path):
    """SHA-256 of every regular file below path (links not followed)."""
    files = {}
    if not os.path.isdir(path) or os.path.islink(path):
        return {"files": files}
    for top, dirs, names in os.walk(path):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(top, d))]
        for name in names:
            p = os.path.join(top, name)
            try:
                if not stat.S_ISREG(os.lstat(p).st_mode):
                    continue
                with open(p, "rb") as f:
                    files[os.path.relpath(p, path)] = hashlib.sha256(f.read()).hexdigest()
            except OSError:
                continue
    return {"files": files}


def _put(files):
    """Write several small files (path: base64 data), each atomically."""
    for path, data in files.items():
        _write(path, data)
    return {}


_OPS = {
    "info": _info,
    "resolve": _resolve,
    "stat": _stat,
    "read": _read,
    "write": _write,
    "abort": _abort,
    "mkdirs": _mkdirs,
    "tree": _tree,
    "put": _put,
}


def call(request):
    req = json.loads(request)
    op = _OPS[req.pop("op")]
    try:
        reply = {"ok": True, "result": op(**req)}
    except _Fail as e:
        reply = {"ok": False, "kind": e.kind, "message": str(e)}
    except FileNotFoundError as e:
        reply = {"ok": False, "kind": "not_exist", "message": str(e)}
    except OSError as e:
        reply = {"ok": False, "kind": "other", "message": str(e)}
    return base64.b64encode(json.dumps(reply).encode()).decode("ascii")
