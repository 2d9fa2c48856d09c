"""Python constants: int, float, str, bool, None, bytes, dtype, device, range, ...

Operations between constants are folded at capture time; branches on them are
decided at capture time (the guards on their sources keep that valid).
"""
from __future__ import annotations

import math
import operator
import sys
from typing import Any

from autograph.capture.core.breaks import Unsupported
from autograph.capture.core.registry import protocol_helper
from autograph.capture.core.base import Value, attribute_binds

_LITERAL_TYPES = (int, float, bool, str, bytes, complex, type(None), type(Ellipsis))
# the Python type a symbolic number (dynamic shapes, dynamic int inputs) is for the program:
# SymInt & co. exist only inside capture and the graph
_PYTHON_TYPE_OF_SYMBOLIC = {"SymInt": int, "SymFloat": float, "SymBool": bool}


def symbolic_python_type(obj: Any) -> type | None:
    """``int``/``float``/``bool`` for a torch ``SymInt``/``SymFloat``/``SymBool``, else None."""
    kind = type(obj)
    return _PYTHON_TYPE_OF_SYMBOLIC.get(kind.__name__) if kind.__module__ == "torch" else None


def specialise(obj: Any) -> Any:
    """The real Python number a symbolic one stands for now, guarded by the ShapeEnv (the entry
    serves only calls where it has this value); other objects unchanged."""
    kind = symbolic_python_type(obj)
    return obj if kind is None else kind(obj)


class ConstantValue(Value):
    """A value known exactly at capture time."""

    def __init__(self, value: Any, source=None):
        self.value = value
        self.source = source

    def describe(self) -> str:
        return f"constant {self.value!r}"[:80]

    def python_type(self) -> type:
        return symbolic_python_type(self.value) or type(self.value)

    def is_symbolic(self) -> bool:
        """A dynamic size or int input: a symbol in capture, an ``int`` (``float``) for Python."""
        return symbolic_python_type(self.value) is not None

    def is_constant(self) -> bool:
        return True

    def as_python_constant(self) -> Any:
        return self.value

    def real_value(self) -> Any:
        return self.value

    def truth(self, tx) -> bool:
        return bool(self.value)

    def getattr(self, tx, name: str) -> Value:
        """CPython's lookup on the value: a function or method descriptor found on its class binds
        (a method, called later); anything else (``__class__``, ``real``, ``__doc__``, a class
        stored on the class) is data, read now. A symbolic number is an ``int``/``float``: its
        class is that, and any other attribute is read from its specialised value."""
        if self.is_symbolic():
            if name == "__class__":
                return tx.wrap(self.python_type(), None, trusted=True)
            return ConstantValue(specialise(self.value)).getattr(tx, name)
        try:
            attr = getattr(self.value, name)
        except AttributeError as exc:
            raise Unsupported(f"AttributeError on {self.describe()}: {exc}", generic=True, exc=exc,
                              kind="python-exception")
        if attribute_binds(type(self.value), name):
            return protocol_helper("builtin_method")(self, name)
        return tx.wrap(attr, None, trusted=True)

    def iter_items(self, tx) -> list[Value]:
        if isinstance(self.value, (str, bytes, range, tuple, frozenset, set)):
            return [ConstantValue(x) for x in self.value]
        return super().iter_items(tx)

    def get_iter(self, tx) -> Value:
        if isinstance(self.value, (str, bytes, range, tuple, frozenset)):
                return protocol_helper("list_iterator")(self.iter_items(tx), cls=type(iter(self.value)))
        if not hasattr(type(self.value), "__iter__") and not hasattr(type(self.value), "__getitem__"):
            self._fold(iter, [], "iter")  # not iterable (``for x in 1``): Python's own TypeError
        return super().get_iter(tx)

    def length(self, tx) -> int:
        return self._fold(len, [], "len")

    def contains(self, tx, item: Value) -> Value:
        """``item in value``: Python's own ``in`` on the real constants (a substring test for str)."""
        if item.is_constant():
            return ConstantValue(self._fold(operator.contains, [item.as_python_constant()], "in"))
        if type(self.value) is tuple:
            return super().contains(tx, item)  # element by element: identity, then ==
        raise Unsupported(f"`in` test of {item.describe()} against {self.describe()}", kind="unsupported-operation")

    def getitem(self, tx, key: Value) -> Value:
        if key.is_constant():
            return tx.wrap(self._fold(operator.getitem, [key.as_python_constant()], "[]"), None, trusted=True)
        return super().getitem(tx, key)

    def _fold(self, fn, args: list, what: str) -> Any:
        """``fn(value, *args)`` run for real; its exception is Python's, raised natively later."""
        try:
            return fn(self.value, *args)
        except Exception as exc:  # noqa: BLE001
            raise Unsupported(f"{what} on {self.describe()} raised {type(exc).__name__}", generic=True, exc=exc,
                kind="python-exception")

    def reconstruct(self, cg) -> str:
        if type(self.value).__name__ in ("SymInt", "SymFloat", "SymBool"):
            from autograph.capture.core.shapes import reconstruct
            return reconstruct(cg, self.value)  # an expression of the inputs' sizes
        if type(self.value) is set:  # a set made during the call: a new one per call, one per value
            return cg.shared(self, f"set({cg.const(frozenset(self.value))})")
        if self.source is not None and _is_numpy_scalar(self.value):
            # an input's NumPy scalar (guarded: same class and value): the caller's object, as in
            # plain Python, not the one a capture met (every later call would share it)
            return cg.read_before_replay(("input", self.source.expr), cg.source_expr(self.source))
        if type(self.value) in _LITERAL_TYPES and not (  # exact types: a str/int subclass (an enum
                isinstance(self.value, float) and self.value != self.value):  # member) has no literal
            text = repr(self.value)
            if text not in ("inf", "-inf", "nan", "infj", "nanj") and "inf" not in text:
                return text
        return cg.const(self.value)


def exact_key(x: Any) -> Any:
    """``x`` with each element's type (and a float's sign) beside it, for guards that compare a
    constant capture folded: ``1``, ``True`` and ``1.0`` are ``==``, and so are ``0.0`` and
    ``-0.0``, yet their text and type differ; a NaN never equals itself, so such a guard fails."""
    kind = type(x)
    if kind in (tuple, frozenset):
        return kind, kind(exact_key(i) for i in x)
    if kind is float:
        return kind, x, math.copysign(1.0, x)
    if kind is complex:
        return kind, x, math.copysign(1.0, x.real), math.copysign(1.0, x.imag)
    return kind, x


def is_literal(obj: Any) -> bool:
    """True for the plain immutable values folded as constants."""
    import sys
    import torch
    import types
    if isinstance(obj, _LITERAL_TYPES + (torch.dtype, torch.device, torch.memory_format,
                                         torch.layout, range, type(NotImplemented), types.CodeType, frozenset)):
        return True
    np = sys.modules.get("numpy")  # NumPy's number scalars are immutable values too
    return (np is not None and isinstance(obj, (np.number, np.bool_))) or is_pybind_enum_member(obj)


def is_pybind_enum_member(obj: Any) -> bool:
    """A member of a C++ enum bound by pybind11 (``SDPBackend.MATH``, ``ProfilerActivity.CPU``):
    an immutable value, one object per member, compared and hashed by its integer value."""
    cls = type(obj)
    if type(cls).__name__ != "pybind11_type":
        return False
    try:
        members = cls.__members__
    except AttributeError:
        return False
    return isinstance(members, dict) and any(m is obj for m in members.values())


def _is_numpy_scalar(value: Any) -> bool:
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, np.generic)
