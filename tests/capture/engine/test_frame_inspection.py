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


def locals_after_a_break(x, k):
    a = x * k
    print("break", file=_SINK)
    b = a + 1
    return b, sorted(locals())


def own_frame_after_a_break(x):
    y = x + 1
    print("break", file=_SINK)
    frame = sys._getframe()
    return y, frame.f_code.co_name, frame.f_lineno - frame.f_code.co_firstlineno


def locals_before_a_break(x):
    names = sorted(locals())
    y = x * 2
    print("break", file=_SINK)
    return y, names, sorted(vars())


class _Sink:
    def write(self, text):
        return len(text)


_SINK = _Sink()


@pytest.mark.parametrize("fn", [locals_after_a_break, own_frame_after_a_break, locals_before_a_break],
                         ids=lambda f: f.__name__)
def test_a_frame_read_anywhere_in_the_function_sees_pythons_frame(fn):
    """A frame read after a graph break ran in a resume function (its locals ``___stack0``, its
    name ``__resume_at_..``); before one, at a break made through a helper frame (``__a``, ``__f``)."""
    compiled = autograph.compile(fn, backend="eager")
    args = (torch.ones(2), 3) if fn is locals_after_a_break else (torch.ones(2),)
    for _ in range(3):
        want, got = fn(*args), compiled(*args)
        assert torch.equal(want[0], got[0])
        assert want[1:] == got[1:]


def test_a_name_like_a_frame_reader_with_arguments_still_compiles():
    def uses_vars_of_an_object(x, obj):
        return x * len(vars(obj)) + len(dir(obj))

    class O:
        def __init__(self):
            self.a = 1

    h = Harness()
    result = capture(uses_vars_of_an_object, (torch.ones(2), O()), {}, h.settings, wrap_nested=h.wrap)
    assert result.run_eagerly is None


def test_fullgraph_says_where_a_frame_read_after_a_break_is():
    h = Harness(fullgraph=True)
    with pytest.raises(CaptureError, match="locals"):
        capture(locals_after_a_break, (torch.zeros(2), 2), {}, h.settings, wrap_nested=h.wrap)
