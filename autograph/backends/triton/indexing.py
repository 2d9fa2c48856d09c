"""Index arithmetic for the loop IR: sympy expressions over iteration symbols.

Every loop variable (``x0``, ``r1``) is a sympy integer symbol with a known
range ``[0, size)``. Reshapes produce ``FloorDiv``/``ModularIndexing`` terms;
:func:`floordiv` and :func:`modulo` simplify them when the ranges prove the
division exact (so ``(16*x1 + x0) // 16`` becomes ``x1`` when ``x0 < 16``),
which keeps generated kernels readable and lets the fuser recognise that two
loads address the same element.
"""
from __future__ import annotations

import functools

import sympy

_RANGES: dict[sympy.Symbol, int] = {}


def symbol(name: str, size: int) -> sympy.Symbol:
    """An iteration variable taking values ``0 .. size-1``."""
    s = sympy.Symbol(name, integer=True, nonnegative=True)
    _RANGES[s] = max(_RANGES.get(s, 0), int(size))
    return s


class FloorDiv(sympy.Function):
    """``a // b`` for non-negative integers (kept opaque to sympy)."""

    nargs = 2
    is_integer = True


class ModularIndexing(sympy.Function):
    """``a % b`` for non-negative integers (kept opaque to sympy)."""

    nargs = 2
    is_integer = True


def upper_bound(expr: sympy.Expr) -> int:
    """An inclusive upper bound of a non-negative index expression."""
    if expr.is_Integer:
        return int(expr)
    if expr.is_Symbol:
        return _RANGES.get(expr, 2**31) - 1
    if expr.is_Add:
        return sum(upper_bound(a) for a in expr.args)
    if expr.is_Mul:
        out = 1
        for a in expr.args:
            out *= upper_bound(a)
        return out
    if isinstance(expr, FloorDiv):
        return upper_bound(expr.args[0]) // int(expr.args[1])
    if isinstance(expr, ModularIndexing):
        return int(expr.args[1]) - 1
    return 2**31


def _split(expr: sympy.Expr, d: int) -> tuple[sympy.Expr, sympy.Expr]:
    """Split ``expr`` into ``(q, rest)`` with ``expr == d*q + rest``, q from terms divisible by d."""
    q, rest = sympy.Integer(0), sympy.Integer(0)
    for term in sympy.Add.make_args(sympy.expand(expr)):
        coeff, rest_term = term.as_coeff_Mul()
        if coeff.is_Integer and int(coeff) % d == 0:
            q += (int(coeff) // d) * rest_term
        else:
            rest += term
    return q, rest


def floordiv(expr: sympy.Expr, d: int) -> sympy.Expr:
    d = int(d)
    if d == 1:
        return expr
    if expr.is_Integer:
        return sympy.Integer(int(expr) // d)
    q, rest = _split(expr, d)
    if upper_bound(rest) < d:
        return q
    if upper_bound(expr) < d:
        return sympy.Integer(0)
    return FloorDiv(expr, sympy.Integer(d))


def modulo(expr: sympy.Expr, d: int) -> sympy.Expr:
    d = int(d)
    if d == 1:
        return sympy.Integer(0)
    if expr.is_Integer:
        return sympy.Integer(int(expr) % d)
    _, rest = _split(expr, d)
    if upper_bound(rest) < d:
        return rest
    return ModularIndexing(rest, sympy.Integer(d))


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, acc = [], 1
    for size in reversed(shape):
        strides.append(acc)
        acc *= max(int(size), 1)
    return tuple(reversed(strides))


def linearize(index: list[sympy.Expr], strides: tuple[int, ...], offset: int = 0) -> sympy.Expr:
    return sympy.expand(sum((i * s for i, s in zip(index, strides)), sympy.Integer(offset)))


def delinearize(flat: sympy.Expr, shape: tuple[int, ...]) -> list[sympy.Expr]:
    """Multi-index of the element at contiguous position ``flat`` in ``shape``."""
    out = []
    for size, stride in zip(shape, contiguous_strides(shape)):
        out.append(sympy.Integer(0) if size == 1 else modulo(floordiv(flat, stride), size))
    return out


@functools.lru_cache(maxsize=8192)
def texpr(expr: sympy.Expr) -> str:
    """Print an index expression as Triton/Python source."""
    if expr.is_Integer or expr.is_Symbol:
        return str(expr)
    if isinstance(expr, (FloorDiv, ModularIndexing)):
        num = texpr(expr.args[0])
        if expr.args[0].is_Add or expr.args[0].is_Mul:
            num = f"({num})"
        op = "//" if isinstance(expr, FloorDiv) else "%"
        return f"({num} {op} {texpr(expr.args[1])})"
    if expr.is_Add:
        return " + ".join(texpr(a) for a in sorted(expr.args, key=str))
    if expr.is_Mul:
        return "*".join(texpr(a) if not a.is_Add else f"({texpr(a)})" for a in expr.args)
    raise NotImplementedError(f"index expression {expr}")
