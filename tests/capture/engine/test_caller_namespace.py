"""``globals()``, and ``eval``/``exec`` given no globals, read the namespace of the frame that
calls them: in compiled code that frame's globals are autograph's namespace, so a function that
makes such a call, or calls a helper that does, runs as plain Python (families/frames.py)."""
from __future__ import annotations

import pytest
import torch

import autograph

SCALE = 3.0


def _lookup(name):
    return globals()[name]


def _store(name, value):
    globals()[name] = value


def reads_a_global_through_a_helper(x):
    return x * _lookup("SCALE")


def writes_a_global_through_a_helper(x):
    _store("SCALE", x.sum().item())
    return x * SCALE


def evaluates_with_the_callers_names(x):
    return eval("x * 2 + SCALE")


def executes_in_the_module(x):
    exec("global SCALE\nSCALE = 5.0")
    return x * SCALE


def globals_under_another_name(x):
    namespace = globals
    return namespace()["SCALE"] * x, namespace() is _module_globals()


def evaluates_in_given_globals(x):
    return eval("y + 1", {"y": x}), x * 2


def _module_globals():
    return globals()


@pytest.fixture(autouse=True)
def _fresh():
    global SCALE
    autograph.reset()
    yield
    SCALE = 3.0
    autograph.reset()


@pytest.mark.parametrize("fn", [
    reads_a_global_through_a_helper, writes_a_global_through_a_helper, evaluates_with_the_callers_names,
    executes_in_the_module, globals_under_another_name, evaluates_in_given_globals,
])
def test_the_callers_namespace_is_the_modules(fn):
    global SCALE
    compiled = autograph.compile(fn, backend="eager")
    for k in (1.0, 2.0, 4.0):
        SCALE = 3.0
        want = repr(fn(torch.full((2,), k))), SCALE
        SCALE = 3.0
        got = repr(compiled(torch.full((2,), k))), SCALE
        assert got == want
