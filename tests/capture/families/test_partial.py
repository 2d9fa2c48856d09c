"""``functools.partial`` objects reached through a source are called through: no break, their
function, stored arguments and keywords guarded (transformers' GELU-tanh activation is one)."""
import functools

import torch
import torch.nn.functional as F

from tests.capture.checks import check
from tests.capture.harness import Harness


def _scale_shift(x, scale, shift=0.0, *, power=1):
    return (x * scale + shift) ** power


GELU_TANH = functools.partial(F.gelu, approximate="tanh")
SCALE = functools.partial(_scale_shift, 2.0, power=2)


def f_torch_partial(x):
    return GELU_TANH(x) + 1


def f_user_partial(x):
    return SCALE(x, shift=1.0)


def f_partial_kwargs_overridden(x):
    return SCALE(x, power=3)


def test_partials_are_called_through_without_a_break():
    for fn in (f_torch_partial, f_user_partial, f_partial_kwargs_overridden):
        h = Harness()
        check(fn, lambda: (torch.randn(5),), harness=h)
        assert h.captures == 1 and not h.breaks, (fn.__name__, h.breaks)


def test_a_replaced_partial_recaptures(monkeypatch):
    h = Harness()
    f = h.compile(f_torch_partial)
    x = torch.randn(5)
    f(x)
    f(x)
    assert h.captures == 1
    monkeypatch.setitem(globals(), "GELU_TANH", functools.partial(F.gelu, approximate="none"))
    torch.testing.assert_close(f(x), F.gelu(x) + 1)
    assert h.captures == 2


class _Act(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.act = functools.partial(F.gelu, approximate="tanh")

    def forward(self, x):
        return self.act(x) * 2


def test_partial_held_by_a_module():
    h = Harness()
    check(lambda m, x: m(x), lambda: (_Act(), torch.randn(3)), harness=h)
    assert not h.breaks
