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
