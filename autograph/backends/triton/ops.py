"""The operations loop-IR values compute with: the one interface between lowering and code generation.

A pointwise value's inner function (``ir.Pointwise.fn(ops, index)``) computes the element at
``index`` by calling methods of the handler it is given, e.g.
``ops.add(ops.load(buf, index), ops.constant(1.0, torch.float32))``, and returns the last result.
Lowerings (``lower.py``, ``lowerings/``) only call these methods; a code generator implements them
(``codegen.TritonOps`` writes Triton source: temporaries, common subexpressions, masks). The values
passed around are opaque: a lowering never looks inside one, it only hands it back to ``ops``.
Nothing here knows the target language. (Inductor's ops handler is the model, passed explicitly
instead of through a global: the IR stays a function of the graph alone.)

Semantics are torch's for the operands' dtypes unless a method says otherwise. NaN handling is
explicit in the IR: :meth:`OpsHandler.maximum`/:meth:`OpsHandler.minimum` are the plain
comparisons of the target, so a lowering that needs torch's NaN propagation (``maximum``, ``clamp``,
``relu``) tests for NaN itself with :meth:`OpsHandler.isnan` and :meth:`OpsHandler.where`.
Reductions are not ops: they are data in the IR (``ir.ReductionItem``: kind, dtype, dims).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import torch

if TYPE_CHECKING:
    import sympy

    from autograph.backends.triton.ir import Buffer, Index, Pointwise

OpsValue = Any  # whatever the handler returns; opaque to lowerings

# dtypes a kernel value may have (a lowering declines others: complex, float8, unsigned > 8 bits)
DTYPES = frozenset({torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int64, torch.int32,
                    torch.int16, torch.int8, torch.uint8, torch.bool})

HALF_DTYPES = (torch.float16, torch.bfloat16)


def compute_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype arithmetic happens in (torch's "opmath" type): float32 for half types."""
    return torch.float32 if dtype in HALF_DTYPES else dtype


def check_dtype(dtype: torch.dtype) -> None:
    """Raise NotImplementedError for a dtype no kernel value can have."""
    if dtype not in DTYPES:
        raise NotImplementedError(f"dtype {dtype} in a generated kernel")


