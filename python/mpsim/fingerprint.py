"""What a stored run's rows depend on besides its configuration: the engine and the extractor's code.

A run's rows are ``extractor(run(config))``. The sweep store keys a run by a hash of the configuration,
of :func:`engine_id` (derived from the core's and the bindings' sources when the core is built, see
``crates/mpsim-core/build.rs``) and of :func:`code_fingerprint` of the extractor, so that a rebuilt
engine or an edited extractor runs again instead of showing old numbers.

The extractor's fingerprint hashes its source and, transitively, the source of every function or class it
names that is defined in the ``mpsim`` package or in the extractor's own module (helpers it calls, the
functions of a module it reaches through an attribute such as ``base.experiment_metrics``), the values its
closure captures, and the source of :mod:`mpsim.engine`, which turns the core's output into the
:class:`~mpsim.engine.Results` every extractor reads. A change anywhere else (numpy, pyarrow) is not seen:
those do not decide what a row holds.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import marshal
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

from mpsim import _core

__all__ = ["code_fingerprint", "engine_id"]


def engine_id() -> str:
    """The identity of the compiled engine: a hash of the sources it was built from."""
    return _core.engine_id()


def _names(code: types.CodeType) -> Iterator[str]:
    """Every global or attribute name a code object and the code nested in it (lambdas,
    comprehensions, inner functions) refer to."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _ours(obj: Any, home: str) -> bool:
    module = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", None) or ""
    return module == home or module == "mpsim" or module.startswith("mpsim.")


def _source(obj: Any) -> bytes:
    try:
        return inspect.getsource(obj).encode()
    except (OSError, TypeError):
        code = getattr(obj, "__code__", None)
        return marshal.dumps(code) if code is not None else repr(obj).encode()


def _value_text(value: Any) -> str:
    """A captured value as text: plain data by value, anything else by its type (its code is visited)."""
    if value is None or isinstance(value, bool | int | float | str | bytes):
        return repr(value)
    if isinstance(value, tuple | list | frozenset):
        return type(value).__name__ + "(" + ",".join(sorted(_value_text(v) for v in value)) + ")"
    if isinstance(value, dict):
        return "{" + ",".join(sorted(f"{_value_text(k)}:{_value_text(v)}" for k, v in value.items())) + "}"
    return f"<{type(value).__module__}.{type(value).__qualname__}>"


class _Walk:
    def __init__(self, home: str) -> None:
        self.home = home
        self.seen: set[int] = set()
        self.hash = hashlib.sha256()

    def add(self, label: str, data: bytes) -> None:
        self.hash.update(label.encode() + b"\0" + len(data).to_bytes(8, "little") + data)

    def visit(self, obj: Any) -> None:
        if id(obj) in self.seen:
            return
        self.seen.add(id(obj))
        if isinstance(obj, functools.partial):
            self.add("partial", _value_text((obj.args, obj.keywords)).encode())
            self.visit(obj.func)
        elif isinstance(obj, types.MethodType):
            self.visit(obj.__func__)
        elif isinstance(obj, types.FunctionType):
            self.function(obj)
        elif isinstance(obj, type):
            self.add(f"class {obj.__module__}.{obj.__qualname__}", _source(obj))
        elif isinstance(obj, types.ModuleType):
            self.add(f"module {obj.__name__}", _source(obj))
        elif callable(obj):
            self.visit(type(obj))

    def function(self, fn: types.FunctionType) -> None:
        self.add(f"function {fn.__module__}.{fn.__qualname__}", _source(fn))
        for cell in fn.__closure__ or ():
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            if callable(value) and not isinstance(value, type(print)):
                self.visit(value)
            else:
                self.add("captured", _value_text(value).encode())
        names = sorted(set(_names(fn.__code__)))
        modules = [v for v in fn.__globals__.values() if isinstance(v, types.ModuleType) and _ours(v, self.home)]
        for name in names:
            target = fn.__globals__.get(name)
            if target is not None and not isinstance(target, types.ModuleType) and _ours(target, self.home):
                self.visit(target)
            for module in modules:
                attr = getattr(module, name, None)
                if isinstance(attr, types.FunctionType | type) and _ours(attr, self.home):
                    self.visit(attr)


@functools.cache
def code_fingerprint(fn: Callable[..., Any]) -> str:
    """Hash of an extractor's code and of the project code it reaches (module docstring)."""
    home = getattr(fn, "__module__", None) or getattr(getattr(fn, "func", None), "__module__", "") or ""
    walk = _Walk(home)
    walk.visit(fn)
    walk.visit(sys.modules["mpsim.engine"])
    return walk.hash.hexdigest()[:20]
