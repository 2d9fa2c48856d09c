"""Python constants: int, float, str, bool, None, bytes, dtype, device, range, ...

Operations between constants are folded at capture time; branches on them are
decided at capture time (the guards on their sources keep that valid).
"""
from __future__ import annotations

from typing import Any

from autograph.capture.breaks import Unsupported
from autograph.capture.values.base import Value

_LITERAL_TYPES = (int, float, bool, str, bytes, complex, type(None), type(Ellipsis))


class ConstantValue(Value):
    """A value known exactly at capture time."""

    def __init__(self, value: Any, source=None):
        self.value = value
        self.source = source

    def describe(self) -> str:
        return f"constant {self.value!r}"[:80]

    def python_type(self) -> type:
        return type(self.value)

    def is_constant(self) -> bool:
        return True

    def as_python_constant(self) -> Any:
        return self.value

    def real_value(self) -> Any:
        return self.value

    def truth(self, tx) -> bool:
        return bool(self.value)

    def getattr(self, tx, name: str) -> Value:
        from autograph.capture.values.builtins import BuiltinMethodValue
        try:
            attr = getattr(self.value, name)
        except AttributeError as exc:
            raise Unsupported(f"AttributeError on {self.describe()}: {exc}", generic=True, exc=exc,
                              kind="python-exception")
        if callable(attr):
            return BuiltinMethodValue(self, name)
        return tx.wrap(attr, None, trusted=True)

    def iter_items(self, tx) -> list[Value]:
        if isinstance(self.value, (str, bytes, range, tuple, frozenset)):
            return [ConstantValue(x) for x in self.value]
        return super().iter_items(tx)

    def length(self, tx) -> int:
        return len(self.value)

    def contains(self, tx, item: Value) -> Value:
        if isinstance(self.value, (set, frozenset, dict)) and item.is_constant():
            try:
                return ConstantValue(item.as_python_constant() in self.value)
            except TypeError:  # unhashable: Python raises it natively
                raise Unsupported("TypeError: unhashable type in `in`", generic=True, kind="python-exception")
        return super().contains(tx, item)

    def getitem(self, tx, key: Value) -> Value:
        if isinstance(self.value, (str, bytes, range)) and key.is_constant():
            try:
                return ConstantValue(self.value[key.as_python_constant()])
            except Exception as exc:  # IndexError etc. must be raised natively
                raise Unsupported(f"{type(exc).__name__} indexing {self.describe()}", generic=True,
                                  kind="python-exception")
        return super().getitem(tx, key)

    def reconstruct(self, cg) -> str:
        if type(self.value).__name__ in ("SymInt", "SymFloat", "SymBool"):
            from autograph.capture.shapes import reconstruct
            return reconstruct(cg, self.value)  # an expression of the inputs' sizes
        if type(self.value) is set:  # a set made during capture: a fresh copy per call
            return f"set({cg.const(frozenset(self.value))})"
        if type(self.value) in _LITERAL_TYPES and not (  # exact types: a str/int subclass (an enum
                isinstance(self.value, float) and self.value != self.value):  # member) has no literal
            text = repr(self.value)
            if text not in ("inf", "-inf", "nan", "infj", "nanj") and "inf" not in text:
                return text
        return cg.const(self.value)


def is_literal(obj: Any) -> bool:
    """True for the plain immutable values folded as constants."""
    import sys
    import torch
    import types
    if isinstance(obj, _LITERAL_TYPES + (torch.dtype, torch.device, torch.memory_format,
                                         torch.layout, range, type(NotImplemented), types.CodeType, frozenset)):
        return True
    np = sys.modules.get("numpy")  # NumPy's number scalars are immutable values too
    return np is not None and isinstance(obj, (np.number, np.bool_))