class OpsHandler:
    """What a code generator implements; what a pointwise inner function calls.

    Every method but :meth:`pointwise` raises NotImplementedError here; a handler overrides all
    of them (``tests/backends/test_triton_ir.py`` checks the Triton handler does).
    """

    # -- leaves --------------------------------------------------------------
    def load(self, buffer: "Buffer", index: "Index") -> OpsValue:
        """The element of ``buffer`` (a tensor in memory) at ``index``, in ``compute_dtype``."""
        raise NotImplementedError

    def constant(self, value: bool | int | float, dtype: torch.dtype) -> OpsValue:
        """A Python scalar, used as a value of ``dtype`` (a weak scalar, as in torch's promotion)."""
        raise NotImplementedError

    def index_expr(self, expr: "sympy.Expr | int", dtype: torch.dtype) -> OpsValue:
        """An integer index expression (loop variables, size symbols) as a value of integer ``dtype``."""
        raise NotImplementedError

    # -- structure -------------------------------------------------------------
    def pointwise(self, value: "Pointwise", index: "Index") -> OpsValue:
        """The element of an IR pointwise value: its inner function run on this handler. A code
        generator overrides this to give the result a name and to count the op."""
        return value.fn(self, index)

    def masked(self, mask: OpsValue, body: Callable[[], OpsValue], other: OpsValue | None) -> OpsValue:
        """``body()`` where ``mask`` holds (its loads read memory only there), ``other`` elsewhere.

        ``other=None``: the caller never uses the value where ``mask`` is false (a part of a cat
        chosen by an enclosing ``where``), so no selection is made."""
        raise NotImplementedError

    def to_dtype(self, x: OpsValue, dtype: torch.dtype, src_dtype: torch.dtype | None = None) -> OpsValue:
        """``x`` converted to ``dtype`` (to bool: ``x != 0``; to a half type: rounded, as a store
        would). ``src_dtype`` is ``x``'s dtype when known; unknown (an index expression) converts
        always."""
        raise NotImplementedError

    # -- arithmetic ---------------------------------------------------------------
    def add(self, a: OpsValue, b: OpsValue) -> OpsValue:
        raise NotImplementedError

    def sub(self, a: OpsValue, b: OpsValue) -> OpsValue:
        raise NotImplementedError

    def mul(self, a: OpsValue, b: OpsValue) -> OpsValue:
        raise NotImplementedError

    def truediv(self, a: OpsValue, b: OpsValue) -> OpsValue:
        """Division of floats (integer division is declined by lowerings)."""
        raise NotImplementedError

    def mod(self, a: OpsValue, b: OpsValue) -> OpsValue:
        """Remainder of non-negative integers (the sign rule for negatives is the target's)."""
        raise NotImplementedError

    def fmod(self, a: OpsValue, b: OpsValue) -> OpsValue:
        """C's ``fmod`` of floats: the exact remainder of ``a / b`` truncated, with ``a``'s sign."""
        raise NotImplementedError

    def neg(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError

    def abs(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError

    def reciprocal(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError

    def maximum(self, a: OpsValue, b: OpsValue) -> OpsValue:
        """The larger; NaN handling is the target's (see the module docstring)."""
        raise NotImplementedError

    def minimum(self, a: OpsValue, b: OpsValue) -> OpsValue:
        """The smaller; NaN handling is the target's (see the module docstring)."""
        raise NotImplementedError

    def where(self, cond: OpsValue, a: OpsValue, b: OpsValue) -> OpsValue:
        """``a`` where ``cond`` (a bool value) holds, else ``b``."""
        raise NotImplementedError

    # -- comparisons (bool results) -------------------------------------------------
    def eq(self, a: OpsValue, b: OpsValue) -> OpsValue:
        raise NotImplementedError

    def ne(self, a: OpsValue, b: OpsValue) -> OpsValue:
        raise NotImplementedError

    def lt(self, a: OpsValue, b: OpsValue) -> OpsValue:
        raise NotImplementedError

    def le(self, a: OpsValue, b: OpsValue) -> OpsValue:
        raise NotImplementedError

    def gt(self, a: OpsValue, b: OpsValue) -> OpsValue:
        raise NotImplementedError

    def ge(self, a: OpsValue, b: OpsValue) -> OpsValue:
        raise NotImplementedError

    def isnan(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError

    # -- logical and bitwise (on bools: logical) ---------------------------------------
    def and_(self, a: OpsValue, b: OpsValue) -> OpsValue:
        raise NotImplementedError

    def or_(self, a: OpsValue, b: OpsValue) -> OpsValue:
        raise NotImplementedError

    def xor(self, a: OpsValue, b: OpsValue) -> OpsValue:
        raise NotImplementedError

    def logical_not(self, x: OpsValue) -> OpsValue:
        """``x == 0`` (a bool)."""
        raise NotImplementedError

    # -- math functions (floats) ------------------------------------------------------
    def exp(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError

    def exp2(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError

    def expm1(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError

    def log(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError

    def log2(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError

    def log10(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError

    def log1p(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError

    def sqrt(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError

    def rsqrt(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError

    def sin(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError

    def cos(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError

    def tanh(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError

    def sigmoid(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError

    def erf(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError

    def floor(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError

    def ceil(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError

    def trunc(self, x: OpsValue) -> OpsValue:
        raise NotImplementedError


def op_names() -> list[str]:
    """The operations of the protocol (public methods of :class:`OpsHandler`)."""
    return sorted(n for n in vars(OpsHandler) if not n.startswith("_") and callable(getattr(OpsHandler, n)))
