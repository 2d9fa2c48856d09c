"""One-pass statistics for looped (wide) rows: online softmax.

A row wider than the persistent limit (``ir.PERSISTENT_MAX``) is reduced in a loop over
``RBLOCK`` chunks. Softmax decomposes into a max reduction, a sum of ``exp(x - max)`` and the
normalising pointwise pass: three loops over the row. When a kernel's max item is followed by a
sum whose input is ``exp(g - max)`` of the same ``g`` (recognised on the IR, see
:class:`ExprRecorder`), both are computed in one loop with a running max and a rescaled running
sum (Milakov and Gimelshein's online softmax, as Inductor's): two passes instead of three.

Rounding: the running sum is rescaled by ``exp(m_old - m_new)`` whenever the running max grows,
and the lanes by ``exp(m_lane - m_row)`` at the end, so the sum differs from the two-pass one by
a few ulps (the tolerance of float sums in ``tests/backends/test_triton_exactness.py``). The max
itself is exact. Rows of at most ``PERSISTENT_MAX`` elements keep the exact two-pass form.
"""
from __future__ import annotations

from typing import Any

import sympy

from autograph.backends.triton.ir import ReductionItem
from autograph.backends.triton.ops import OpsHandler, compute_dtype


class ExprRecorder(OpsHandler):
    """An ops handler whose values are the expressions themselves, as nested tuples: two IR
    values computing the same thing from the same loads record equal tuples."""

    def load(self, buffer, index):
        return ("load", buffer.name, sympy.expand(buffer.flat_index(index)))

    def constant(self, value, dtype):
        return ("constant", repr(value), dtype)

    def index_expr(self, expr, dtype):
        return ("index", sympy.sympify(expr), dtype)

    def masked(self, mask, body, other):
        return ("masked", mask, body(), other)

    def to_dtype(self, x, dtype, src_dtype=None):
        return ("to", x, dtype, src_dtype)


def _recording(name: str):
    return lambda self, *args: (name, *args)


for _name, _member in vars(OpsHandler).items():
    if callable(_member) and not _name.startswith("_") and _name not in vars(ExprRecorder) and _name != "pointwise":
        setattr(ExprRecorder, _name, _recording(_name))


def record(value, index) -> Any:
    """``value``'s element at ``index`` as an expression tuple (None if it cannot be recorded)."""
    try:
        return value.load(ExprRecorder(), list(index))
    except Exception:  # noqa: BLE001 - a value the recorder cannot follow is simply not matched
        return None


def is_online_softmax(k, first, second) -> bool:
    """``first`` is a float max and ``second`` the sum of ``exp(g - max)`` over the same ``g``
    (the max read per row), both looped in kernel ``k``: one pass can compute both."""
    if k.persistent or not (isinstance(first, ReductionItem) and isinstance(second, ReductionItem)):
        return False
    if (first.kind, second.kind) != ("max", "sum"):
        return False
    acc = compute_dtype(first.buffer.dtype)
    if not acc.is_floating_point or compute_dtype(second.buffer.dtype) != acc \
            or compute_dtype(first.input.dtype) != acc or compute_dtype(second.input.dtype) != acc:
        return False
    index = list(k.full_index)
    g = record(first.input, index)
    row_index, _ = k.index_for(first.buffer.shape)
    row_max = ("load", first.buffer.name, sympy.expand(first.buffer.flat_index(row_index)))
    return g is not None and record(second.input, index) == ("exp", ("sub", g, row_max))


def write_online_softmax(k, first: ReductionItem, second: ReductionItem) -> None:
    """The max and the sum of ``exp(g - max)`` of each row in one loop (see the module's doc)."""
    from autograph.backends.triton.codegen import _row_reduce, nan_max, tl_dtype

    acc = tl_dtype(compute_dtype(first.buffer.dtype))
    run_max, run_sum = f"acc{k.counter}", f"acc{k.counter + 1}"
    k.counter += 2
    k.line(f'{run_max} = tl.full([XBLOCK, RBLOCK], float("-inf"), {acc})')
    k.line(f"{run_sum} = tl.full([XBLOCK, RBLOCK], 0.0, {acc})")
    k.open_rloop()
    k.space = "xr"
    g = str(first.input.load(k.handler, list(k.full_index)))
    new_max = k.emit(nan_max(run_max, g))
    # rescale the lane's sum to the new max; while the max is -inf nothing has been added yet
    # (exp(-inf - -inf) would be NaN); a NaN or +inf element makes the sum NaN, as in eager
    rescale = k.emit(f"tl.where({new_max} == {run_max}, 1.0, tl.exp({run_max} - {new_max}))")
    term = k.emit(f'tl.where({new_max} == float("-inf"), 0.0, tl.exp({g} - {new_max}))')
    k.line(f"{run_sum} = tl.where(xrmask, {run_sum} * {rescale} + {term}, {run_sum})")
    k.line(f"{run_max} = tl.where(xrmask, {new_max}, {run_max})")
    k.close_rloop()
    row_max = _row_reduce(k, "max", run_max, True)
    lane_scale = k.emit(f"tl.where({run_max} == {row_max}, 1.0, tl.exp({run_max} - {row_max}))")
    total = k.emit(f"tl.sum({run_sum} * {lane_scale}, 1)[:, None]")
    # a row of -inf only: eager's exp(-inf - -inf) is NaN in every element
    total = k.emit(f'tl.where({row_max} == float("-inf"), float("nan"), {total})')
    k.space = "x"
    for item, value in ((first, row_max), (second, total)):
        k.count_op(item.kind)
        out_index, _ = k.index_for(item.buffer.shape)
        k.store(item.buffer, out_index, value, "x")
