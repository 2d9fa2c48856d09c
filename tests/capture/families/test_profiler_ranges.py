"""``torch.autograd.profiler.record_function`` is a no-op context in captured code, as in
TorchDynamo (families/profiler_ranges.py): no break; a break inside the block moves to the
``with`` statement, where Python runs the real one."""
from __future__ import annotations

import torch
from torch.autograd.profiler import record_function

from tests.capture.checks import check


def ranged(x):
    with record_function("outer"):
        y = x * 2
        with torch.profiler.record_function("inner", "args") as r:
            y = y + 1
    return y.sin(), type(r) is record_function


def test_record_function_blocks_are_inlined_in_one_graph():
    h = check(ranged, lambda: (torch.randn(3),))
    assert h.captures == 1 and h.breaks == []


def breaks_inside(x):
    y = x + 1
    with record_function("r"):
        if y.sum() > 0:  # data-dependent: a break inside the block
            y = y * 2
    return y - 1


def test_a_break_inside_the_block_runs_the_block_in_python():
    h = check(breaks_inside, lambda: (torch.randn(3),), calls=4)
    assert h.breaks and all(b.lineno for b in h.breaks)


def test_record_function_under_a_real_profiler_still_runs_correctly():
    f = check(ranged, lambda: (torch.randn(3),)).compile(ranged)
    with torch.profiler.profile():
        out, same_type = f(torch.ones(3))
    assert torch.equal(out, (torch.ones(3) * 2 + 1).sin()) and same_type


def profiled_with_a_break(x):
    y = x**2
    with torch.profiler.profile():
        y = y + 2
        with torch.profiler.record_function("my_function"):
            z = y**3
            z.tolist()  # graph break
            z = z + 1
    return z


def test_a_profiler_block_around_a_range_with_a_break_starts_and_stops_its_trace():
    """upstream test_ctx_manager's test_torch_profiler: the profiler's own action table (a dict
    keyed by tuples of enum members) must be read as Python reads it, or the block's exit stops a
    trace that never started (AssertionError)."""
    check(profiled_with_a_break, lambda: (torch.randn(2, 2, requires_grad=True),))
