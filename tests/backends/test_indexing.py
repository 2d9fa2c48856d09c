"""Index simplification is exact: checked by brute force over every symbol value."""
from __future__ import annotations

import itertools

import sympy

from autograph.backends.triton.codegen import texpr
from autograph.backends.triton.indexing import floordiv, modulo, symbol


def _eval(expr, env):
    return eval(texpr(expr), {}, env)  # texpr prints Python-compatible integer arithmetic


def test_floordiv_and_modulo_match_python_semantics_exhaustively():
    i, j = symbol("i", 5), symbol("j", 3)
    cases = [5 * j + i, 4 - i + 5 * j, 2 - i + 5 * j, 7 * j + i, 3 * i + 2, 15 * j + 5 * i + 1, i * j + 3]
    for expr in cases:
        for d in (1, 2, 3, 5, 7, 15):
            q, r = floordiv(sympy.expand(expr), d), modulo(sympy.expand(expr), d)
            for iv, jv in itertools.product(range(5), range(3)):
                env = {"i": iv, "j": jv}
                value = _eval(expr, env)
                assert _eval(q, env) == value // d, (expr, d, q)
                assert _eval(r, env) == value % d, (expr, d, r)


def test_exact_splits_simplify_away():
    i, j = symbol("i", 5), symbol("j", 3)
    assert floordiv(5 * j + i, 5) == j
    assert modulo(5 * j + i, 5) == i


def test_ranges_belong_to_the_symbol_not_to_the_process():
    """The same index simplifies the same way whatever other kernels made before (a wider
    ``x0`` elsewhere must not weaken this kernel's range facts)."""
    symbol("x0", 4096)  # another kernel's x0 over a wide range
    x0, x1 = symbol("x0", 16), symbol("x1", 8)
    assert floordiv(16 * x1 + x0, 16) == x1
    assert modulo(16 * x1 + x0, 16) == x0
    assert symbol("x0", 16) == x0 and symbol("x0", 4096) != x0


def test_shifted_floordiv_keeps_a_non_negative_dividend_and_joins_back():
    """``(x - 1536) // 64`` is ``x // 64 - 24`` (its dividend is provably non-negative), and
    ``64*((x - 1536) // 64) + (x - 1536) % 64`` joins back to ``x - 1536``."""
    from autograph.backends.triton.indexing import FloorDiv, join_dimensions

    x = symbol("x", 2304)
    q = floordiv(x - 1536, 64)
    assert q == FloorDiv(x, 64) - 24
    assert join_dimensions(sympy.expand(64 * q + modulo(x - 1536, 64))) == x - 1536
    i = symbol("i", 768)
    assert join_dimensions(sympy.expand(64 * modulo(floordiv(i, 64), 12) + modulo(i, 64))) == i
    for xv in range(1536, 2304):  # exact wherever the shifted index is in range
        assert _eval(q, {"x": xv}) == (xv - 1536) // 64


def test_block_index_form_merges_nested_divisions_exactly():
    """Loop variables written as divisions of the block index: ``(x2 // 64)`` with ``x2 =
    xindex % 2304`` becomes ``(xindex // 64) % 36`` (what triton's vectorizer follows), and the
    value is the same for every index."""
    from autograph.backends.triton.indexing import FloorDiv, ModularIndexing, in_block_index

    x0, x1, x2 = symbol("x0", 3), symbol("x1", 5), symbol("x2", 2304)
    xindex = sympy.Symbol("xindex", integer=True, nonnegative=True)
    expr = sympy.expand(-786432 + 32768 * floordiv(x2, 64) + 393216 * x0 + 64 * x1 + modulo(x2, 64))
    out = in_block_index(expr, [(xindex, [x0, x1, x2], (3, 5, 2304))])
    assert out.has(ModularIndexing(FloorDiv(xindex, 64), 36)) and not out.has(x2)
    contiguous = in_block_index(sympy.expand(11520 * x0 + 2304 * x1 + x2), [(xindex, [x0, x1, x2], (3, 5, 2304))])
    assert contiguous == xindex
    for flat in range(0, 3 * 5 * 2304, 7):
        env = {"x0": flat // (5 * 2304), "x1": (flat // 2304) % 5, "x2": flat % 2304}
        assert _eval(out, {"xindex": flat}) == _eval(expr, env)
