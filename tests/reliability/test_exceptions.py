"""Exceptions raised by user code inside compiled functions look exactly like eager ones.

Same type, same message, and the traceback reaches the user's line (file:line),
wherever the raise happens: in the graph part, after a graph break (resume
function), in the natively run breaking call, or in an inlined callee.
"""
from __future__ import annotations

import traceback

import pytest
import torch

import autograph

HERE = __file__


def _line_of(fn, marker: str) -> int:
    import inspect
    lines, start = inspect.getsourcelines(fn)
    [offset] = [i for i, text in enumerate(lines) if marker in text]
    return start + offset


def raise_in_graph(x):
    y = x * 2
    z = y.view(7, 7)  # RAISE-GRAPH
    return z + 1


def raise_after_break(x):
    y = x + 1
    print("", end="")  # graph break
    if y.sum() > -1e9:
        raise ValueError(f"bad value {y.shape[0]}")  # RAISE-RESUME
    return y


def _breaking_callee(n):
    raise KeyError(f"missing {n}")  # RAISE-NATIVE


def raise_in_breaking_call(x):
    y = x.sin()
    print("", end="")
    _breaking_callee(int(y.shape[0]))
    return y


def _inlined_helper(t):
    return t.reshape(5, 5)  # RAISE-INLINED


def raise_in_inlined_callee(x):
    return _inlined_helper(x * 3) + 1


def _torch_error_in_graph(x):
    return torch.mm(x, x)  # RAISE-MM


def raise_at_run_time_in_graph(x, idx):
    y = x + 1
    return y[idx] * 2  # RAISE-RUNTIME


CASES = [
    pytest.param(raise_at_run_time_in_graph, "RAISE-RUNTIME", lambda: (torch.randn(4), torch.tensor([1, 10])),
                 id="RAISE-RUNTIME"),
    pytest.param(raise_in_graph, "RAISE-GRAPH", lambda: (torch.randn(4),), id="RAISE-GRAPH"),
    pytest.param(raise_after_break, "RAISE-RESUME", lambda: (torch.randn(3),), id="RAISE-RESUME"),
    pytest.param(raise_in_breaking_call, "RAISE-NATIVE", lambda: (torch.randn(2),), id="RAISE-NATIVE"),
    pytest.param(raise_in_inlined_callee, "RAISE-INLINED", lambda: (torch.randn(4),), id="RAISE-INLINED"),
    pytest.param(_torch_error_in_graph, "RAISE-MM", lambda: (torch.randn(3, 2),), id="RAISE-MM"),
]

MARKER_FN = {
    "RAISE-GRAPH": raise_in_graph, "RAISE-RESUME": raise_after_break, "RAISE-NATIVE": _breaking_callee,
    "RAISE-INLINED": _inlined_helper, "RAISE-RUNTIME": raise_at_run_time_in_graph, "RAISE-MM": _torch_error_in_graph,
}


def _eager_error(fn, args):
    with pytest.raises(Exception) as info:
        fn(*args)
    return info.value


@pytest.mark.parametrize("fn,marker,make_args", CASES)
def test_user_exception_same_as_eager_and_points_at_user_line(eager_settings, fn, marker, make_args):
    args = make_args()
    expected = _eager_error(fn, args)
    compiled = autograph.compile(fn)
    for attempt in range(2):  # first call: capture + run; second: cache hit
        with pytest.raises(type(expected)) as info:
            compiled(*args)
        assert type(info.value) is type(expected)
        assert str(info.value) == str(expected)
        frames = traceback.extract_tb(info.value.__traceback__)
        line = _line_of(MARKER_FN[marker], f"# {marker}")
        assert any(f.filename == HERE and f.lineno == line for f in frames), (
            f"attempt {attempt}: no frame at {HERE}:{line} in\n" + "".join(traceback.format_list(frames)))


def test_run_time_graph_error_keeps_type_and_message(eager_settings):
    """RAISE-RUNTIME on first call and cache hit: same exception type and message as eager."""
    x, idx = torch.randn(4), torch.tensor([1, 10])
    expected = _eager_error(raise_at_run_time_in_graph, (x, idx))
    compiled = autograph.compile(raise_at_run_time_in_graph)
    for _ in range(2):
        with pytest.raises(type(expected)) as info:
            compiled(x, idx)
        assert str(info.value) == str(expected)
