"""``functools.wraps``/``update_wrapper`` on a function made in the call store ``__name__``,
``__qualname__``, ``__doc__`` and ``__module__`` in the function's own slots, ``__wrapped__``
and the wrapped function's attributes in its ``__dict__`` (families/functions.py
``_in_namespace``), so the function returned or kept across a break is the one eager makes."""
from __future__ import annotations

import contextlib
import functools
import io

import torch

from tests.capture.harness import Harness


def wrapped(a):
    "the wrapped function's doc"
    return a * 3


wrapped.extra = 5


def returns_a_wrapper(x):
    @functools.wraps(wrapped)
    def inner(*args):
        return wrapped(*args)
    return x + 1, inner


def wrapper_across_a_break(x):
    def inner(*args):
        return wrapped(*args)
    functools.update_wrapper(inner, wrapped)
    print("break")
    return x + inner(1), inner


def _facts(fn):
    return (fn.__name__, fn.__qualname__, fn.__doc__, fn.__module__, fn.__wrapped__ is wrapped,
            dict(fn.__dict__), fn(2))


def test_returned_wrapper_has_the_wrapped_names():
    h = Harness()
    compiled = h.compile(returns_a_wrapper)
    for _ in range(2):
        assert _facts(compiled(torch.ones(2))[1]) == _facts(returns_a_wrapper(torch.ones(2))[1])
    assert h.breaks == []


def test_wrapper_kept_across_a_break():
    h = Harness()
    compiled = h.compile(wrapper_across_a_break)
    with contextlib.redirect_stdout(io.StringIO()):
        for _ in range(2):
            got, expected = compiled(torch.ones(2)), wrapper_across_a_break(torch.ones(2))
            torch.testing.assert_close(got[0], expected[0])
            assert _facts(got[1]) == _facts(expected[1])
