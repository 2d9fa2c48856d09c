"""``vars(obj)`` is ``obj.__dict__`` (families/builtins.py): an object's attributes read and
written through it, a class namespace read by name, CPython's TypeError for an object without
``__dict__``; ``vars()`` with no argument reads the frame and breaks."""
from __future__ import annotations

import pytest
import torch

import autograph
from autograph.explain.explain import explain


class Holder:
    scale = 3


class Point:
    def __init__(self):
        self.w = 2.0
        self.n = 3


def through_vars(x, p):
    d = vars(p)
    d["n"] = d["n"] + 1
    return x * d["w"] + vars(Holder)["scale"], sorted(vars(p))


def test_vars_of_an_object_is_its_dict_read_and_written_in_the_graph():
    assert explain(through_vars, torch.ones(2), Point()).graph_break_count == 0
    compiled = autograph.compile(through_vars, backend="eager")
    for _ in range(3):
        plain_p, compiled_p = Point(), Point()
        plain, got = through_vars(torch.ones(2), plain_p), compiled(torch.ones(2), compiled_p)
        assert torch.equal(plain[0], got[0]) and plain[1] == got[1] and vars(plain_p) == vars(compiled_p)


def test_vars_of_an_object_without_a_dict_raises_cpythons_type_error():
    compiled = autograph.compile(through_vars, backend="eager")
    with pytest.raises(TypeError, match="vars\\(\\) argument must have __dict__ attribute"):
        compiled(torch.ones(2), 3)


def reads_its_frame(x):
    y = x + 1
    return y, sorted(vars())


def test_vars_without_an_argument_breaks_and_sees_the_frame():
    compiled = autograph.compile(reads_its_frame, backend="eager")
    assert compiled(torch.ones(2))[1] == reads_its_frame(torch.ones(2))[1] == ["x", "y"]
