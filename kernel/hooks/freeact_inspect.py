"""Reads the kernel's user namespace for freeact's variable inspector.

The Go side evaluates ``variables()`` and ``describe(name)`` as user
expressions of a silent execution: no cell runs, nothing enters the
history, the execution count stays, and no approval is asked. Both return
an object whose repr is JSON, so the reply's text/plain is the answer.

Everything here is bounded whatever the namespace holds: sizes and shapes
come from attributes that cost nothing (``nbytes``, ``shape``), never from
walking the data; short reprs are cut from slices (a string's first
characters, an array's edge items, a frame's first rows), never made whole
and then cut; and the reprs of one listing share a time budget, after which
the remaining variables are listed without one.
"""

import json
import reprlib
import sys
import time
import types

# Reprs of one listing stop after this much processor time or, for reprs
# that wait (a lazy object fetching its data), this much time on the clock.
BUDGET_CPU = 0.02
BUDGET_WALL = 0.04
# Variables listed at most; a namespace with more says how many there are.
MAX_VARIABLES = 5000
SHORT = 60  # characters of a listed repr (a line of the inspector)
LONG = 2000  # characters of a described repr

_SIZED = (list, tuple, dict, set, frozenset, str, bytes, bytearray, range)
_HIDDEN_TYPES = (types.ModuleType,)
_CODE_TYPES = (types.FunctionType, types.BuiltinFunctionType, type)
# Types whose reprlib repr is short and cheap already.
_PLAIN = {int, float, complex, bool, type(None)}


class _JSON:
    """A value whose repr is its JSON, for the reply's text/plain."""

    __slots__ = ("text",)

    def __init__(self, value):
        self.text = json.dumps(value, ensure_ascii=False, default=str)

    def __repr__(self):
        return self.text


def _class_has(obj, name, _known={}):
    """Whether obj's class defines name: reading it then runs no
    __getattr__ of the instance (which lazy objects use to fetch data)."""
    t = type(obj)
    key = (t, name)
    found = _known.get(key)
    if found is None:
        found = _known[key] = any(name in vars(c) for c in t.__mro__)
    return found


def _type_name(obj):
    t = type(obj)
    mod = getattr(t, "__module__", "") or ""
    if mod in ("builtins", "__main__"):
        return t.__qualname__
    return mod.split(".")[0] + "." + t.__qualname__


def _package(obj, _known={}):
    """The top-level package of obj's class ("numpy", "builtins", ...)."""
    t = type(obj)
    pkg = _known.get(t)
    if pkg is None:
        pkg = _known[t] = (getattr(t, "__module__", "") or "").split(".")[0]
    return pkg


def _shape(obj):
    if not _class_has(obj, "shape"):
        return None
    try:
        s = obj.shape
        if isinstance(s, tuple) and all(isinstance(n, int) or hasattr(n, "__index__") for n in s):
            return [int(n) for n in s]
    except Exception:
        pass
    return None


def _length(obj):
    if isinstance(obj, _SIZED) or type(obj).__module__ == "collections":
        try:
            return len(obj)
        except Exception:
            return None
    return None


def _bytes(obj):
    """Memory size in bytes: the data of arrays and frames, a shallow size
    for everything else (a list's own array of references, not its items)."""
    pkg = _package(obj)
    try:
        if pkg == "pandas" and _class_has(obj, "memory_usage"):
            return _frame_bytes(obj)
        if pkg == "torch" and hasattr(obj, "element_size") and hasattr(obj, "nelement"):
            return int(obj.element_size() * obj.nelement())
        if _class_has(obj, "nbytes"):
            n = obj.nbytes
            if isinstance(n, int) or hasattr(n, "__index__"):
                return int(n)
        return int(sys.getsizeof(obj))
    except Exception:
        return -1


def _frame_bytes(obj):
    """A DataFrame's or Series' size as memory_usage(deep=False) tells it,
    from the dtypes when they have a fixed item size (about 20 times
    faster than memory_usage, which builds a Series)."""
    dtypes = obj.dtypes if _class_has(obj, "columns") else [obj.dtype]
    sizes = [getattr(dt, "itemsize", None) for dt in dtypes]
    if all(isinstance(n, int) for n in sizes):
        return sum(sizes) * len(obj) + int(obj.index.nbytes)
    m = obj.memory_usage(index=True, deep=False)
    return int(m.sum()) if hasattr(m, "sum") else int(m)


def _cut(s, n):
    s = " ".join(s.split()) if "\n" in s else s
    return s if len(s) <= n else s[: n - 1] + "…"


class _Short(reprlib.Repr):
    """reprlib with bounded reprs for the big types reprlib does not know."""

    def __init__(self, width):
        super().__init__()
        self.maxlevel = 2
        self.maxlist = self.maxtuple = self.maxset = self.maxfrozenset = self.maxdeque = 6
        self.maxdict = 5
        self.maxstring = min(width, 60)
        self.maxother = width
        self.width = width

    def repr1(self, x, level):
        if type(x) in _PLAIN:
            return super().repr1(x, level)
        special = _special_repr(x, self.width)
        if special is not None:
            return special
        return super().repr1(x, level)

    def repr_bytes(self, x, level):
        return _cut(repr(x[: self.maxstring]), self.maxstring)

    repr_bytearray = repr_bytes


