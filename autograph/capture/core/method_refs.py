"""``obj.name`` loaded for a call (``LOAD_METHOD``/``LOAD_ATTR`` with the method flag): the one
value the interpreter pushes for a method it does not bind, read by codegen and the families
that must recognise it."""
from __future__ import annotations

from autograph.capture.core.base import Value
from autograph.capture.core.breaks import Unsupported


class MethodRef(Value):
    """``obj.name`` loaded for a call: dispatches to ``obj.call_method`` (no bound object made)."""

    def __init__(self, obj: Value, name: str):
        self.obj = obj
        self.name = name

    def describe(self):
        return f"method .{self.name} of {self.obj.describe()}"

    def call(self, tx, args, kwargs):
        return self.obj.call_method(tx, self.name, args, kwargs)

    def resolve(self, tx) -> Value:
        return self.obj.getattr(tx, self.name)

    def reconstruct(self, cg):
        try:
            real = self.obj.real_value()
        except Unsupported:
            real = None
        if real is not None and not hasattr(real, self.name):
            raise Unsupported(f"method .{self.name} does not exist on {self.obj.describe()}",
                              kind="unsupported-operation")
        return f"{cg.reconstruct(self.obj)}.{self.name}"
