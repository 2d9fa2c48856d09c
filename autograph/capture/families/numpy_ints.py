"""NumPy integer scalars (``np.int64``, ``np.int32``, ...) as symbolic inputs.

TorchDynamo passes a NumPy number to its graph as an input instead of folding its value in,
so a call with another value does not recompile. Here, under ``dynamic=True``, a NumPy integer
reached from an argument (``n``, ``o.n``, ``l[0]``), and in the default mode one whose value
changed between calls (automatic dynamic, as for Python ints), is a ``SymInt`` of the capture's ShapeEnv
read through ``int(n)`` (so guards and the graph see a Python int, never NumPy's wrapping
arithmetic), wrapped in :class:`NumpyIntValue`, which keeps what Python sees exact:

* ``type(n)``, ``isinstance``, ``n.__class__`` are the NumPy class, without a guard;
* ``n + 1``, ``n - m``, ``n * 2``, ``n // 3``, ``n % 3`` with a Python int in the dtype's range
  (NEP 50: it takes ``n``'s dtype) or a NumPy int of the same class stay symbolic and of that
  class, with a shape guard that the result does not wrap around; a call where it would wraps
  fails that guard, and that capture computes it for real (NumPy's wraparound and warning);
* comparisons are ``np.bool_`` values, decided with a shape guard on the relation;
* as the operand of a tensor operator or method (``x * n``) torch treats it as the Python int
  it equals, so the graph takes the symbol;
* a value leaving the capture (returned, stored) is rebuilt as ``np.int64(<int expression>)``.

Anything else (text, hashing, ``/``, ``**``, torch functions whose dtype may come from it)
specialises it: the real NumPy scalar of this call, guarded by the ShapeEnv (``n == 5``).
"""
from __future__ import annotations

import contextlib
import contextvars
import operator
from typing import Any, Iterator

import numpy as np
import torch

from autograph.capture.core import shapes
from autograph.capture.core.base import Value
from autograph.capture.core.constants import ConstantValue
from autograph.guards.sources import FunctionOfSource

INT_TYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
_EXACT_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
              "%": operator.mod}
_SYMBOLIC_LIMIT = 2 ** 62  # a NumPy int this far from 0 or farther stays a constant
_AS_OPERAND: contextvars.ContextVar[bool] = contextvars.ContextVar("autograph_numpy_int_operand", default=False)
_COMPARISONS = {"<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
                ">": operator.gt, ">=": operator.ge}


def is_dynamic(source: Any, obj: Any, graph: Any) -> bool:
    """Whether the NumPy integer ``obj`` read through ``source`` becomes a symbolic input."""
    if type(obj) not in INT_TYPES or source is None or graph.fake_mode.shape_env is None:
        return False
    plan = shapes.current_plan()
    if getattr(source, "expr", None) in plan.scalars:
        pass  # its value changed in an earlier call (automatic dynamic, every mode but static)
    elif plan.mode != "always" or not shapes.reached_from_argument(source, graph):
        return False
    return abs(int(obj)) < _SYMBOLIC_LIMIT  # 0 and 1 too, as for Python ints (Dynamo specialises neither)


def wrap(tx: Any, obj: Any, source: Any) -> "NumpyIntValue":
    """The value of the NumPy integer input ``obj``: its class guarded, its value a symbol."""
    tx.guards.type_(source, obj)
    symbol = shapes.symbolic_int(tx.graph, FunctionOfSource(source, int, "int"), int(obj))
    # shape guards: a later call's value is as far from the bounds as ``is_dynamic`` asked
    # (``np.uint64(2 ** 64 - 1)`` is no number to torch; it gets a capture of its own)
    bool(symbol < _SYMBOLIC_LIMIT)
    bool(symbol > -_SYMBOLIC_LIMIT)
    return NumpyIntValue(symbol, type(obj), source)


class NumpyIntValue(Value):
    """A NumPy integer known only at run time: a ``SymInt`` and the NumPy class it has."""

    def __init__(self, symbol: torch.SymInt, cls: type, source: Any = None):
        self.symbol = symbol
        self.cls = cls
        self.source = source

    def describe(self) -> str:
        return f"dynamic {self.cls.__name__}"

    def python_type(self) -> type:
        return self.cls

    def is_constant(self) -> bool:
        return True  # generic code folds on the specialised value (guarded), see as_python_constant

    def as_python_constant(self) -> Any:
        """The real NumPy scalar of this call; the ShapeEnv guards its value (``n == 5``). As the
        operand of a tensor operation (``as_operands``): the symbol."""
        if _AS_OPERAND.get():
            return self.symbol
        return self.real_value()

    def real_value(self) -> Any:
        return self.cls(int(self.symbol))

    def specialised(self) -> ConstantValue:
        if self.source is not None:
            return SpecialisedInput(self.real_value(), self.source)
        return ConstantValue(self.real_value())

    def getattr(self, tx, name: str) -> Value:
        if name == "__class__":
            return tx.wrap(self.cls, None, trusted=True)
        return self.specialised().getattr(tx, name)

    def truth(self, tx) -> bool:
        return bool(self.symbol != 0)  # a shape guard on ``n != 0``

    def getitem(self, tx, key: Value) -> Value:
        return self.specialised().getitem(tx, key)

    def iter_items(self, tx) -> list[Value]:
        return self.specialised().iter_items(tx)

    def get_iter(self, tx) -> Value:
        return self.specialised().get_iter(tx)

    def length(self, tx) -> int:
        return self.specialised().length(tx)

    def contains(self, tx, item: Value) -> Value:
        return self.specialised().contains(tx, item)

    def text_snapshot(self) -> Any:
        return self.real_value()

    def reconstruct(self, cg) -> str:
        if self.source is not None:  # the input itself: the caller's object (``f(n) is n``)
            return read_input(cg, self.source)
        return f"{cg.const(self.cls)}({shapes.reconstruct(cg, self.symbol)})"


