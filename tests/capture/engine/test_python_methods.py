"""A method call left to Python at a graph break is made as CPython's LOAD_METHOD + CALL makes
it (the descriptor called with the object), so a wrong call raises CPython's own TypeError text
(naming the class that defines the method, not the instance's class)."""
from __future__ import annotations

import io

import pytest
import torch

import autograph
from autograph.capture.engine.python_methods import method_call

_SINK = io.StringIO()


def _error(fn, *args):
    try:
        fn(*args)
    except TypeError as exc:
        return str(exc)
    return None


def _after_break(x, v):
    y = x + 1
    print("break", file=_SINK)
    v.__format__()
    return y


def _tensor_method(x, v):
    y = x + 1
    v.apply_()
    return y


def _in_try(x, v):
    try:
        y = x + 1
        v.__format__()
    except ValueError:
        y = None
    return y


def _no_break_before(x, v):
    y = x + 1
    v.__format__()
    return y * 2


@pytest.mark.parametrize("fn, value", [(_no_break_before, None), (_no_break_before, 3), (_after_break, range(1, 7, 2)), (_after_break, "abc"),
                                       (_tensor_method, torch.arange(4.0)), (_after_break, None),
                                       (_in_try, None), (_in_try, range(3))])
def test_wrong_arguments_raise_cpythons_message(fn, value):
    want = _error(fn, torch.ones(2), value)
    assert want is not None
    compiled = autograph.compile(fn, backend="eager")
    assert _error(compiled, torch.ones(2), value) == want
    assert _error(compiled, torch.ones(2), value) == want


class Shadowed:
    def greet(self, k=1):
        return ("class", k)


def test_an_instance_attribute_shadows_the_method():
    obj = Shadowed()
    obj.greet = lambda k=2: ("instance", k)
    assert method_call("greet")(obj) == ("instance", 2)
    assert method_call("greet")(Shadowed(), 3) == ("class", 3)


class Dynamic:
    def __getattr__(self, name):
        return lambda *a: ("getattr", name, a)


def test_lookups_that_are_not_the_generic_one_bind():
    assert method_call("anything")(Dynamic(), 1) == ("getattr", "anything", (1,))
    assert method_call("upper")(str, "ab") == "AB"  # a type's own lookup: str.upper, unbound
    assert method_call("join")(", ", ["a", "b"]) == "a, b"
    assert method_call("__format__")(3, "03") == "003"
    with pytest.raises(TypeError, match=r"^object\.__format__\(\) takes exactly one argument"):
        method_call("__format__")(range(3))
    with pytest.raises(TypeError, match=r"takes no keyword arguments"):
        method_call("__format__")(range(3), spec="")
