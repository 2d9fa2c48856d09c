"""A compiled training step with torch's optimizers (issue 26): SGD, Adam and AdamW, plain,
``foreach``, ``fused`` and with a tensor ``lr``. The step is one call in Python, made after the
graph with ``loss.backward()`` (no resume function or report row inside torch), ``zero_grad()``
runs after the graph with no break, and parameters and optimizer state stay bit-identical to plain Python, the capturing
call included (the step runs once per call)."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import autograph
from autograph.runtime import stats as stats_mod
from autograph.settings import Settings, set_current_settings


@pytest.fixture
def clean():
    set_current_settings(Settings(backend="eager", on_error="raise"))
    autograph.reset()
    yield
    autograph.reset()
    set_current_settings(None)


def train_step(model, opt, x, y):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss.detach()


CASES = [
    (torch.optim.SGD, dict(lr=0.1)),
    (torch.optim.SGD, dict(lr=0.1, momentum=0.9, foreach=True)),
    (torch.optim.SGD, dict(lr=0.1, momentum=0.9, foreach=False, nesterov=True)),
    (torch.optim.Adam, dict(lr=1e-2)),
    (torch.optim.Adam, dict(lr=1e-2, foreach=False)),
    (torch.optim.Adam, dict(lr=1e-2, fused=True)),
    (torch.optim.Adam, dict(lr=torch.tensor(1e-2))),
    (torch.optim.AdamW, dict(lr=1e-2, weight_decay=0.1)),
    (torch.optim.AdamW, dict(lr=torch.tensor(1e-2), foreach=False)),
    (torch.optim.SGD, dict(lr=torch.tensor(0.1), momentum=0.9)),
    (torch.optim.AdamW, dict(lr=1e-2, fused=True, amsgrad=True)),
]


def _train(step, opt_cls, kwargs, steps=4):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    kwargs = {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in kwargs.items()}
    opt = opt_cls(model.parameters(), **kwargs)
    gen = torch.Generator().manual_seed(1)
    losses = [step(model, opt, torch.randn(5, 6, generator=gen), torch.randint(0, 3, (5,), generator=gen))
              for _ in range(steps)]
    return losses, [p.detach().clone() for p in model.parameters()], opt.state_dict()


def _same_state(a, b):
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and torch.equal(a, b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_state(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same_state(x, y) for x, y in zip(a, b))
    return a == b


@pytest.mark.parametrize("opt_cls,kwargs", CASES, ids=[f"{c.__name__}-{sorted(k)}" for c, k in CASES])
def test_optimizer_step_is_one_call_and_bit_identical(clean, opt_cls, kwargs):
    want = _train(train_step, opt_cls, kwargs)
    got = _train(autograph.compile(train_step), opt_cls, kwargs)
    assert _same_state(got, want)
    rows = stats_mod.all_stats()
    assert {st.filename for st in rows} == {__file__}, [st.qualname for st in rows]
    reasons = [r for st in rows for r in st.break_reasons]
    # zero_grad() is recorded; loss.backward() and opt.step() are statement calls made after the
    # graph (engine/deferred_breaks.py); `loss.detach()` of the loss backward() was given runs
    # in Python after them
    kinds = [k for st in rows for k in st.break_kinds]
    assert kinds == ["after-deferred-call"], reasons


def stepping(opt):
    opt.step()


def test_a_scheduler_added_later_gets_its_step_wrapper_called(clean):
    """An entry made for an optimizer whose ``step`` is the class's recaptures for one an LR
    scheduler has wrapped (``opt.step = wrapper``): the wrapper runs (``opt._opt_called``), so the
    scheduler does not warn that it stepped before the optimizer."""
    import warnings
    step = autograph.compile(stepping)
    for with_scheduler in (False, True):
        model = nn.Linear(3, 2)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=5) if with_scheduler else None
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for _ in range(2):
                for p in model.parameters():
                    p.grad = torch.ones_like(p)
                step(opt)
                if sched is not None:
                    sched.step()
        assert getattr(opt, "_opt_called", False) is with_scheduler
