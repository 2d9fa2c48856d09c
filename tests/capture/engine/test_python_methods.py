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


class _NoneMethod:
    greet = None


class _Kinds:
    @staticmethod
    def static():
        return "static"

    @classmethod
    def klass(cls):
        return "class"

    @property
    def prop(self):
        return lambda: "property"

    def plain(self):
        return "plain"


class _Slotted:
    __slots__ = ("a",)

    def plain(self):
        return "slotted"


class _CountingDict(dict):
    def __contains__(self, key):  # LOAD_METHOD looks the instance dict up as a dict
        raise AssertionError("__contains__ called")


class _OddDict:
    def plain(self):
        return "odd"


class _GetAttribute:
    def __getattribute__(self, name):
        return object.__getattribute__(self, name)

    def plain(self):
        return "getattribute"


def _lookup_cases():
    shadowed = Shadowed()
    shadowed.greet = lambda: "instance"
    odd = _OddDict()
    odd.__dict__ = _CountingDict(x=1)
    import types as _types
    t = torch.ones(2, requires_grad=True)
    return [(t, "backward"), (t, "add"), (t, "shape"), (torch.optim.SGD([t], lr=0.1), "step"),
            (torch.nn.Linear(2, 2), "forward"), (3, "__format__"), ("ab", "upper"), (str, "upper"),
            (_types, "SimpleNamespace"), (Shadowed(), "greet"), (shadowed, "greet"), (_NoneMethod(), "greet"),
            (_Kinds(), "static"), (_Kinds(), "klass"), (_Kinds(), "prop"), (_Kinds(), "plain"),
            (_Kinds(), "absent"), (_Slotted(), "plain"), (odd, "plain"), (_GetAttribute(), "plain"),
            (Dynamic(), "x"), ([1], "append"), ({}, "get"), (range(3), "index")]


def test_the_native_lookup_agrees_with_its_python_twin():
    from autograph.capture.engine import python_methods
    from autograph.guards import extension

    native = extension.load()
    if native is None:
        pytest.skip("autograph._native is not built")
    for obj, name in _lookup_cases():
        want = python_methods._python_unbound_method(obj, name)
        assert native.unbound_method(obj, name) is want, (obj, name)
    # the cases cover both answers
    answers = {python_methods._python_unbound_method(o, n) is None for o, n in _lookup_cases()}
    assert answers == {True, False}


def _backward(x, w):
    loss = (x * w).sum()
    loss.backward()  # a graph break: the method call is left to the transformed code
    return loss


def test_a_method_call_at_a_break_runs_no_python_lookup():
    """``loss.backward()`` at a break: the lookup LOAD_METHOD makes is the extension's, not a
    walk of the MRO in Python at every call (8,500 instructions of a training step)."""
    import sys

    from autograph.capture.engine import python_methods
    from autograph.guards import extension

    if extension.load() is None:
        pytest.skip("autograph._native is not built")
    w = torch.ones(2, requires_grad=True)
    compiled = autograph.compile(_backward, backend="eager")
    for _ in range(3):
        compiled(torch.ones(2), w)
    seen = []
    sys.setprofile(lambda frame, event, arg: seen.append(frame.f_code) if event == "call" else None)
    try:
        compiled(torch.full((2,), 2.0), w)
    finally:
        sys.setprofile(None)
    assert any(code.co_name == "backward" for code in seen)  # the call ran
    assert not [c for c in seen if c.co_filename == python_methods.__file__]
    assert torch.equal(w.grad, torch.full((2,), 5.0))
