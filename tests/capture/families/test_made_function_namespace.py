"""Functions made during capture (families/functions.py ``NestedFunctionValue``) have the
attributes ``functools.update_wrapper`` reads and writes: ``__annotations__`` (made on first read,
then kept), ``__dict__`` (one dict with the attributes stored on the function). So decorators
built with ``functools.wraps`` and ``@contextlib.contextmanager`` defined inside the compiled
function are captured."""
from __future__ import annotations

import contextlib
import functools

import torch

from tests.capture.checks import check


def wraps_a_local_function(x):
    def inner(t):
        return t * 2

    @functools.wraps(inner)
    def wrapper(t):
        return inner(t) + 1

    inner.tag = "kept"
    return wrapper(x), wrapper.__name__, wrapper.__wrapped__ is inner, wrapper.__annotations__


def test_functools_wraps_on_functions_made_in_the_call():
    h = check(wraps_a_local_function, lambda: (torch.randn(3),))
    assert h.breaks == []


def annotations_and_namespace(x):
    def f(t: int) -> int:
        return t

    def g(t):
        return t

    g.__dict__.update({"a": 1})
    g.b = 2
    first = g.__annotations__
    return x + g.a + g.b, sorted(g.__dict__), first is g.__annotations__, f.__annotations__


def test_annotations_and_dict_of_functions_made_in_the_call():
    h = check(annotations_and_namespace, lambda: (torch.randn(3),))
    assert h.breaks == []


def local_contextmanager(x):
    @contextlib.contextmanager
    def scaled(t):
        try:
            yield t.sin()
        finally:
            pass

    with scaled(x) as y:
        return y.cos()


def test_contextmanager_defined_in_the_function():
    h = check(local_contextmanager, lambda: (torch.randn(3),))
    assert h.breaks == []
