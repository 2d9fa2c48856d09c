"""A list or dict display (``[*a, f(x), *b]``, ``{**d, k: f(x)}``) or a comprehension whose
element breaks the graph: the container being built arrives in the resume function as a
parameter, and what ``LIST_APPEND``/``LIST_EXTEND``/``MAP_ADD``/``DICT_UPDATE`` add to it
there must happen to the real object (capture/engine/interpreter.py)."""
from __future__ import annotations

import pytest
import torch

import autograph


def _list_display(x, a):
    return [*a, print("b") or x * 2, *a]


def _dict_display(x, d):
    return {**d, "k": print("b") or x * 2, **d}


def _list_comprehension(x, a):
    return [print("b") or x * v for v in a]


def _dict_comprehension(x, a):
    return {v: print("b") or x * v for v in a}


@pytest.mark.parametrize("fn,arg", [
    (_list_display, [1, 2]), (_dict_display, {"a": 1}), (_list_comprehension, [1, 2, 3]),
    (_dict_comprehension, [1, 2, 3]),
])
def test_items_added_after_the_break_are_kept(fn, arg, capsys):
    autograph.reset()
    compiled = autograph.compile(fn, backend="eager")
    for scale in (1.0, 2.0):
        x = torch.full((1,), scale)
        want = repr(fn(x, arg))
        eager_printed = capsys.readouterr().out
        assert repr(compiled(x, arg)) == want
        assert capsys.readouterr().out == eager_printed
    autograph.reset()