def _special_repr(x, width):
    """The repr of arrays, frames and long strings, made from a slice; None
    for anything else."""
    pkg = _package(x)
    if isinstance(x, (str, bytes, bytearray)) and len(x) > width:
        return repr(x[:width])[: width - 1] + "…"
    if pkg == "numpy" and _class_has(x, "shape") and _class_has(x, "dtype"):
        np = sys.modules.get("numpy")
        if np is not None and isinstance(x, np.ndarray):
            edge = 3 if width > SHORT else 2
            if x.ndim > 2:
                s = np.array2string(x, threshold=2 * edge, edgeitems=edge, max_line_width=10**6, separator=", ")
            else:
                s = _array_repr(x, edge)
            return _cut(s, width)
    if pkg == "pandas":
        pd = sys.modules.get("pandas")
        if pd is not None and isinstance(x, pd.DataFrame):
            cols = [str(c) for c in x.columns[:12]]
            more = ", …" if x.shape[1] > 12 else ""
            return _cut("columns: " + ", ".join(cols) + more, width)
        if pd is not None and isinstance(x, pd.Series):
            head = _REPRS[SHORT].repr(x.iloc[:6].tolist())
            return _cut(f"{x.dtype}: {head}", width)
    return None


_REPRS = {SHORT: _Short(SHORT), LONG: _Short(LONG)}


def _array_repr(x, edge):
    """An array of one or two dimensions as nested lists of its edge items
    (numpy's own array2string costs about 100 µs even for a few items)."""
    n = x.shape[0]
    rows = list(range(n)) if n <= 2 * edge else [*range(edge), None, *range(n - edge, n)]
    if x.ndim == 1:
        item = _ITEM.get(x.dtype.kind, _other_item)
        parts = ["..." if i is None else item(x[i]) for i in rows]
    else:
        parts = ["..." if i is None else _array_repr(x[i], edge) for i in rows]
    return "[" + ", ".join(parts) + "]"


def _other_item(v):
    return _REPRS[SHORT].repr(v.item() if hasattr(v, "item") else v)


_ITEM = {
    "f": lambda v: format(float(v), ".8g"),  # numpy prints 8 digits too
    "i": lambda v: str(int(v)),
    "u": lambda v: str(int(v)),
    "b": lambda v: str(bool(v)),
    "c": str,
}




def _short(x, width):
    try:
        special = _special_repr(x, width)
        if special is not None:
            return special
        return _cut(_REPRS[width].repr(x), width)
    except Exception as e:  # a broken __repr__ in an array or a frame
        return f"<repr failed: {type(e).__name__}>"


def _user_names(ns, hidden):
    for name, value in ns.items():
        if name.startswith("_") or name in hidden:
            continue
        if isinstance(value, _HIDDEN_TYPES):
            continue
        # Functions and classes a cell imported are tools, not data; the
        # ones defined in the kernel are listed.
        if isinstance(value, _CODE_TYPES) and getattr(value, "__module__", None) != "__main__":
            continue
        yield name, value


def _entry(name, value):
    e = {"name": name, "type": _type_name(value), "bytes": _bytes(value)}
    shape = _shape(value)
    if shape:  # not for scalars, whose shape is ()
        e["shape"] = shape
    n = _length(value)
    if n is not None:
        e["len"] = n
    return e


def _namespace():
    from IPython import get_ipython

    ip = get_ipython()
    return ip.user_ns, getattr(ip, "user_ns_hidden", {})


def variables():
    """The user variables: name, type, shape or length, size and a short
    repr, sorted by name."""
    ns, hidden = _namespace()
    items = sorted(_user_names(ns, hidden), key=lambda kv: kv[0].lower())
    total = len(items)
    items = items[:MAX_VARIABLES]
    out = [_entry(name, value) for name, value in items]
    cpu_deadline = time.thread_time() + BUDGET_CPU
    deadline = time.perf_counter() + BUDGET_WALL
    cut = False
    for e, (_, value) in zip(out, items):
        if time.thread_time() > cpu_deadline or time.perf_counter() > deadline:
            cut = True
            break
        e["repr"] = _short(value, SHORT)
    return _JSON({"variables": out, "total": total, "repr_cut": cut})


def describe(name):
    """One variable in more detail: for a DataFrame its columns with dtypes
    and first rows, for an array its dtype, for anything else a longer
    repr. None when there is no such variable."""
    ns, _ = _namespace()
    if name not in ns:
        return _JSON(None)
    value = ns[name]
    e = _entry(name, value)
    e["repr"] = _short(value, LONG)
    pkg = _package(value)
    try:
        if pkg == "pandas":
            pd = sys.modules.get("pandas")
            if isinstance(value, pd.DataFrame):
                e["columns"] = [{"name": str(c), "dtype": str(t)} for c, t in value.dtypes.iloc[:50].items()]
                e["head"] = value.head(5).to_string(max_cols=12, max_colwidth=40, show_dimensions=False)
            elif isinstance(value, pd.Series):
                e["dtype"] = str(value.dtype)
                e["head"] = value.head(5).to_string(max_rows=5)
        elif _class_has(value, "dtype"):
            e["dtype"] = str(value.dtype)
    except Exception as err:
        e["head"] = f"<could not show the first rows: {type(err).__name__}: {err}>"
    return _JSON(e)
