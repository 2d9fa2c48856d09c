"""``torch.autograd.Function.apply``: inlined (forward under no-grad, ctx bookkeeping as no-ops)
when no input requires grad; a graph break (the real apply runs) when one does."""
import torch

from tests.capture.checks import check
from tests.capture.harness import Harness

CALLS = []


class SiLUish(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k=1.702):
        ctx.save_for_backward(x)
        ctx.k = k
        return x * torch.sigmoid(k * x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(ctx.k * x)
        return g * (s + ctx.k * x * s * (1 - s)), None


class PairNewStyle(torch.autograd.Function):
    @staticmethod
    def forward(x, y):
        return x * y, x + y

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, ga, gb):
        x, y = ctx.saved_tensors
        return ga * y + gb, ga * x + gb


class Logged(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        CALLS.append(x.shape[0])  # a Python side effect: the real apply runs (a break)
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


class Passthrough(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        return g


APPLY = SiLUish.apply


def f_old_style(x):
    return SiLUish.apply(x * 2) + 1


def f_new_style(x):
    a, b = PairNewStyle.apply(x, x + 1)
    return a - b


def f_alias(x):
    return APPLY(x, 0.5)


def f_passthrough(x):
    return Passthrough.apply(x) * 3


def test_applies_without_grad_are_inlined_in_one_graph():
    for fn in (f_old_style, f_new_style, f_alias):
        h = Harness()
        check(fn, lambda: (torch.randn(4),), harness=h)
        assert h.captures == 1 and not h.breaks, (fn.__name__, h.breaks)


def test_side_effects_inside_forward_happen_once_per_call():
    def fn(x):
        return Logged.apply(x + 1) - 1

    h = Harness()
    f = h.compile(fn)
    CALLS.clear()
    for _ in range(3):
        torch.testing.assert_close(f(torch.ones(4)), torch.full((4,), 3.0))
    assert CALLS == [4] * 3


def test_inputs_requiring_grad_call_the_real_apply_in_the_graph():
    """The user's backward computes the gradients: the graph calls the real apply."""
    for fn in (f_old_style, f_new_style):
        h = Harness()
        f = h.compile(fn)
        x = torch.randn(4, requires_grad=True)
        f(x).sum().backward()
        got, x.grad = x.grad, None
        fn(x).sum().backward()
        torch.testing.assert_close(got, x.grad)
        assert not h.breaks and h.captures == 1, h.breaks
        assert any(t.__name__.endswith("_apply") for t in h.backend.targets() if callable(t))


def test_forward_with_side_effects_and_grad_runs_in_python():
    def fn(x):
        return Logged.apply(x * 1) + 1

    h = Harness()
    f = h.compile(fn)
    CALLS.clear()
    x = torch.ones(3, requires_grad=True)
    for _ in range(2):
        f(x).sum().backward()
    assert CALLS == [3, 3] and torch.equal(x.grad, torch.full((3,), 4.0))
    assert any("side effect" in b.reason for b in h.breaks)


def test_forward_returning_its_input_runs_the_real_apply():
    h = Harness()
    check(f_passthrough, lambda: (torch.randn(3),), harness=h)
    assert any("returns one of its inputs" in b.reason for b in h.breaks)


def test_no_grad_block_with_grad_requiring_inputs_is_inlined():
    def fn(x):
        with torch.no_grad():
            return SiLUish.apply(x)

    h = Harness()
    check(fn, lambda: (torch.randn(4, requires_grad=True),), harness=h)
    assert not h.breaks


SCALE_W = torch.full((4,), 2.0)


class UsesGlobal(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * SCALE_W  # a tensor its forward reads from a global: a graph input

    @staticmethod
    def backward(ctx, g):
        return g * SCALE_W


def test_forward_reading_a_global_tensor_with_grad_runs_the_real_apply():
    """The fake-tensor run of the real apply cannot see a real global tensor: the call runs in
    Python (a break), gradients still come from the user's backward, and the capture's tables
    stay consistent after the interpreted forward was thrown away."""
    def fn(x):
        return UsesGlobal.apply(x + 1).sum()

    h = Harness()
    f = h.compile(fn)
    x = torch.randn(4, requires_grad=True)
    for _ in range(2):
        x.grad = None
        f(x).backward()
        torch.testing.assert_close(x.grad, SCALE_W)
    assert [b for b in h.breaks if "UsesGlobal" in b.reason]
