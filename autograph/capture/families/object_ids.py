"""``id(obj)``: an object's address, known only when the program runs.

The result is a :class:`~autograph.capture.core.run_time.RunTimeValue`: kept or returned, the
transformed code calls the real ``id`` on the real object after the graph. What programs do
with ids during the call, ``id(a) == id(b)`` / ``!=``, is ``a is b``: the identity capture
already decides (and guards for objects from outside). Anything else that needs the number
(arithmetic, a branch on it, a dict key) is a graph break, as before.
"""
from __future__ import annotations

from autograph.capture.core import registry
from autograph.capture.core.base import Value
from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.constants import ConstantValue
from autograph.capture.core.run_time import RUN_TIME_VALUE, RunTimeValue


class ObjectIdValue(RunTimeValue):
    """``id(obj)`` of a value of the call."""

    def __init__(self, obj: Value):
        super().__init__(id, [obj], int, f"id() of {obj.describe()}")
        self.obj = obj

    def compare_op(self, tx, op: str, other: Value):
        if op not in ("==", "!=") or not isinstance(other, ObjectIdValue):
            raise Unsupported(f"`{op}` on {self.what}, known only at run time", kind=RUN_TIME_VALUE)
        from autograph.capture.families.builtins import identical_or_none
        same = identical_or_none(tx, self.obj, other.obj)
        if same is None:
            raise Unsupported(f"whether {self.obj.describe()} and {other.obj.describe()} are one object",
                              kind=RUN_TIME_VALUE)
        return ConstantValue(same if op == "==" else not same)


def _id(tx, obj: Value, *rest, **kwargs):
    if rest or kwargs:
        return NotImplemented  # Python's TypeError, from the real call
    return ObjectIdValue(obj)


def install() -> None:
    registry.register_builtin(id, _id)
