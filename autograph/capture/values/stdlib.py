"""Standard-library calls answered at capture time from what capture knows exactly.

Functions of libraries autograph never inlines (``inspect``, …) are graph
breaks by default; the ones here depend only on values capture holds for sure
(a function object guarded by identity), so they are evaluated now.
"""
from __future__ import annotations

import inspect
import os

from autograph.capture.breaks import Unsupported
from autograph.capture.values import builder
from autograph.capture.values.containers import DictValue
from autograph.capture.values.functions import BoundMethodValue, UserFunctionValue
from autograph.capture.values.objects import ObjectValue


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
        return SignatureValue(inspect.signature(fn.fn))
    if isinstance(fn, BoundMethodValue) and isinstance(fn.func, UserFunctionValue):
        sig = inspect.signature(fn.func.fn)
        params = list(sig.parameters.values())
        if not params or params[0].kind not in (params[0].POSITIONAL_ONLY, params[0].POSITIONAL_OR_KEYWORD):
            return NotImplemented
        return SignatureValue(sig.replace(parameters=params[1:]))
    return NotImplemented


class EnvironValue(ObjectValue):
    """``os.environ``: reads are answered now and guarded by re-reading the variable."""

    def _read(self, tx, key, default=None):
        if not key.is_constant() or (default is not None and not default.is_constant()):
            raise Unsupported("os.environ read with a non-constant key")
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
            raise Unsupported(f"KeyError: os.environ[{k!r}]", generic=True)
        return self._read(tx, key)

    def contains(self, tx, item):
        if not item.is_constant():
            raise Unsupported("os.environ membership with a non-constant key")
        k, env = item.as_python_constant(), self.obj
        return tx.wrap(k in env, None, pin=lambda: k in env, what=f"{k!r} in os.environ")


def _wrap_environ(tx, obj, source):
    tx.guard_id(source, obj, pin=lambda: os.environ, what="os.environ")
    return EnvironValue(obj, source)


CALL_HANDLERS = {inspect.signature: _signature}


def install() -> None:
    builder.OPAQUE_CALL_HANDLERS.update(CALL_HANDLERS)
    builder.TYPE_WRAPPERS[type(os.environ)] = _wrap_environ


install()
