"""The class of a tensor as Python sees it: ``isinstance``/``type`` of parameters, buffers
and inputs are the real tensor's, not the fake tensor's (capture folds these tests)."""
from __future__ import annotations

import torch

from tests.capture.checks import check


def linear():
    torch.manual_seed(0)
    return torch.nn.Linear(3, 3)


def parameter_or_raise(mod, x):
    """The shape of ``nn.Module.get_parameter``: a raise when the attribute is not a Parameter."""
    p = mod.weight
    if isinstance(p, torch.nn.Parameter):
        return x + 1
    raise AttributeError("weight is not an nn.Parameter")


def parameter_by_name(mod, name):
    param = getattr(mod, name)
    if not isinstance(param, torch.nn.Parameter):
        raise AttributeError("`" + name + "` is not an nn.Parameter")
    return param


def class_tests(t):
    return (isinstance(t, torch.nn.Parameter), type(t) is torch.nn.Parameter,
            isinstance(t * 2, torch.nn.Parameter), isinstance(t, (int, torch.nn.Parameter)),
            isinstance(t, torch.Tensor))


def buffer_flags(mod, x):
    return (isinstance(mod.flagged, torch.nn.Buffer), isinstance(mod.plain, torch.nn.Buffer),
            isinstance(mod.flagged, torch.nn.Parameter), x + 1)


def test_module_parameter_is_a_parameter():
    m = linear()
    check(parameter_or_raise, lambda: (m, torch.randn(3)))


def test_parameter_read_by_name_is_returned_not_refused():
    m = linear()
    h = check(parameter_by_name, lambda: (m, "weight"))
    assert h.compile(parameter_by_name)(m, "weight") is m.weight


def test_parameter_passed_as_argument_keeps_its_class():
    """(``check`` clones its arguments, which would turn a Parameter into a plain tensor.)"""
    from tests.capture.harness import Harness
    m = linear()
    f = Harness().compile(class_tests)
    for arg in (m.weight, torch.randn(3), m.bias):
        assert f(arg) == class_tests(arg)


def test_buffer_flag_answers_like_eager():
    m = linear()
    m.flagged = torch.nn.Buffer(torch.ones(2))  # nn.Buffer's isinstance reads a flag on the tensor
    m.register_buffer("plain", torch.ones(2))
    check(buffer_flags, lambda: (m, torch.randn(3)))