class SpecialisedInput(ConstantValue):
    """A NumPy int input's value of this call (guarded): where it leaves the capture (returned,
    stored, a dict key) it is read from the input, the caller's object as in plain Python, not
    the one capture made (which every later call would share)."""

    def reconstruct(self, cg) -> str:
        return read_input(cg, self.source)


def read_input(cg: Any, source: Any) -> str:
    """The NumPy int input at ``source`` as the entry found it (before replayed stores)."""
    return cg.read_before_replay(("numpy_int", source.expr), cg.source_expr(source))


def involved(a: Value, b: Value) -> bool:
    """A dynamic NumPy int, or a NumPy int constant with a dynamic Python int (``np.int32(3) * n``)."""
    return _numpy_class(a, b) is not None


def _numpy_class(a: Value, b: Value) -> type | None:
    """The NumPy integer class of an operation's result when one operand is a dynamic NumPy int,
    or a NumPy int constant meets a dynamic Python int; None otherwise."""
    for v in (a, b):
        if isinstance(v, NumpyIntValue):
            return v.cls
    symbolic = any(isinstance(v, ConstantValue) and isinstance(v.value, torch.SymInt) for v in (a, b))
    for v in (a, b):
        if symbolic and isinstance(v, ConstantValue) and type(v.value) in INT_TYPES:
            return type(v.value)
    return None


def _operand(value: Value, cls: type) -> Any:
    """``value`` as an operand keeping a ``cls`` result exact: a symbol, a plain int, else None."""
    if isinstance(value, NumpyIntValue):
        return value.symbol if value.cls is cls else None
    if not isinstance(value, ConstantValue):
        return None
    real = value.value
    if type(real) is cls:
        return int(real)
    if type(real) is int:  # NEP 50: a Python int is weak (takes ``cls``), in range or an error
        return real if _in_range(real, cls) else None
    if isinstance(real, torch.SymInt):  # a dynamic Python int: the same, its range a shape guard
        info = np.iinfo(cls)
        return real if bool(real >= int(info.min)) and bool(real <= int(info.max)) else None
    return None


def _in_range(value: int, cls: type) -> bool:
    info = np.iinfo(cls)
    return int(info.min) <= value <= int(info.max)


def _positive_constant(value: Value, cls: type) -> bool:
    if not isinstance(value, ConstantValue):
        return False
    real = value.value
    return (type(real) is cls or type(real) is int and _in_range(real, cls)) and real > 0


def binary(tx: Any, op: str, a: Value, b: Value) -> Any:
    """``a <op> b`` kept symbolic when NumPy computes it exactly here; NotImplemented otherwise
    (the caller folds on the specialised values)."""
    fn = _EXACT_OPS.get(op[:-1] if op.endswith("=") else op)  # ``n += 1``: a new scalar, as ``n + 1``
    if fn is None:
        return NotImplemented
    cls = _numpy_class(a, b)
    if fn in (operator.floordiv, operator.mod) and not _positive_constant(b, cls):
        return NotImplemented  # a divisor known to be positive: NumPy's result is Python's
    left = _operand(a, cls)
    right = _operand(b, cls) if left is not None else None
    if left is None or right is None:
        return NotImplemented
    result = fn(left, right)
    if not isinstance(result, torch.SymInt):  # folded by the algebra (``n * 0``)
        return ConstantValue(cls(result)) if _in_range(result, cls) else NotImplemented
    info = np.iinfo(cls)
    # shape guards: the run does not wrap around (where it would, the real NumPy op runs)
    if not (bool(result >= int(info.min)) and bool(result <= int(info.max))):
        return NotImplemented
    return NumpyIntValue(result, cls)


def compare(tx: Any, a: Value, op: str, b: Value) -> Any:
    """``a <op> b`` as NumPy's ``np.bool_``, decided with a shape guard; NotImplemented otherwise."""
    fn = _COMPARISONS.get(op)
    if fn is None:
        return NotImplemented
    cls = _numpy_class(a, b)
    left = _operand(a, cls)
    right = _operand(b, cls) if left is not None else None
    if left is None or right is None:
        return NotImplemented
    return ConstantValue(np.bool_(bool(fn(left, right))))


@contextlib.contextmanager
def as_operands(kind: str, target: Any) -> Iterator[None]:
    """While a graph operation's arguments are converted: a dynamic NumPy int is its symbol where
    torch treats a NumPy scalar as the Python number it equals, the operand of a tensor operator
    or method (see ``graph._numpy_scalars_as_numbers``); elsewhere its specialised value."""
    operand = kind == "call_method" or getattr(target, "__module__", None) in ("_operator", "operator")
    token = _AS_OPERAND.set(operand)
    try:
        yield
    finally:
        _AS_OPERAND.reset(token)
