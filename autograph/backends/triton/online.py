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


WELFORD_KINDS = ("welford_mean", "welford_m2")


def welford_group(items: list) -> list:
    """The Welford items at the head of ``items`` computed by one loop: a mean and an M2 item of
    the same input side by side, else the first alone."""
    first = items[0]
    if len(items) > 1 and isinstance(items[1], ReductionItem) and items[1].input is first.input \
            and {first.kind, items[1].kind} == set(WELFORD_KINDS):
        return items[:2]
    return items[:1]


def _div(a: str, b: str) -> str:
    """IEEE division (triton's float32 ``/`` is approximate on the GPU)."""
    return f"(tl.math.div_rn({a}, {b}) if {a}.dtype == tl.float32 else {a} / {b})"


def _in_acc(k, item: ReductionItem, value: str, acc_dtype) -> str:
    from autograph.backends.triton.codegen import tl_dtype

    return value if compute_dtype(item.input.dtype) == acc_dtype else k.emit(f"{value}.to({tl_dtype(acc_dtype)})")


def write_welford(k, items: list) -> None:
    """The mean and M2 (sum of squared deviations) of each row in one loop over it.

    The values are shifted by the row's first element ``k`` (as the two-pass form: a large mean
    with a small spread keeps its digits, a constant row has M2 = 0 exactly); each lane keeps
    Welford's running count, mean and M2 of ``x - k``; the lanes are merged at the end with
    Chan's formula (``M2 = sum(M2_i) + sum(n_i (mean_i - mean)^2)``, the mean as a weighted
    average with weights ``n_i / n``: nothing overflows for finite values). Where the Welford
    mean is not finite (an inf or NaN in the row) the mean is the plain ``sum / n``, as eager
    gives there; a finite row whose deviations overflow has M2 = inf (its variance is inf)."""
    from autograph.backends.triton.codegen import CannotFuse, _row_reduce, nan_max, tl_dtype

    if k.persistent:
        raise CannotFuse("Welford items are written for looped rows only")
    first = items[0]
    acc_dtype = compute_dtype(first.buffer.dtype)
    acc = tl_dtype(acc_dtype)
    names = [f"acc{k.counter + i}" for i in range(5)]
    k.counter += 5
    count, mean, m2, total, absmax = names
    for name in names:
        k.line(f"{name} = tl.full([XBLOCK, RBLOCK], 0.0, {acc})")
    k.space = "x"  # the shift: the row's first element, read once per row
    rsyms = set(k.rsyms)
    shift = _in_acc(k, first, str(first.input.load(k.handler, [sympy.Integer(0) if i in rsyms else i
                                                                for i in k.full_index])), acc_dtype)
    k.open_rloop()
    k.space = "xr"
    raw = _in_acc(k, first, str(first.input.load(k.handler, list(k.full_index))), acc_dtype)
    v = k.emit(f"{raw} - {shift}")
    n1 = k.emit(f"{count} + 1.0")
    delta = k.emit(f"{v} - {mean}")
    new_mean = k.emit(f"{mean} + {_div(delta, n1)}")
    k.line(f"{m2} = tl.where(xrmask, {m2} + {delta} * ({v} - {new_mean}), {m2})")
    k.line(f"{mean} = tl.where(xrmask, {new_mean}, {mean})")
    k.line(f"{count} = tl.where(xrmask, {n1}, {count})")
    k.line(f"{total} = tl.where(xrmask, {total} + {raw}, {total})")
    k.line(f"{absmax} = tl.where(xrmask, {nan_max(absmax, f'tl.abs({raw})')}, {absmax})")
    k.close_rloop()
    n = k.emit(f"tl.sum({count}, 1)[:, None]")
    weight = k.emit(_div(count, n))
    shifted_mean = k.emit(f"tl.sum({mean} * {weight}, 1)[:, None]")
    deviation = k.emit(f"{mean} - {shifted_mean}")
    row_mean = k.emit(f"{shift} + {shifted_mean}")
    row_m2 = k.emit(f"tl.sum({m2} + {count} * {deviation} * {deviation}, 1)[:, None]")
    row_total = k.emit(f"tl.sum({total}, 1)[:, None]")
    finite_row = k.emit(f'{_row_reduce(k, "max", absmax, True)} < float("inf")')
    plain_mean = k.emit(_div(row_total, n))
    out = {
        "welford_mean": k.emit(f'tl.where(tl.abs({row_mean}) < float("inf"), {row_mean}, {plain_mean})'),
        "welford_m2": k.emit(f'tl.where({finite_row} & (({row_m2} != {row_m2}) | (tl.abs({row_m2}) == float("inf"))), '
                             f'float("inf"), {row_m2})'),
    }
    k.space = "x"
    for item in items:
        k.count_op(item.kind)
        out_index, _ = k.index_for(item.buffer.shape)
        k.store(item.buffer, out_index, out[item.kind], "x")
