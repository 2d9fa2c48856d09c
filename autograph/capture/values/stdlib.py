"""Standard-library calls answered at capture time from what capture knows exactly.

Functions of libraries autograph never inlines (``inspect``, …) are graph
breaks by default; the ones here depend only on values capture holds for sure
(a function object guarded by identity), so they are evaluated now.
"""
from __future__ import annotations

import inspect
import types

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


CALL_HANDLERS = {inspect.signature: _signature}


def install() -> None:
    builder.OPAQUE_CALL_HANDLERS.update(CALL_HANDLERS)


install()
