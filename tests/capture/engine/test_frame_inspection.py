"""Code that inspects its call frames runs as plain Python: compiled frames are not Python's.

Without the rule, `sys._getframe(1)` in an inlined callee ran at a graph break inside the
transformed function and saw its generated line numbers (8. in eager, 354. compiled).
"""
from __future__ import annotations

import inspect
import sys
import warnings

import pytest
import torch

import autograph
from autograph.capture.engine.api import capture
from autograph.errors import CaptureError
from tests.capture.harness import Harness


@pytest.fixture(autouse=True)
def _fresh():
    autograph.reset()  # a function found to inspect frames stays eager for the process
    yield
    autograph.reset()


def _callers_line(x):
    caller = sys._getframe(1)
    return x + caller.f_lineno


def calls_a_frame_reader(x):
    return _callers_line(x * 2)


def reads_its_own_line(x):
    return x + inspect.currentframe().f_lineno


def warns(x):
    warnings.warn("careful", UserWarning, stacklevel=1)
    return x + 1


def _line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("fn", [calls_a_frame_reader, reads_its_own_line])
def test_frames_seen_are_pythons_own(fn):
    compiled = autograph.compile(fn, backend="eager")
    for _ in range(3):
        x = torch.zeros(2)
        assert torch.equal(compiled(x), fn(x))


def test_the_function_is_reported_as_run_eagerly_with_the_kind():
    compiled = autograph.compile(calls_a_frame_reader, backend="eager")
    compiled(torch.zeros(2))
    top = next(r for r in autograph.report().functions if r.qualname == "calls_a_frame_reader")
    assert top.ops_in_graphs == 0 and top.eager_calls == 1
    assert "inspects the calling frames" in (top.eager_reason or "")


def test_a_warning_names_the_functions_own_line():
    compiled = autograph.compile(warns, backend="eager")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled(torch.zeros(2))
        compiled(torch.zeros(2))
    assert [(w.filename, w.lineno) for w in caught] == [(__file__, _line_of(warns, "warnings.warn"))] * 2


def test_fullgraph_says_where_the_frames_are_read():
    h = Harness(fullgraph=True)
    with pytest.raises(CaptureError, match="inspects the calling frames"):
        capture(calls_a_frame_reader, (torch.zeros(2),), {}, h.settings, wrap_nested=h.wrap)
