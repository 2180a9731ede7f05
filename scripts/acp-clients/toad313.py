"""Runs Toad (batrachian-toad, written for Python 3.14) on Python 3.13.

Toad's modules use annotations Python 3.14 evaluates lazily (PEP 649);
3.13 evaluates them at definition time, so they are compiled here as
`from __future__ import annotations` would (PEP 563, strings). Its path
search runs on concurrent.futures.InterpreterPoolExecutor (3.14), a
ThreadPoolExecutor that runs each worker in a subinterpreter; on 3.13 a
plain ThreadPoolExecutor does the same work in threads. Its JSON-RPC
layer reads the types of its methods' parameters, which 3.14 evaluates
in the method's module: inspect.signature(eval_str=True) does that with
the strings. Nothing else of Toad is changed.
"""

import __future__
import concurrent.futures
import importlib.abc
import importlib.machinery
import sys


class _LazyAnnotations(importlib.machinery.SourceFileLoader):
    # Always from the source: a cached .pyc was compiled without the flag.
    def get_code(self, fullname):
        return compile(self.get_data(self.path), self.path, "exec", flags=__future__.annotations.compiler_flag, dont_inherit=True)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "toad" and not name.startswith("toad."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            spec.loader = _LazyAnnotations(spec.loader.name, spec.loader.path)
        return spec


sys.meta_path.insert(0, _Finder())
if not hasattr(concurrent.futures, "InterpreterPoolExecutor"):
    concurrent.futures.InterpreterPoolExecutor = concurrent.futures.ThreadPoolExecutor

import functools  # noqa: E402
import inspect  # noqa: E402

import toad.jsonrpc  # noqa: E402

toad.jsonrpc.signature = functools.partial(inspect.signature, eval_str=True)

from toad.cli import main  # noqa: E402

sys.exit(main())
