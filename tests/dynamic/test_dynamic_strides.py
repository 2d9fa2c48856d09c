"""Automatic dynamic for strides (issue 30: "a stride change compiles more frames than Dynamo
does"): a tensor input whose strides alone change between calls (contiguous, then sliced with
step 2, then step 3) gets symbolic strides in the next capture, as Dynamo's automatic dynamic
does, instead of one capture per stride pattern. Results (values and strides) are eager's."""
from __future__ import annotations

import pytest
import torch

import autograph


pytestmark = pytest.mark.usefixtures("eager_settings")


def strided_inputs():
    torch.manual_seed(0)
    return [torch.randn(4, 6), torch.randn(4, 12)[:, ::2], torch.randn(4, 18)[:, ::3], torch.randn(4, 6),
            torch.randn(4, 30)[:, 1::5]]


def check(fn, inputs, **options):
    compiled = autograph.compile(fn, backend="eager", **options)
    for x in inputs:
        try:
            expected = fn(x)
        except Exception as exc:  # noqa: BLE001
            with pytest.raises(type(exc), match=str(exc)[:40].replace("(", r"\(").replace(")", r"\)")):
                compiled(x)
            continue
        got = compiled(x)
        for a, b in zip(got, expected) if isinstance(expected, tuple) else ((got, expected),):
            assert torch.equal(a, b) and a.stride() == b.stride()
    return compiled


@pytest.mark.parametrize("dynamic", [None, True])
def test_a_stride_change_alone_makes_the_strides_symbolic(dynamic):
    def f(x):
        return (x * 2 + 1).sum(0), x.t() @ x

    compiled = check(f, strided_inputs(), dynamic=dynamic)
    assert compiled.stats.captures == 2  # the first (static strides), then one symbolic for all steps
    assert not compiled.stats.errors


def test_code_reading_a_symbolic_stride_gets_the_run_s_value():
    def f(x):
        return x.contiguous().view(-1) + x.stride(0) * x.stride(1)

    compiled = check(f, strided_inputs())
    assert compiled.stats.captures == 2 and not compiled.stats.errors


def test_a_view_that_needs_contiguous_strides_raises_as_in_eager():
    def f(x):
        return x.view(-1) * 2

    check(f, strided_inputs())


def test_a_size_change_of_a_contiguous_tensor_is_not_a_stride_change():
    def f(x):
        return x + 1

    compiled = check(f, [torch.ones(4, 6), torch.ones(5, 6), torch.ones(7, 6)])
    assert compiled.stats.captures == 2
    guards = " ".join(g.describe() for g in compiled.entries[-1].guards.guards)
    assert "stride(" not in guards  # the contiguous stride follows the size: inferred, not symbolic


def test_static_mode_keeps_strides_static():
    def f(x):
        return x * 2

    compiled = check(f, strided_inputs(), dynamic=False)
    assert compiled.stats.captures == 4  # one per distinct stride pattern
