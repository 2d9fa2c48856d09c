"""Standard-library objects and calls answered at capture time from what capture knows exactly.

Functions of libraries autograph never inlines (``inspect``, …) are graph
breaks by default; the ones here depend only on values capture holds for sure
(a function object guarded by identity), so they are evaluated now.
"""
from __future__ import annotations

import functools
import inspect
import os
import pathlib
import types

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core import registry
from autograph.capture.core.constants import ConstantValue
from autograph.capture.families.containers import DictValue
from autograph.capture.families.functions import BoundMethodValue, UserFunctionValue
from autograph.capture.families.objects import ObjectValue
from autograph.guards.sources import AttrSource, FunctionOfSource, ItemSource


class SignatureValue(ObjectValue):
    """An ``inspect.Signature`` (immutable): ``.parameters`` is a dict of its parameters."""

    def getattr(self, tx, name):
        if name == "parameters":
            return DictValue({k: ObjectValue(p) for k, p in self.obj.parameters.items()})
        return super().getattr(tx, name)


def _signature(tx, args, kwargs):
    if len(args) != 1 or kwargs:
        return NotImplemented
    fn = args[0]
    if isinstance(fn, UserFunctionValue):
        return SignatureValue(inspect.signature(fn.real_value()))
    if isinstance(fn, BoundMethodValue) and isinstance(fn.func, UserFunctionValue):
        sig = inspect.signature(fn.func.real_value())
        params = list(sig.parameters.values())
        if not params or params[0].kind not in (params[0].POSITIONAL_ONLY, params[0].POSITIONAL_OR_KEYWORD):
            return NotImplemented
        return SignatureValue(sig.replace(parameters=params[1:]))
    return NotImplemented


class EnvironValue(ObjectValue):
    """``os.environ``: reads are answered now and guarded by re-reading the variable."""

    def _read(self, tx, key, default=None):
        if not key.is_constant() or (default is not None and not default.is_constant()):
            raise Unsupported("os.environ read with a non-constant key", kind="unsupported-operation")
        k = key.as_python_constant()
        d = default.as_python_constant() if default is not None else None
        env = self.obj
        return tx.wrap(env.get(k, d), None, pin=lambda: env.get(k, d), what=f"os.environ.get({k!r}, {d!r})")

    def call_method(self, tx, name, args, kwargs):
        if name == "get" and 1 <= len(args) <= 2 and not kwargs:
            return self._read(tx, *args)
        return super().call_method(tx, name, args, kwargs)

    def getitem(self, tx, key):
        k = key.as_python_constant() if key.is_constant() else None
        if k is None or k not in self.obj:
            raise Unsupported(f"KeyError: os.environ[{k!r}]", generic=True, kind="python-exception")
        return self._read(tx, key)

    def contains(self, tx, item):
        if not item.is_constant():
            raise Unsupported("os.environ membership with a non-constant key", kind="unsupported-operation")
        k, env = item.as_python_constant(), self.obj
        return tx.wrap(k in env, None, pin=lambda: k in env, what=f"{k!r} in os.environ")


def _wrap_environ(tx, obj, source):
    tx.guard_id(source, obj, pin=lambda: os.environ, what="os.environ")
    return EnvironValue(obj, source)


class PartialValue(ObjectValue):
    """A ``functools.partial`` reached through a source: calling it calls ``func`` with the
    stored arguments first and the stored keywords updated by the call's (as partial does)."""

    def __init__(self, obj, source, func, args, keywords):
        super().__init__(obj, source)
        self.func, self.args, self.keywords = func, args, keywords

    def call(self, tx, args, kwargs):
        return tx.call(self.func, [*self.args, *args], {**self.keywords, **kwargs})


def _wrap_partial(tx, obj, source):

    tx.guards.type_(source, obj)
    if source is None:
        return ObjectValue(obj, source)
    args_src, kw_src = AttrSource(source, "args"), AttrSource(source, "keywords")
    tx.guards.length(args_src, obj.args)
    tx.guards.keys(kw_src, obj.keywords)
    return PartialValue(obj, source, tx.wrap(obj.func, AttrSource(source, "func")),
                        [tx.wrap(v, ItemSource(args_src, i)) for i, v in enumerate(obj.args)],
                        {k: tx.wrap(v, ItemSource(kw_src, k)) for k, v in obj.keywords.items()})


def _fspath(tx, *args, **kwargs):
    """``os.fspath(p)``: a constant is the real call's answer (its TypeError included); a
    ``pathlib`` path from outside is read for real (immutable; an EQUALS_MATCH guard on
    ``os.fspath(p)`` asks again); a
    user class's ``__fspath__`` is inlined and its result checked as ``os.fspath`` checks it."""
    if len(args) != 1 or kwargs:
        return NotImplemented
    (path,) = args
    if path.is_constant():
        value = path.as_python_constant()
        try:
            return ConstantValue(os.fspath(value))
        except TypeError as exc:
            raise Unsupported(f"TypeError: {exc}", generic=True, exc=exc, kind="python-exception") from None
    if isinstance(path, ObjectValue) and isinstance(path.obj, pathlib.PurePath) \
            and type(path.obj).__fspath__ is pathlib.PurePath.__fspath__:
        text = os.fspath(path.obj)
        if path.source is not None:
            tx.guards.equals(FunctionOfSource(path.source, os.fspath, "os.fspath"), text)
        return ConstantValue(text)
    kind = path.python_type()
    method = getattr(kind, "__fspath__", None)
    if not isinstance(method, types.FunctionType):
        return NotImplemented
    out = path.call_method(tx, "__fspath__", [], {})
    result_kind = out.python_type()
    if result_kind not in (str, bytes) and not issubclass(result_kind, (str, bytes)):
        exc = TypeError(f"expected {kind.__name__}.__fspath__() to return str or bytes, "
                        f"not {result_kind.__name__}")
        raise Unsupported(f"TypeError: {exc}", generic=True, exc=exc, kind="python-exception")
    return out


CALL_HANDLERS = {inspect.signature: _signature}


def install() -> None:
    for fn, handler in CALL_HANDLERS.items():
        registry.register_opaque_call(fn, handler)
    registry.register_builtin(os.fspath, _fspath)
    registry.register_type_wrapper(type(os.environ), _wrap_environ)
    registry.register_type_wrapper(functools.partial, _wrap_partial)
