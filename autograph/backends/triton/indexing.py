"""Index arithmetic for the loop IR: sympy expressions over iteration symbols.

Every loop variable (``x0``, ``r1``) is a sympy integer symbol with a known
range ``[0, size)``. Reshapes produce ``FloorDiv``/``ModularIndexing`` terms;
:func:`floordiv` and :func:`modulo` simplify them when the ranges prove the
division exact (so ``(16*x1 + x0) // 16`` becomes ``x1`` when ``x0 < 16``),
which keeps generated kernels readable and lets the fuser recognise that two
loads address the same element.
"""
from __future__ import annotations

import sympy


class RangeIndex(sympy.Symbol):
    """An iteration variable with its range ``[0, size)`` (``size`` an int or a size expression).

    The range is part of the symbol's identity (``x0`` over 16 is not ``x0`` over 1024, ``x0``
    over ``s1`` not ``x0`` over ``s2``), so range facts are exact, read off the symbol itself,
    and never shared between kernels: the same graph always gets the same kernels. Every other
    symbol in an index expression is a ShapeEnv size symbol (a kernel argument).
    """

    def __new__(cls, name: str, size: sympy.Expr):
        obj = sympy.Symbol.__xnew__(cls, name, integer=True, nonnegative=True)
        obj.size = sympy.sympify(size)
        return obj

    def __getnewargs__(self):
        return (self.name, self.size)

    def _hashable_content(self):
        return super()._hashable_content() + (self.size,)


def is_static(expr) -> bool:
    """True for a Python int or a sympy integer (a size known at compile time)."""
    return isinstance(expr, int) or bool(getattr(expr, "is_Integer", False))


def is_size_symbol(sym) -> bool:
    """A ShapeEnv size symbol (a kernel argument, at least 2), not an iteration variable."""
    return bool(getattr(sym, "is_Symbol", False)) and not isinstance(sym, RangeIndex)


def symbol(name: str, size) -> sympy.Symbol:
    """An iteration variable taking values ``0 .. size-1`` (``size`` may be a size expression)."""
    return RangeIndex(name, int(size) if is_static(size) else size)


def _range_top(var: sympy.Symbol) -> sympy.Expr:
    """``size`` of an iteration variable's range ``[0, size)``."""
    return sympy.sympify(var.size) if isinstance(var, RangeIndex) else sympy.Integer(2**31)


def _symbolic_within(expr: sympy.Expr, d: sympy.Expr) -> bool:
    """True when ``0 <= expr < d`` is provable: ``expr`` is a non-negative combination of
    iteration variables (each term at most one) whose largest value is ``<= d - 1``."""
    high = sympy.Integer(0)
    for term in sympy.Add.make_args(sympy.expand(expr)):
        coeff, rest = term.as_coeff_Mul()
        if coeff < 0:
            return False
        loops = [f for f in rest.free_symbols if not is_size_symbol(f)]
        if len(loops) > 1:
            return False
        if loops:
            var = loops[0]
            term = term.subs(var, _range_top(var) - 1)
        high += term
    return _nonnegative(d - 1 - high)


def _nonnegative(expr: sympy.Expr) -> bool:
    """Provably >= 0: a sum of non-negative multiples of products of size symbols (all >= 2)."""
    for term in sympy.Add.make_args(sympy.expand(expr)):
        coeff, rest = term.as_coeff_Mul()
        if coeff < 0:
            return False
        for factor in sympy.Mul.make_args(rest):
            base = factor.base if factor.is_Pow else factor
            if factor != 1 and not is_size_symbol(base):
                return False
    return True


