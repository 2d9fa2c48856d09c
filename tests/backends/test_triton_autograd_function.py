"""A graph calling a user ``torch.autograd.Function`` with inputs that require grad compiles
with the Triton backend: AOTAutograd traces the user's forward and backward into kernels."""
import torch

import autograph
from autograph.explain.render import kernels_of
from tests.capture.families.test_autograd_functions import PairNewStyle, SiLUish


def _fn(x):
    a, b = PairNewStyle.apply(x, x + 1)
    return SiLUish.apply(a * 2).sum() + b.sum()


def test_custom_function_forward_and_backward_as_triton_kernels():
    compiled = autograph.compile(_fn, backend="triton")
    x = torch.randn(8, requires_grad=True)
    y = compiled(x)
    y.backward()
    got, x.grad = x.grad, None
    expected = _fn(x)
    expected.backward()
    torch.testing.assert_close(y, expected)
    torch.testing.assert_close(got, x.grad)
    entry = compiled.entries[0] if hasattr(compiled, "entries") else None
    graphs = entry.result.graphs if entry is not None else []
    assert graphs and kernels_of(graphs[0].compiled), "expected generated Triton kernels"
