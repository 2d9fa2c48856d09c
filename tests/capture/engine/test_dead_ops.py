"""An unused op is dropped from the graph only when its real kernel accepts its dtypes: eager
raises a kernel's dtype error (``bitwise_not`` of a float tensor) even when the result is unused,
and the fake run does not check dtypes."""
from __future__ import annotations

import pytest
import torch

import autograph
from tests.capture.harness import Harness


def _outcome(fn, *args):
    try:
        return ("value", fn(*args))
    except Exception as exc:  # noqa: BLE001 - compared with eager's
        return ("raised", type(exc), str(exc))


def unused_beside_an_output(x, v):
    y = x + 1
    v.bitwise_not()
    return y


def unused_only(x):
    x.float().bitwise_not()
    return 1


def unused_function_call(x):
    torch.bitwise_left_shift(x, 1)  # no float kernel either
    return x * 2


@pytest.mark.parametrize("fn, args", [
    (unused_beside_an_output, (torch.ones(2), torch.arange(4.0))),
    (unused_only, (torch.ones(2),)),
    (unused_function_call, (torch.ones(3),)),
])
def test_unused_op_raises_its_kernels_dtype_error(fn, args):
    want = _outcome(fn, *args)
    assert want[0] == "raised"
    compiled = autograph.compile(fn, backend="eager")
    for _ in range(2):
        assert _outcome(compiled, *args) == want


def test_unused_op_the_kernel_accepts_is_still_dropped():
    def f(x):
        x.sin()
        torch.cos(x)
        return x + 1

    h = Harness()
    c = h.compile(f)
    torch.testing.assert_close(c(torch.ones(3)), torch.ones(3) + 1)
    names = [getattr(t, "__name__", t) for t in h.backend.targets()]
    assert "sin" not in names and "cos" not in names, names


def test_unused_int_op_the_kernel_accepts_is_dropped():
    def f(x):
        x.bitwise_not()  # an int kernel exists: nothing to raise
        return x + 1

    h = Harness()
    c = h.compile(f)
    assert torch.equal(c(torch.arange(3)), torch.arange(3) + 1)
    assert "bitwise_not" not in [getattr(t, "__name__", t) for t in h.backend.targets()]