def _symbolic_split(expr: sympy.Expr, d: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
    """Like :func:`_split` for a size-expression divisor: terms that are polynomial multiples of ``d``."""
    q, rest = sympy.Integer(0), sympy.Integer(0)
    for term in sympy.Add.make_args(sympy.expand(expr)):
        ratio = sympy.cancel(term / d)
        if sympy.fraction(ratio)[1] == 1 and ratio.is_polynomial():
            q += ratio
        else:
            rest += term
    return q, rest


class FloorDiv(sympy.Function):
    """``a // b`` for non-negative integers (kept opaque to sympy)."""

    nargs = 2
    is_integer = True


class ModularIndexing(sympy.Function):
    """``a % b`` for non-negative integers (kept opaque to sympy)."""

    nargs = 2
    is_integer = True


def bounds(expr: sympy.Expr) -> tuple[int, int]:
    """Inclusive ``(low, high)`` of an index expression (interval arithmetic)."""
    if expr.is_Integer:
        return int(expr), int(expr)
    if expr.is_Symbol:
        if is_size_symbol(expr):
            return 2, 2**31
        top = _range_top(expr)
        return 0, (int(top) if top.is_Integer else 2**31) - 1
    if expr.is_Add:
        lo = hi = 0
        for a in expr.args:
            alo, ahi = bounds(a)
            lo, hi = lo + alo, hi + ahi
        return lo, hi
    if expr.is_Mul:
        lo = hi = 1
        for a in expr.args:
            alo, ahi = bounds(a)
            products = (lo * alo, lo * ahi, hi * alo, hi * ahi)
            lo, hi = min(products), max(products)
        return lo, hi
    if any(not a.is_Integer for a in expr.args[1:]) and isinstance(expr, (FloorDiv, ModularIndexing)):
        return 0 if bounds(expr.args[0])[0] >= 0 else -(2**31), 2**31
    if isinstance(expr, FloorDiv):
        lo, hi = bounds(expr.args[0])
        d = int(expr.args[1])
        return lo // d, hi // d
    if isinstance(expr, ModularIndexing):
        return 0, int(expr.args[1]) - 1
    return -(2**31), 2**31


def _within(expr: sympy.Expr, d: int) -> bool:
    """True when ``0 <= expr < d`` for every value of its symbols."""
    lo, hi = bounds(expr)
    return lo >= 0 and hi < d


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


def floordiv(expr: sympy.Expr, d) -> sympy.Expr:
    if not is_static(d):
        q, rest = _symbolic_split(expr, d)
        if rest == 0 or _symbolic_within(rest, d):
            return q
        return FloorDiv(expr, d)
    d = int(d)
    if d == 1:
        return expr
    if expr.is_Integer:
        return sympy.Integer(int(expr) // d)
    q, rest = _split(expr, d)
    if _within(rest, d):
        return q
    if _within(expr, d):
        return sympy.Integer(0)
    if q != 0 and bounds(rest)[0] >= 0:
        # (d*q + rest) // d == q + rest // d: the division left has a non-negative dividend, so
        # it means the same in the kernel's integer arithmetic (``(x - 1536) // 64`` is
        # ``x // 64 - 24``, and ``(x // 64 - 24) % 12`` then ``(x // 64) % 12``)
        return q + FloorDiv(rest, sympy.Integer(d))
    return FloorDiv(expr, sympy.Integer(d))


def modulo(expr: sympy.Expr, d) -> sympy.Expr:
    if not is_static(d):
        _, rest = _symbolic_split(expr, d)
        if rest == 0 or _symbolic_within(rest, d):
            return rest
        return ModularIndexing(rest, d)
    d = int(d)
    if d == 1:
        return sympy.Integer(0)
    if expr.is_Integer:
        return sympy.Integer(int(expr) % d)
    _, rest = _split(expr, d)
    if _within(rest, d):
        return rest
    return ModularIndexing(rest, sympy.Integer(d))


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, acc = [], 1
    for size in reversed(shape):
        strides.append(acc)
        acc = acc * (max(int(size), 1) if is_static(size) else size)
    return tuple(reversed(strides))


def linearize(index: list[sympy.Expr], strides: tuple[int, ...], offset: int = 0) -> sympy.Expr:
    return join_dimensions(sympy.expand(sum((i * s for i, s in zip(index, strides)), sympy.Integer(offset))))


def join_dimensions(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with split dimensions joined again: ``c*d*(e // d) + c*(e % d)`` is ``c*e`` and
    ``c*d*((e // d) % m) + c*(e % d)`` is ``c*(e % (d*m))`` (static ``d``, ``m``).

    A reshape splits a dim into ``e // d`` and ``e % d``; when the tensor is read where those
    dims are adjacent in memory (the reshape of a dense tensor, a view of a permuted tensor whose
    permutation is undone), the flat index is the joined one: no division left, and the access
    is visibly contiguous to triton's vectorizer (Inductor's ``join_dimensions``)."""
    if not expr.has(ModularIndexing):
        return expr
    changed = True
    while changed:
        changed = False
        for term in sympy.Add.make_args(expr):
            c, mod = term.as_coeff_Mul()
            if not isinstance(mod, ModularIndexing) or not mod.args[1].is_Integer:
                continue
            e, d = mod.args
            div = FloorDiv(e, d)
            if expr.coeff(div) == c * d:  # c*d*(e // d) + c*(e % d) == c*e
                expr = sympy.expand(expr - c * d * div - term + c * e)
                changed = True
                break
            for other in sympy.Add.make_args(expr):
                oc, outer = other.as_coeff_Mul()
                if isinstance(outer, ModularIndexing) and outer.args[0] == div and outer.args[1].is_Integer \
                        and oc == c * d:  # c*d*((e // d) % m) + c*(e % d) == c*(e % (d*m))
                    expr = sympy.expand(expr - other - term + c * ModularIndexing(e, d * outer.args[1]))
                    changed = True
                    break
            if changed:
                break
    return expr


def delinearize(flat: sympy.Expr, shape: tuple[int, ...], *, in_range: bool = False) -> list[sympy.Expr]:
    """Multi-index of the element at contiguous position ``flat`` in ``shape``.

    ``in_range``: ``0 <= flat < numel`` wherever the index is used (elsewhere loads are masked),
    so the outermost dim needs no modulo: ``(x - 1536) // 64`` stays joinable with its ``% 64``
    partner (see :func:`join_dimensions`) where ``((x - 1536) // 64) % 12`` would not be."""
    out = []
    outermost = in_range
    for size, stride in zip(shape, contiguous_strides(shape)):
        if size == 1:
            out.append(sympy.Integer(0))
            continue
        q = floordiv(flat, stride)
        out.append(q if outermost else modulo(q, size))
        outermost = False
    return out


def in_block_index(expr: sympy.Expr, spaces: list[tuple[sympy.Symbol, list, tuple]]) -> sympy.Expr:
    """``expr`` with each loop variable written as a division of its block index, the nested
    divisions merged and split dims joined again.

    ``spaces``: ``(block index symbol, loop variables, their sizes)`` per index space (``xindex``
    with the kernel's x dims, ``rindex`` with its reduced dims...). A loop variable ``x2 =
    xindex % 2304`` read as ``x2 % 64`` is a remainder of a remainder, through which triton's
    axis analysis sees no contiguity (scalar loads); ``xindex % 64`` it sees (128-bit loads).
    Inductor likewise indexes with divisions of the block index. Static sizes only (else
    ``expr`` is returned as it is)."""
    subs = {}
    for base, syms, sizes in spaces:
        if not all(is_static(s) for s in sizes):
            return expr
        strides = contiguous_strides(tuple(sizes))
        outermost = True
        for sym, size, stride in zip(syms, sizes, strides):
            if not isinstance(sym, sympy.Symbol) or int(size) == 1:
                continue
            value = base if stride == 1 else FloorDiv(base, sympy.Integer(stride))
            subs[sym] = value if outermost else ModularIndexing(value, sympy.Integer(size))
            outermost = False
    if not subs or not (expr.free_symbols & set(subs)):
        return expr
    return join_dimensions(sympy.expand(_merge_divisions(expr.xreplace(subs))))


def _merge_divisions(expr: sympy.Expr) -> sympy.Expr:
    """``(a // b) // c`` is ``a // (b*c)``; ``(a % m) // d`` is ``(a // d) % (m // d)`` and
    ``(a % m) % d`` is ``a % d`` when ``d`` divides ``m`` (non-negative ``a``)."""
    if expr.is_Atom:
        return expr
    args = [_merge_divisions(a) for a in expr.args]
    if isinstance(expr, FloorDiv) and args[1].is_Integer:
        a, d = args[0], int(args[1])
        if d == 1:
            return a
        if isinstance(a, FloorDiv) and a.args[1].is_Integer:
            return FloorDiv(a.args[0], a.args[1] * d)
        if isinstance(a, ModularIndexing) and a.args[1].is_Integer and int(a.args[1]) % d == 0:
            m = int(a.args[1]) // d
            return sympy.Integer(0) if m == 1 else ModularIndexing(_merge_divisions(FloorDiv(a.args[0], d)), m)
        return FloorDiv(a, args[1])
    if isinstance(expr, ModularIndexing) and args[1].is_Integer:
        a, d = args[0], int(args[1])
        if isinstance(a, ModularIndexing) and a.args[1].is_Integer and int(a.args[1]) % d == 0:
            return ModularIndexing(a.args[0], args[1])
        return ModularIndexing(a, args[1])
    return expr.func(*args)
