"""A graph run by its own FX code raises with frames at the user's file:line."""
import traceback

import pytest
import torch

from autograph.capture.engine.graph_lines import with_user_lines
from tests.capture.harness import Harness


def index_twice(x, idx):
    y = x + 1
    return y[idx] * 2  # FAILS-HERE


def _line(marker: str) -> int:
    import inspect
    lines, start = inspect.getsourcelines(index_twice)
    return start + next(i for i, t in enumerate(lines) if marker in t)


def test_an_error_while_the_graph_runs_has_a_frame_at_the_user_line():
    f = Harness(backend="eager").compile(index_twice)
    x = torch.randn(4)
    torch.testing.assert_close(f(x, torch.tensor([1, 2])), index_twice(x, torch.tensor([1, 2])))
    with pytest.raises(IndexError) as info:
        f(x, torch.tensor([1, 10]))
    frames = traceback.extract_tb(info.value.__traceback__)
    last = frames[-1]
    assert (last.filename, last.lineno, last.name) == (__file__, _line("FAILS-HERE"), "forward")
    assert last.line.endswith("# FAILS-HERE")
    assert "^" not in "".join(traceback.format_tb(info.value.__traceback__)[-1:])  # no carets on graph columns


def test_anything_but_the_graphs_own_forward_is_left_alone():
    gm = torch.fx.symbolic_trace(lambda x: x + 1)
    wrapper = lambda *a: gm.forward(*a)  # noqa: E731 - a backend's own callable
    assert with_user_lines(gm, wrapper, __file__, 1) is wrapper
    assert with_user_lines(gm, gm, __file__, 1) is gm


def test_nodes_from_another_file_point_at_the_def_line():
    gm = torch.fx.symbolic_trace(lambda x: x.relu() + 1)  # nodes carry no stack trace of this file
    mapped = with_user_lines(gm, gm.forward, __file__, 7)
    assert mapped.__func__.__code__.co_filename == __file__
    lines = {ln for _, _, ln in mapped.__func__.__code__.co_lines() if ln is not None}
    assert lines == {7}
    torch.testing.assert_close(mapped(torch.tensor([-1.0, 2.0])), torch.tensor([1.0, 3.0]))
